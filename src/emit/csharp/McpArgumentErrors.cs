#nullable enable

using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text.Json;

namespace __NAMESPACE__;

/// <summary>
/// Says why a tool's arguments could not be bound (missing required values, wrong JSON types), so that the
/// assistant gets an <c>Error: …</c> it can act on instead of the SDK's generic message.
/// </summary>
internal static class McpArgumentErrors
{
    public static string Describe(string toolName, JsonElement inputSchema, IEnumerable<KeyValuePair<string, JsonElement>>? arguments)
    {
        var problems = new List<string>();
        var given = arguments?.ToDictionary(a => a.Key, a => a.Value) ?? new Dictionary<string, JsonElement>();
        Check(inputSchema, given, string.Empty, problems);
        return problems.Count > 0
            ? $"Error: invalid arguments for {toolName}: {string.Join("; ", problems.Take(10))}"
            : $"Error: the arguments for {toolName} do not match its input schema";
    }

    private static void Check(JsonElement schema, IReadOnlyDictionary<string, JsonElement> values, string prefix, List<string> problems)
    {
        if (schema.TryGetProperty("required", out var required) && required.ValueKind == JsonValueKind.Array)
        {
            foreach (var name in required.EnumerateArray().Select(r => r.GetString()).OfType<string>())
            {
                if (!values.TryGetValue(name, out var value) || value.ValueKind is JsonValueKind.Null or JsonValueKind.Undefined)
                {
                    problems.Add($"'{prefix}{name}' is required");
                }
            }
        }
        if (!schema.TryGetProperty("properties", out var properties) || properties.ValueKind != JsonValueKind.Object)
        {
            return;
        }
        foreach (var (name, value) in values)
        {
            if (properties.TryGetProperty(name, out var property))
            {
                CheckValue(property, value, prefix + name, problems);
            }
        }
    }

    private static void CheckValue(JsonElement schema, JsonElement value, string path, List<string> problems)
    {
        var types = Types(schema);
        if (types.Count > 0 && !types.Any(type => Fits(type, value)))
        {
            problems.Add($"'{path}' must be {string.Join(" or ", types.Where(t => t != "null").Select(Article))}");
            return;
        }
        if (value.ValueKind == JsonValueKind.Object)
        {
            Check(schema, value.EnumerateObject().ToDictionary(p => p.Name, p => p.Value), path + ".", problems);
        }
        else if (value.ValueKind == JsonValueKind.Array && schema.TryGetProperty("items", out var items))
        {
            var index = 0;
            foreach (var item in value.EnumerateArray())
            {
                CheckValue(items, item, $"{path}[{index++}]", problems);
            }
        }
        if (schema.TryGetProperty("enum", out var allowed) && allowed.ValueKind == JsonValueKind.Array && value.ValueKind != JsonValueKind.Null
            && !allowed.EnumerateArray().Any(a => JsonElement.DeepEquals(a, value)))
        {
            problems.Add($"'{path}' must be one of {string.Join(", ", allowed.EnumerateArray().Select(a => a.GetRawText()))}");
        }
    }

    private static List<string> Types(JsonElement schema)
    {
        if (!schema.TryGetProperty("type", out var type))
        {
            return new List<string>();
        }
        return type.ValueKind == JsonValueKind.Array
            ? type.EnumerateArray().Select(t => t.GetString()).OfType<string>().ToList()
            : type.GetString() is { } single ? new List<string> { single } : new List<string>();
    }

    private static bool Fits(string type, JsonElement value) => type switch
    {
        "null" => value.ValueKind == JsonValueKind.Null,
        "string" => value.ValueKind == JsonValueKind.String,
        "boolean" => value.ValueKind is JsonValueKind.True or JsonValueKind.False,
        "integer" => value.ValueKind == JsonValueKind.Number ? value.TryGetInt64(out _) : value.ValueKind == JsonValueKind.String && long.TryParse(value.GetString(), NumberStyles.Integer, CultureInfo.InvariantCulture, out _),
        "number" => value.ValueKind == JsonValueKind.Number || (value.ValueKind == JsonValueKind.String && double.TryParse(value.GetString(), NumberStyles.Float, CultureInfo.InvariantCulture, out _)),
        "array" => value.ValueKind == JsonValueKind.Array,
        "object" => value.ValueKind == JsonValueKind.Object,
        _ => true,
    };

    private static string Article(string type) => type switch
    {
        "integer" => "an integer",
        "object" => "an object",
        "array" => "an array",
        _ => "a " + type,
    };
}
