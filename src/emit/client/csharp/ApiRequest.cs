#nullable enable

using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Text;
using System.Text.Json;

namespace __NAMESPACE__;

/// <summary>One HTTP request to the API, built by the generated client methods.</summary>
public sealed partial class ApiRequest
{
    private readonly StringBuilder path = new();
    private readonly List<string> query = new();
    private readonly List<KeyValuePair<string, string>> headers = new();
    private readonly List<string> cookies = new();
    private Func<HttpContent>? content;
    private string? problem;
    private string[]? security;
    private string? accept;

    /// <summary>The request option that carries the operation's security requirement to <c>ApiCredentialsHandler</c>.</summary>
    public static readonly HttpRequestOptionsKey<string[]> SecurityOption = new("openapi-mcp-dotnet.security");

    /// <param name="method">The HTTP method.</param>
    /// <param name="subject">What the operation acts on, for messages (e.g. "pet").</param>
    public ApiRequest(HttpMethod method, string subject)
    {
        Method = method;
        Subject = subject;
    }

    public HttpMethod Method { get; }

    public string Subject { get; }

    /// <summary>The request as a person reads it: <c>GET /pets/42</c>.</summary>
    public string Display => $"{Method.Method} /{path}";

    /// <summary>Appends literal path text (already escaped).</summary>
    public ApiRequest Path(string literal)
    {
        path.Append(literal);
        return this;
    }

    /// <summary>Appends one path parameter value, escaped so that it stays one path segment.</summary>
    public ApiRequest PathValue(string name, object? value)
    {
        var text = Format(value);
        if (string.IsNullOrEmpty(text))
        {
            problem ??= $"the path parameter '{name}' needs a value";
            text = string.Empty;
        }
        var escaped = Uri.EscapeDataString(text);
        path.Append(escaped == "." || escaped == ".." ? escaped.Replace(".", "%2E") : escaped);
        return this;
    }

    /// <summary>Adds a query parameter written in the given OpenAPI <paramref name="style"/>.</summary>
    public ApiRequest Query(string name, object? value, bool explode = true, ApiQueryStyle style = ApiQueryStyle.Form)
    {
        if (value is null)
        {
            return this;
        }
        if (IsScalar(value))
        {
            AddQuery(name, Format(value));
            return this;
        }
        var element = value is JsonElement json ? json : JsonSerializer.SerializeToElement(value, value.GetType(), ApiJson.Options);
        switch (element.ValueKind)
        {
            case JsonValueKind.Array:
                var items = new List<string>();
                foreach (var item in element.EnumerateArray())
                {
                    items.Add(Format(item) ?? string.Empty);
                }
                if (style == ApiQueryStyle.Form && explode)
                {
                    items.ForEach(item => AddQuery(name, item));
                }
                else
                {
                    AddQuery(name, string.Join(style == ApiQueryStyle.SpaceDelimited ? " " : style == ApiQueryStyle.PipeDelimited ? "|" : ",", items));
                }
                break;
            case JsonValueKind.Object:
                var pairs = new List<string>();
                foreach (var property in element.EnumerateObject())
                {
                    if (property.Value.ValueKind == JsonValueKind.Null)
                    {
                        continue;
                    }
                    if (style == ApiQueryStyle.DeepObject)
                    {
                        AddDeepObject($"{name}[{property.Name}]", property.Value);
                    }
                    else if (explode)
                    {
                        AddQuery(property.Name, Format(property.Value));
                    }
                    else
                    {
                        pairs.Add(property.Name);
                        pairs.Add(Format(property.Value) ?? string.Empty);
                    }
                }
                if (pairs.Count > 0)
                {
                    AddQuery(name, string.Join(",", pairs));
                }
                break;
            default:
                AddQuery(name, Format(element));
                break;
        }
        return this;
    }

    /// <summary>
    /// A deepObject member: nested objects as further brackets (<c>filter[a][b]=1</c>), arrays as
    /// comma-separated values (<c>filter[id]=1,2</c>, the convention of APIs that take lists there).
    /// </summary>
    private void AddDeepObject(string name, JsonElement value)
    {
        switch (value.ValueKind)
        {
            case JsonValueKind.Object:
                foreach (var property in value.EnumerateObject())
                {
                    AddDeepObject($"{name}[{property.Name}]", property.Value);
                }
                break;
            case JsonValueKind.Array:
                AddQuery(name, string.Join(",", value.EnumerateArray().Select(item => Format(item) ?? string.Empty)));
                break;
            case JsonValueKind.Null or JsonValueKind.Undefined:
                break;
            default:
                AddQuery(name, Format(value));
                break;
        }
    }

