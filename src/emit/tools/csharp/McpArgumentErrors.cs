#nullable enable

using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using __CLIENT_NAMESPACE__;

namespace __NAMESPACE__;

/// <summary>
/// Checks a tool's arguments against the input schema the tool publishes, before anything is sent, and says
/// which arguments do not fit and why, so that the assistant gets an <c>Error: …</c> it can act on instead
/// of an API's opaque 4xx. The schema is the one the generator wrote from the spec: types, enum, pattern,
/// lengths, formats, ranges, multipleOf, item and property counts, required properties and unions.
/// </summary>
internal static class McpArgumentErrors
{
    private const int MaxProblems = 10;
    private static readonly ConcurrentDictionary<string, Regex?> Patterns = new();

    /// <summary>The message for arguments that do not fit, or null when they all do.</summary>
    public static string? Check(string toolName, JsonElement schema, IEnumerable<KeyValuePair<string, JsonElement>>? arguments)
    {
        var problems = new List<string>();
        var given = arguments?.ToDictionary(a => a.Key, a => a.Value) ?? new Dictionary<string, JsonElement>();
        // An argument the tool does not take would be dropped in silence: the model would believe it filtered.
        if (!schema.TryGetProperty("additionalProperties", out var extra) || extra.ValueKind == JsonValueKind.False)
        {
            var declared = schema.TryGetProperty("properties", out var properties) ? properties : default;
            foreach (var name in given.Where(a => a.Value.ValueKind != JsonValueKind.Null && !(declared.ValueKind == JsonValueKind.Object && declared.TryGetProperty(a.Key, out _))).Select(a => a.Key))
            {
                problems.Add($"'{name}' is not an argument of {toolName} ({Names("it takes", declared)})");
            }
        }
        // At the top level a null argument is one left out: optional ones may be null.
        CheckObject(schema, given.Where(a => a.Value.ValueKind != JsonValueKind.Null).ToDictionary(a => a.Key, a => a.Value), string.Empty, problems);
        return problems.Count == 0 ? null : Message(toolName, problems);
    }

    /// <summary>The message for arguments the server could not bind to the tool's parameters.</summary>
    public static string Describe(string toolName, JsonElement schema, IEnumerable<KeyValuePair<string, JsonElement>>? arguments, Exception exception)
        => Check(toolName, schema, arguments) ?? Message(toolName, [FirstLine(exception.Message)]);

    private static string Message(string toolName, List<string> problems)
        => $"Error: invalid arguments for {toolName}: {string.Join("; ", problems.Take(MaxProblems))}";

    /// <summary>The property names a schema declares, for a message: <c>it takes: a, b, c</c>, or <c>it takes none</c>.</summary>
    private static string Names(string saying, JsonElement properties)
    {
        var names = properties.ValueKind == JsonValueKind.Object ? properties.EnumerateObject().Select(p => p.Name).ToList() : [];
        return names.Count == 0 ? $"{saying} none" : $"{saying}: {string.Join(", ", names.Take(30))}{(names.Count > 30 ? ", …" : string.Empty)}";
    }

    private static string FirstLine(string text) => text.Split('\n', 2)[0].Trim();

    private static void CheckObject(JsonElement schema, IReadOnlyDictionary<string, JsonElement> values, string prefix, List<string> problems)
    {
        if (schema.TryGetProperty("required", out var required) && required.ValueKind == JsonValueKind.Array)
        {
            foreach (var name in required.EnumerateArray().Select(r => r.GetString()).OfType<string>())
            {
                if (!values.ContainsKey(name))
                {
                    problems.Add($"'{prefix}{name}' is required");
                }
            }
        }
        var properties = schema.TryGetProperty("properties", out var declared) && declared.ValueKind == JsonValueKind.Object ? declared : default;
        var additional = schema.TryGetProperty("additionalProperties", out var extra) ? extra : default;
        foreach (var (name, value) in values)
        {
            if (properties.ValueKind == JsonValueKind.Object && properties.TryGetProperty(name, out var property))
            {
                CheckValue(property, value, prefix + name, problems);
            }
            else if (additional.ValueKind == JsonValueKind.Object)
            {
                CheckValue(additional, value, prefix + name, problems);
            }
            else if (additional.ValueKind == JsonValueKind.False)
            {
                problems.Add($"'{prefix}{name}' is not a property of {(prefix.Length == 0 ? "the arguments" : prefix.TrimEnd('.'))} ({Names("it has", properties)})");
            }
        }
        CheckCount(schema, values.Count, "minProperties", "maxProperties", "properties", prefix.TrimEnd('.'), problems);
    }

    private static void CheckValue(JsonElement schema, JsonElement value, string path, List<string> problems)
    {
        var types = Types(schema);
        if (types.Count > 0 && !types.Any(type => Fits(type, value)))
        {
            problems.Add($"'{path}' must be {string.Join(" or ", types.Where(t => t != "null").Select(Article))}");
            return;
        }
        if (schema.TryGetProperty("enum", out var allowed) && allowed.ValueKind == JsonValueKind.Array && !allowed.EnumerateArray().Any(a => SameValue(a, value)))
        {
            problems.Add($"'{path}' must be one of {string.Join(", ", allowed.EnumerateArray().Take(20).Select(a => a.GetRawText()))}{(allowed.GetArrayLength() > 20 ? ", …" : string.Empty)}");
            return;
        }
        foreach (var keyword in new[] { "oneOf", "anyOf" })
        {
            if (schema.TryGetProperty(keyword, out var variants) && variants.ValueKind == JsonValueKind.Array)
            {
                // oneOf is checked as anyOf: arguments are read leniently ("5" is also an integer), so a value may fit
                // two forms here (an ID or a slug) and only one as the API reads it, which checks the rest.
                if (!variants.EnumerateArray().Any(variant => Fits(variant, value)))
                {
                    // Where the value says which form it means (its discriminator, or the one form of its JSON type),
                    // what is wrong with it in that form; otherwise only that it fits none.
                    if (Meant(variants, value) is { } meant)
                    {
                        CheckValue(meant, value, path, problems);
                    }
                    else
                    {
                        problems.Add($"'{path}' fits none of the allowed forms");
                    }
                }
            }
        }
        switch (value.ValueKind)
        {
            case JsonValueKind.String:
                if (TryGetText(value) is { } text)
                {
                    CheckString(schema, text, path, problems);
                }
                else
                {
                    problems.Add($"'{path}' is not valid text (it holds half of a UTF-16 surrogate pair)");
                }
                break;
            case JsonValueKind.Number:
                CheckNumber(schema, value.GetDouble(), value.GetRawText(), path, problems);
                break;
            case JsonValueKind.Array:
                var index = 0;
                var items = schema.TryGetProperty("items", out var itemSchema) ? itemSchema : default;
                foreach (var item in value.EnumerateArray())
                {
                    if (items.ValueKind == JsonValueKind.Object)
                    {
                        CheckValue(items, item, $"{path}[{index}]", problems);
                    }
                    index++;
                }
                CheckCount(schema, index, "minItems", "maxItems", "items", path, problems);
                if (schema.TryGetProperty("uniqueItems", out var unique) && unique.ValueKind == JsonValueKind.True)
                {
                    var list = value.EnumerateArray().ToList();
                    if (list.Where((item, i) => list.Skip(i + 1).Any(other => SameValue(item, other))).Any())
                    {
                        problems.Add($"'{path}' must not repeat items");
                    }
                }
                break;
            case JsonValueKind.Object:
                CheckObject(schema, value.EnumerateObject().ToDictionary(p => p.Name, p => p.Value), path + ".", problems);
                break;
        }
    }

    /// <summary>Whether a value fits a schema, without saying why not (for the alternatives of unions).</summary>
    /// <summary>
    /// The alternative a value means: the only one whose discriminator (a property that takes one value, as the
    /// generator pins them) the value gives, else the only one of its JSON type; null when the value does not say.
    /// </summary>
    private static JsonElement? Meant(JsonElement variants, JsonElement value)
    {
        var all = variants.EnumerateArray().Where(variant => variant.ValueKind == JsonValueKind.Object).ToList();
        if (value.ValueKind == JsonValueKind.Object)
        {
            var pinned = all.Where(variant => variant.TryGetProperty("properties", out var properties) && properties.ValueKind == JsonValueKind.Object
                && properties.EnumerateObject().Any(p => p.Value.ValueKind == JsonValueKind.Object && p.Value.TryGetProperty("enum", out var only) && only.ValueKind == JsonValueKind.Array && only.GetArrayLength() >= 1
                    && value.TryGetProperty(p.Name, out var given) && only.EnumerateArray().Any(o => SameValue(o, given)))).ToList();
            if (pinned.Count == 1)
            {
                return pinned[0];
            }
        }
        var ofType = all.Where(variant => Types(variant) is var types && (types.Count == 0 ? variant.TryGetProperty("properties", out _) && value.ValueKind == JsonValueKind.Object : types.Any(type => Fits(type, value)))).ToList();
        return ofType.Count == 1 ? ofType[0] : null;
    }