    private void AddQuery(string name, string? value)
    {
        if (value is not null)
        {
            query.Add(Uri.EscapeDataString(name) + "=" + Uri.EscapeDataString(value));
        }
    }

    /// <summary>Adds a header; a value with a line break is refused and the request is not sent.</summary>
    public ApiRequest Header(string name, object? value)
    {
        var text = value is IEnumerable items && value is not string && value is not byte[] ? Join(items) : Format(value);
        if (text is null)
        {
            return this;
        }
        if (text.AsSpan().IndexOfAny('\r', '\n') >= 0 || text.Contains('\0'))
        {
            problem ??= $"the header '{name}' must not contain line breaks";
            return this;
        }
        headers.Add(new KeyValuePair<string, string>(name, text));
        return this;
    }

    /// <summary>Adds a cookie.</summary>
    public ApiRequest Cookie(string name, object? value)
    {
        var text = Format(value);
        if (text is not null)
        {
            cookies.Add(Uri.EscapeDataString(name) + "=" + Uri.EscapeDataString(text));
        }
        return this;
    }

    /// <summary>The media type the response is read as, sent as <c>Accept</c>.</summary>
    public ApiRequest Accept(string mediaType)
    {
        accept = mediaType;
        return this;
    }

    /// <summary>
    /// The operation's security requirement: alternatives, each the space-separated names of the schemes
    /// that must all be sent; an empty alternative allows a call without credentials.
    /// </summary>
    public ApiRequest Security(params string[] alternatives)
    {
        security = alternatives;
        return this;
    }

    private static string Join(IEnumerable items)
    {
        var parts = new List<string>();
        foreach (var item in items)
        {
            parts.Add(Format(item) ?? string.Empty);
        }
        return string.Join(",", parts);
    }

    /// <summary>Reads <c>Name: value; Other: value</c> (extra headers for every request); entries with line breaks are dropped.</summary>
    public static IReadOnlyList<(string Name, string Value)> ParseHeaderList(string? text)
    {
        var result = new List<(string Name, string Value)>();
        foreach (var entry in (text ?? string.Empty).Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            var colon = entry.IndexOf(':');
            if (colon > 0 && entry.AsSpan().IndexOfAny('\r', '\n') < 0)
            {
                result.Add((entry[..colon].Trim(), entry[(colon + 1)..].Trim()));
            }
        }
        return result;
    }

    /// <summary>
    /// A parameter declared with a JSON media type (OpenAPI <c>content</c>): the whole value as one JSON text, sent in
    /// one query field, header, cookie or path segment. A string goes as its text, as the APIs that declare one so read it.
    /// </summary>
    public static string? JsonText(object? value) => value switch
    {
        null => null,
        string text => text,
        JsonElement { ValueKind: JsonValueKind.String } element => element.GetString(),
        JsonElement { ValueKind: JsonValueKind.Null or JsonValueKind.Undefined } => null,
        JsonElement element => element.GetRawText(),
        _ => JsonSerializer.Serialize(value, value.GetType(), ApiJson.Options),
    };

    /// <summary>
    /// A parameter the client cannot write as the API's document says: when a value is given, the request is not sent
    /// (written another way it could mean something else to the API, such as a filter it ignores).
    /// </summary>
    public ApiRequest Refuse(object? value, string why)
    {
        if (value is not null)
        {
            problem ??= why;
        }
        return this;
    }

    /// <summary>Formats a value the way URLs and headers expect it: invariant culture, ISO 8601 dates.</summary>
    public static string? Format(object? value) => value switch
    {
        null => null,
        string text => text,
        bool flag => flag ? "true" : "false",
        DateTimeOffset moment => moment.ToString("o", CultureInfo.InvariantCulture),
        DateTime moment => moment.ToString("o", CultureInfo.InvariantCulture),
        DateOnly day => day.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture),
        byte[] bytes => Convert.ToBase64String(bytes),
        ApiFile file => Convert.ToBase64String(file.Content),
        JsonElement { ValueKind: JsonValueKind.String } element => element.GetString(),
        JsonElement { ValueKind: JsonValueKind.Null or JsonValueKind.Undefined } => null,
        JsonElement element => element.GetRawText(),
        IFormattable formattable => formattable.ToString(null, CultureInfo.InvariantCulture),
        _ => JsonSerializer.Serialize(value, value.GetType(), ApiJson.Options),
    };
}