    private static bool Fits(JsonElement schema, JsonElement value)
    {
        var problems = new List<string>();
        CheckValue(schema, value, string.Empty, problems);
        return problems.Count == 0;
    }

    /// <summary>The string, or null when JSON escapes make it invalid UTF-16 (a lone surrogate such as \ud800).</summary>
    private static string? TryGetText(JsonElement value)
    {
        try
        {
            return value.GetString();
        }
        catch (InvalidOperationException)
        {
            return null;
        }
    }

    private static void CheckString(JsonElement schema, string text, string path, List<string> problems)
    {
        // Numbers and booleans may arrive as strings (the server reads them); their own checks apply then.
        var types = Types(schema);
        if (types.Count > 0 && !types.Contains("string"))
        {
            if (double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var number))
            {
                CheckNumber(schema, number, text, path, problems);
            }
            return;
        }
        var length = text.EnumerateRunes().Count();
        if (schema.TryGetProperty("minLength", out var min) && min.TryGetInt32(out var minLength) && length < minLength)
        {
            problems.Add(minLength == 1 ? $"'{path}' must not be empty" : $"'{path}' must have at least {minLength} characters");
        }
        if (schema.TryGetProperty("maxLength", out var max) && max.TryGetInt32(out var maxLength) && length > maxLength)
        {
            problems.Add($"'{path}' must have at most {maxLength} characters");
        }
        if (schema.TryGetProperty("pattern", out var pattern) && pattern.GetString() is { } source && Compile(source) is { } regex && !Matches(regex, text))
        {
            problems.Add($"'{path}' must match the pattern {source}");
        }
        if (schema.TryGetProperty("contentEncoding", out var encoding) && encoding.GetString() == "base64" && !IsBase64(text))
        {
            problems.Add($"'{path}' must be base64-encoded (padded with = to a multiple of 4 characters)");
        }
        if (schema.TryGetProperty("format", out var format) && format.GetString() is { } name && !FitsFormat(name, text))
        {
            problems.Add($"'{path}' must be {FormatName(name)}");
        }
    }

    private static void CheckNumber(JsonElement schema, double number, string raw, string path, List<string> problems)
    {
        static double? Read(JsonElement schema, string keyword) => schema.TryGetProperty(keyword, out var bound) && bound.ValueKind == JsonValueKind.Number ? bound.GetDouble() : null;
        var minimum = Read(schema, "minimum");
        var maximum = Read(schema, "maximum");
        var exclusiveMinimum = Read(schema, "exclusiveMinimum");
        var exclusiveMaximum = Read(schema, "exclusiveMaximum");
        var tooLow = number < minimum || number <= exclusiveMinimum;
        var tooHigh = number > maximum || number >= exclusiveMaximum;
        if (tooLow || tooHigh)
        {
            var low = minimum is double a ? $"at least {Show(a)}" : exclusiveMinimum is double b ? $"more than {Show(b)}" : null;
            var high = maximum is double c ? $"at most {Show(c)}" : exclusiveMaximum is double d ? $"less than {Show(d)}" : null;
            problems.Add($"'{path}' must be {string.Join(" and ", new[] { low, high }.OfType<string>())} (not {raw})");
        }
        if (Read(schema, "multipleOf") is double step && step > 0 && !IsMultiple(number, step))
        {
            problems.Add($"'{path}' must be a multiple of {Show(step)}");
        }
        if (schema.TryGetProperty("format", out var format) && format.GetString() == "int32" && (number < int.MinValue || number > int.MaxValue))
        {
            problems.Add($"'{path}' must be a 32-bit integer (between {int.MinValue} and {int.MaxValue})");
        }
    }

    private static void CheckCount(JsonElement schema, int count, string minKeyword, string maxKeyword, string noun, string path, List<string> problems)
    {
        if (schema.TryGetProperty(minKeyword, out var min) && min.TryGetInt32(out var least) && count < least)
        {
            problems.Add($"'{path}' must have at least {least} {noun}");
        }
        if (schema.TryGetProperty(maxKeyword, out var max) && max.TryGetInt32(out var most) && count > most)
        {
            problems.Add($"'{path}' must have at most {most} {noun}");
        }
    }

    private static bool IsMultiple(double number, double step)
    {
        if (decimal.TryParse(number.ToString("R", CultureInfo.InvariantCulture), NumberStyles.Float, CultureInfo.InvariantCulture, out var n)
            && decimal.TryParse(step.ToString("R", CultureInfo.InvariantCulture), NumberStyles.Float, CultureInfo.InvariantCulture, out var s) && s != 0)
        {
            return n % s == 0;
        }
        var quotient = number / step;
        return Math.Abs(quotient - Math.Round(quotient)) < 1e-9;
    }

    private static Regex? Compile(string pattern) => Patterns.GetOrAdd(pattern, source =>
    {
        try
        {
            return new Regex(source, RegexOptions.CultureInvariant, TimeSpan.FromMilliseconds(100));
        }
        catch (ArgumentException)
        {
            return null; // a pattern .NET cannot read is not checked here (the API still checks it)
        }
    });

    private static bool Matches(Regex regex, string text)
    {
        try
        {
            return regex.IsMatch(text);
        }
        catch (RegexMatchTimeoutException)
        {
            return true;
        }
    }

    /// <summary>Base64 as the server reads it: padded or not, standard or URL-safe (see <c>ApiJson</c>).</summary>
    /// <summary>
    /// Base64 as RFC 4648 writes it, padded to a multiple of 4 (the standard or the URL-safe alphabet): plain text
    /// given where bytes are meant (<c>app/config</c>) is refused more often than an unpadded reading would allow.
    /// </summary>
    private static bool IsBase64(string text) => text.Trim().Length % 4 == 0 && ApiBase64.TryDecode(text, out _);

    private static bool FitsFormat(string format, string text) => format switch
    {
        "date-time" => DateTimeOffset.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind, out _) && text.Contains('T', StringComparison.OrdinalIgnoreCase),
        "date" => DateOnly.TryParseExact(text, "yyyy-MM-dd", CultureInfo.InvariantCulture, DateTimeStyles.None, out _),
        "uuid" => Guid.TryParseExact(text, "D", out _),
        "email" => text.IndexOf('@') > 0 && text.IndexOf('@') < text.Length - 1 && !text.Any(char.IsWhiteSpace),
        "uri" => Uri.TryCreate(text, UriKind.Absolute, out _),
        "ipv4" => IPAddress.TryParse(text, out var v4) && v4.AddressFamily == AddressFamily.InterNetwork && text.Count(c => c == '.') == 3,
        "ipv6" => IPAddress.TryParse(text, out var v6) && v6.AddressFamily == AddressFamily.InterNetworkV6,
        _ => true,
    };

    private static string FormatName(string format) => format switch
    {
        "date-time" => "a date and time (RFC 3339, e.g. 2024-05-01T12:00:00Z)",
        "date" => "a date (yyyy-MM-dd)",
        "uuid" => "a UUID",
        "email" => "an email address",
        "uri" => "an absolute URI",
        "ipv4" => "an IPv4 address",
        "ipv6" => "an IPv6 address",
        _ => format,
    };

    private static bool SameValue(JsonElement a, JsonElement b)
    {
        if (a.ValueKind == JsonValueKind.Number && b.ValueKind == JsonValueKind.Number)
        {
            return a.GetDouble() == b.GetDouble();
        }
        // The server reads numbers and booleans from strings too: "2" is the enum value 2.
        if (a.ValueKind != b.ValueKind && b.ValueKind == JsonValueKind.String)
        {
            return a.GetRawText() == TryGetText(b);
        }
        return JsonElement.DeepEquals(a, b);
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
        "integer" => value.ValueKind == JsonValueKind.Number ? value.TryGetInt64(out _) : value.ValueKind == JsonValueKind.String && long.TryParse(TryGetText(value), NumberStyles.Integer, CultureInfo.InvariantCulture, out _),
        "number" => value.ValueKind == JsonValueKind.Number || (value.ValueKind == JsonValueKind.String && double.TryParse(TryGetText(value), NumberStyles.Float, CultureInfo.InvariantCulture, out _)),
        "array" => value.ValueKind == JsonValueKind.Array,
        "object" => value.ValueKind == JsonValueKind.Object,
        _ => true,
    };

    private static string Show(double number) => number.ToString("0.################", CultureInfo.InvariantCulture);

    private static string Article(string type) => type switch
    {
        "integer" => "an integer",
        "object" => "an object",
        "array" => "an array",
        _ => "a " + type,
    };
}
