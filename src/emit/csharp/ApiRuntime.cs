#nullable enable

using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using System.Threading;
using System.Threading.Tasks;

namespace __NAMESPACE__;

/// <summary>The outcome of an API call: the value on success, an <see cref="ApiError"/> otherwise.</summary>
public sealed class ApiResult<T>
{
    private ApiResult(bool isSuccess, int statusCode, T? value, ApiError? error)
    {
        IsSuccess = isSuccess;
        StatusCode = statusCode;
        Value = value;
        Error = error;
    }

    /// <summary>True when the API answered with a 2xx status.</summary>
    public bool IsSuccess { get; }

    /// <summary>The HTTP status of the response; 0 when no response arrived.</summary>
    public int StatusCode { get; }

    /// <summary>The response body on success; null when the response had none.</summary>
    public T? Value { get; }

    /// <summary>Why the call failed; null on success.</summary>
    public ApiError? Error { get; }

    public static ApiResult<T> Success(int statusCode, T? value) => new(true, statusCode, value, null);

    public static ApiResult<T> Failure(ApiError error) => new(false, error.StatusCode ?? 0, default, error);
}

/// <summary>Why an API call failed.</summary>
/// <param name="StatusCode">The HTTP status, or null when no response arrived.</param>
/// <param name="Message">A human-readable message, taken from the error body where it has one.</param>
/// <param name="Body">The error body as received (cut to 64 KB), if any.</param>
public sealed record ApiError(int? StatusCode, string Message, string? Body)
{
    /// <summary>The message followed by <c>(HTTP status)</c> when there was a response.</summary>
    public override string ToString() => StatusCode is int status ? $"{Message} (HTTP {status})" : Message;
}

/// <summary>A request that cannot be sent because a credential is missing or cannot be obtained.</summary>
public sealed class ApiCredentialsException(string message) : Exception(message);

/// <summary>How a response body is read.</summary>
public enum ApiResponseKind
{
    /// <summary>No body is expected.</summary>
    None,
    /// <summary>A JSON body, deserialized into the result type.</summary>
    Json,
    /// <summary>A text body, returned as a string.</summary>
    Text,
    /// <summary>Any other body, returned as an <see cref="ApiFile"/>.</summary>
    Binary,
}

/// <summary>A binary response: its bytes, media type and file name (from Content-Disposition).</summary>
public sealed record ApiFile(string? ContentType, string? FileName, byte[] Content);

/// <summary>How an array or object query parameter is written (OpenAPI <c>style</c>).</summary>
public enum ApiQueryStyle
{
    /// <summary><c>ids=1&amp;ids=2</c> (exploded) or <c>ids=1,2</c>; objects as <c>a=1&amp;b=2</c> or <c>obj=a,1,b,2</c>.</summary>
    Form,
    /// <summary><c>ids=1%202</c>.</summary>
    SpaceDelimited,
    /// <summary><c>ids=1|2</c>.</summary>
    PipeDelimited,
    /// <summary><c>obj[a]=1&amp;obj[b]=2</c>.</summary>
    DeepObject,
}

/// <summary>JSON settings shared by the client and the tools.</summary>
public static class ApiJson
{
    /// <summary>
    /// Exact property names (an API may have both <c>name</c> and <c>Name</c>), nulls left out when
    /// writing, numbers read from strings too, and a response that omits a required property still reads.
    /// </summary>
    public static JsonSerializerOptions Options { get; } = CreateOptions();

    private static JsonSerializerOptions CreateOptions()
    {
        var options = new JsonSerializerOptions
        {
            DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
            NumberHandling = JsonNumberHandling.AllowReadingFromString,
            TypeInfoResolver = new DefaultJsonTypeInfoResolver { Modifiers = { AllowMissingProperties } },
            Converters = { new Base64Converter() },
        };
        options.MakeReadOnly();
        return options;
    }

    /// <summary>Bytes as base64, read whether padded or not, standard or URL-safe (APIs send all four).</summary>
    private sealed class Base64Converter : JsonConverter<byte[]>
    {
        // A JsonException without a message: the serializer's own says where (Path: $.…).
        public override byte[]? Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
            reader.TokenType == JsonTokenType.Null ? null
            : reader.TokenType == JsonTokenType.String && ApiBase64.TryDecode(reader.GetString() ?? string.Empty, out var bytes) ? bytes
            : throw new JsonException();

        public override void Write(Utf8JsonWriter writer, byte[] value, JsonSerializerOptions options) => writer.WriteBase64StringValue(value);
    }

    private static void AllowMissingProperties(JsonTypeInfo typeInfo)
    {
        foreach (var property in typeInfo.Properties)
        {
            property.IsRequired = false;
        }
    }
}

/// <summary>Base64 as APIs write it: padded or not, with the standard or the URL-safe alphabet.</summary>
public static class ApiBase64
{
    public static bool TryDecode(string text, out byte[] bytes)
    {
        var standard = text.Trim().Replace('-', '+').Replace('_', '/');
        if (standard.Length % 4 == 1)
        {
            bytes = Array.Empty<byte>();
            return false;
        }
        standard = standard.PadRight(standard.Length + (4 - standard.Length % 4) % 4, '=');
        var buffer = new byte[standard.Length * 3 / 4];
        if (Convert.TryFromBase64String(standard, buffer, out var written))
        {
            bytes = buffer[..written];
            return true;
        }
        bytes = Array.Empty<byte>();
        return false;
    }
}

/// <summary>One HTTP request to the API, built by the generated client methods.</summary>
public sealed class ApiRequest
{
    private const int MaxErrorBodyChars = 64 * 1024;
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

    /// <summary>Sends the body as JSON.</summary>
    public ApiRequest JsonBody<TBody>(TBody body, string mediaType = "application/json")
    {
        if (body is not null)
        {
            var json = JsonSerializer.Serialize(body, ApiJson.Options);
            var type = MediaTypeOrJson(mediaType);
            content = () => new StringContent(json, Encoding.UTF8, type);
        }
        return this;
    }

    /// <summary>Sends the top-level properties of the body as <c>application/x-www-form-urlencoded</c>.</summary>
    public ApiRequest FormBody<TBody>(TBody body)
    {
        if (body is not null)
        {
            var fields = new List<KeyValuePair<string, string>>();
            foreach (var (name, value) in Members(body))
            {
                foreach (var item in Items(value))
                {
                    fields.Add(new KeyValuePair<string, string>(name, Format(item) ?? string.Empty));
                }
            }
            content = () => new FormUrlEncodedContent(fields);
        }
        return this;
    }

    /// <summary>Sends the top-level properties of the body as <c>multipart/form-data</c>; bytes and files become file parts.</summary>
    public ApiRequest MultipartBody<TBody>(TBody body)
    {
        if (body is not null)
        {
            var fields = new List<(string Name, object? Value)>();
            foreach (var (name, value) in Members(body))
            {
                foreach (var item in Items(value))
                {
                    fields.Add((name, item));
                }
            }
            content = () =>
            {
                var multipart = new MultipartFormDataContent();
                foreach (var (name, item) in fields)
                {
                    var part = Part(item);
                    // RFC 7578: the name and file name are quoted strings (.NET writes them bare).
                    part.Headers.ContentDisposition = new ContentDispositionHeaderValue("form-data")
                    {
                        Name = Quoted(name),
                        FileName = item is byte[] or ApiFile ? Quoted(item is ApiFile { FileName: { } fileName } ? fileName : name) : null,
                    };
                    multipart.Add(part);
                }
                return multipart;
            };
        }
        return this;
    }

    private static string Quoted(string text) => "\"" + text.Replace("\\", "\\\\").Replace("\"", "\\\"").Replace("\r", string.Empty).Replace("\n", string.Empty) + "\"";

    private static HttpContent Part(object? value)
    {
        switch (value)
        {
            case byte[] bytes:
                var part = new ByteArrayContent(bytes);
                part.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
                return part;
            case ApiFile file:
                var filePart = new ByteArrayContent(file.Content);
                filePart.Headers.ContentType = MediaTypeHeaderValue.TryParse(file.ContentType, out var type) ? type : new MediaTypeHeaderValue("application/octet-stream");
                return filePart;
            default:
                return new StringContent(Format(value) ?? string.Empty, Encoding.UTF8);
        }
    }

    /// <summary>The non-null top-level properties of a body, with their JSON names and .NET values.</summary>
    private static IEnumerable<(string Name, object? Value)> Members(object body)
    {
        var info = ApiJson.Options.GetTypeInfo(body.GetType());
        if (info.Kind == JsonTypeInfoKind.Object && body is not JsonElement)
        {
            foreach (var property in info.Properties)
            {
                if (property.Get?.Invoke(body) is { } value)
                {
                    yield return (property.Name, value);
                }
            }
            yield break;
        }
        var element = body is JsonElement json ? json : JsonSerializer.SerializeToElement(body, body.GetType(), ApiJson.Options);
        if (element.ValueKind == JsonValueKind.Object)
        {
            foreach (var property in element.EnumerateObject())
            {
                if (property.Value.ValueKind != JsonValueKind.Null)
                {
                    yield return (property.Name, property.Value);
                }
            }
        }
    }

    /// <summary>
    /// The items of an array value (each sent as its own field), or the value itself. A value the spec left
    /// untyped (a <see cref="JsonElement"/>) goes as one field of JSON text, empty arrays included.
    /// </summary>
    private static IEnumerable<object?> Items(object? value)
    {
        if (value is IEnumerable items && !IsScalar(value) && value is not JsonElement)
        {
            foreach (var item in items)
            {
                yield return item;
            }
        }
        else
        {
            yield return value;
        }
    }

    private static bool IsScalar(object value) =>
        value is string or bool or byte[] or IFormattable or ApiFile || value is JsonElement { ValueKind: not (JsonValueKind.Array or JsonValueKind.Object) };

    /// <summary>Sends a text body.</summary>
    public ApiRequest TextBody(string? body, string mediaType)
    {
        if (body is not null)
        {
            content = () => new StringContent(body, Encoding.UTF8, mediaType);
        }
        return this;
    }

    /// <summary>Sends raw bytes.</summary>
    public ApiRequest BinaryBody(byte[]? body, string mediaType)
    {
        if (body is not null)
        {
            // A range such as */* or image/* names no type: the bytes go as application/octet-stream.
            var type = MediaTypeHeaderValue.TryParse(mediaType, out var parsed) && parsed.MediaType?.Contains('*') != true ? parsed.ToString() : "application/octet-stream";
            content = () =>
            {
                var bytes = new ByteArrayContent(body);
                bytes.Headers.ContentType = MediaTypeHeaderValue.Parse(type);
                return bytes;
            };
        }
        return this;
    }

    /// <summary>Sends the request and reads the response. Failures become an <see cref="ApiError"/>; only cancellation throws.</summary>
    public async Task<ApiResult<T>> SendAsync<T>(HttpClient httpClient, ApiResponseKind responseKind, CancellationToken cancellationToken)
    {
        if (problem is not null)
        {
            return ApiResult<T>.Failure(new ApiError(null, $"{Display} was not sent: {problem}", null));
        }
        if (httpClient.BaseAddress is null)
        {
            return ApiResult<T>.Failure(new ApiError(null, $"{Display} was not sent: no base URL is configured for the API", null));
        }
        // The path and query are escaped here; Uri must not undo that (it would turn %2E%2E into a "..").
        var baseUrl = httpClient.BaseAddress.AbsoluteUri;
        var target = new Uri(
            (baseUrl.EndsWith('/') ? baseUrl : baseUrl + "/") + path + (query.Count > 0 ? "?" + string.Join("&", query) : string.Empty),
            new UriCreationOptions { DangerousDisablePathAndQueryCanonicalization = true });
        var method = Method;
        var withBody = true;
        try
        {
            // Redirects are followed here, and only within the API's origin: the credentials go nowhere else.
            for (var redirects = 0; ; redirects++)
            {
                using var message = CreateMessage(method, target, withBody);
                using var response = await httpClient.SendAsync(message, HttpCompletionOption.ResponseHeadersRead, cancellationToken).ConfigureAwait(false);
                var status = (int)response.StatusCode;
                if (status is 301 or 302 or 303 or 307 or 308 && response.Headers.Location is { } location)
                {
                    var next = new Uri(target, location);
                    if (!SameOrigin(next, httpClient.BaseAddress))
                    {
                        return ApiResult<T>.Failure(new ApiError(status, $"{Display} was redirected to {next.GetLeftPart(UriPartial.Authority)}, another origin than the API's, and the redirect was not followed", null));
                    }
                    if (redirects == MaxRedirects)
                    {
                        return ApiResult<T>.Failure(new ApiError(status, $"{Display} was redirected more than {MaxRedirects} times", null));
                    }
                    // 303, and 301/302 after a POST, continue as a GET without the body (as browsers do).
                    if (status == 303 || (status is 301 or 302 && method == HttpMethod.Post))
                    {
                        method = HttpMethod.Get;
                        withBody = false;
                    }
                    target = next;
                    continue;
                }
                if (!response.IsSuccessStatusCode)
                {
                    var errorBody = await ReadTextAsync(response, MaxErrorBodyChars, cancellationToken).ConfigureAwait(false);
                    return ApiResult<T>.Failure(new ApiError(status, ApiErrorMessages.Describe(this, response, errorBody), errorBody));
                }
                return await ReadSuccessAsync<T>(response, responseKind, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            throw;
        }
        catch (ApiCredentialsException exception)
        {
            return ApiResult<T>.Failure(new ApiError(null, $"{Display} was not sent: {exception.Message}", null));
        }
        catch (OperationCanceledException)
        {
            return ApiResult<T>.Failure(new ApiError(null, $"{Display} timed out after {httpClient.Timeout.TotalSeconds.ToString("0.#", CultureInfo.InvariantCulture)} s", null));
        }
        catch (HttpRequestException exception) when (exception.StatusCode is null && exception.HttpRequestError is HttpRequestError.ConnectionError or HttpRequestError.NameResolutionError or HttpRequestError.SecureConnectionError or HttpRequestError.ProxyTunnelError)
        {
            return ApiResult<T>.Failure(new ApiError(null, $"{Display} could not reach the API at {httpClient.BaseAddress}: {ApiErrorMessages.Reason(exception)}", null));
        }
        catch (Exception exception) when (exception is HttpRequestException or System.IO.IOException)
        {
            return ApiResult<T>.Failure(new ApiError(null, $"{Display} failed before a complete response arrived: {ApiErrorMessages.Reason(exception)}", null));
        }
    }

    private const int MaxRedirects = 5;

    private static bool SameOrigin(Uri a, Uri b) =>
        string.Equals(a.Scheme, b.Scheme, StringComparison.OrdinalIgnoreCase) && string.Equals(a.IdnHost, b.IdnHost, StringComparison.OrdinalIgnoreCase) && a.Port == b.Port;

    /// <summary>A new message for each attempt (a message, and its content, can be sent once).</summary>
    private HttpRequestMessage CreateMessage(HttpMethod method, Uri target, bool withBody)
    {
        var message = new HttpRequestMessage(method, target) { Content = withBody ? content?.Invoke() : null };
        if (security is not null)
        {
            message.Options.Set(SecurityOption, security);
        }
        foreach (var header in headers)
        {
            if (!message.Headers.TryAddWithoutValidation(header.Key, header.Value))
            {
                message.Content?.Headers.TryAddWithoutValidation(header.Key, header.Value);
            }
        }
        if (cookies.Count > 0)
        {
            message.Headers.TryAddWithoutValidation("Cookie", string.Join("; ", cookies));
        }
        if (accept is not null)
        {
            message.Headers.TryAddWithoutValidation("Accept", accept);
        }
        return message;
    }

    private async Task<ApiResult<T>> ReadSuccessAsync<T>(HttpResponseMessage response, ApiResponseKind responseKind, CancellationToken cancellationToken)
    {
        var status = (int)response.StatusCode;
        switch (responseKind)
        {
            case ApiResponseKind.Binary:
                var bytes = await response.Content.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
                var headers = response.Content.Headers;
                var file = new ApiFile(headers.ContentType?.ToString(), headers.ContentDisposition?.FileNameStar ?? headers.ContentDisposition?.FileName?.Trim('"'), bytes);
                return ApiResult<T>.Success(status, file is T value ? value : default);
            case ApiResponseKind.Text:
                var text = await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false);
                return ApiResult<T>.Success(status, text is T textValue ? textValue : default);
        }
        var json = await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false);
        if (string.IsNullOrWhiteSpace(json))
        {
            return ApiResult<T>.Success(status, default);
        }
        // A string the API sends as text, not as JSON (specs often say JSON, or */*, for plain text).
        if (typeof(T) == typeof(string) && response.Content.Headers.ContentType?.MediaType is { } actual && !actual.Contains("json", StringComparison.OrdinalIgnoreCase) && json.TrimStart() is not ['"', ..])
        {
            return ApiResult<T>.Success(status, json is T text ? text : default);
        }
        try
        {
            return ApiResult<T>.Success(status, JsonSerializer.Deserialize<T>(json, ApiJson.Options));
        }
        catch (JsonException exception)
        {
            var expected = responseKind == ApiResponseKind.None ? "JSON" : $"JSON for {typeof(T).Name}";
            return ApiResult<T>.Failure(new ApiError(status, $"The response to {Display} is not valid {expected}: {exception.Message}", Cut(json, MaxErrorBodyChars)));
        }
    }

    private static async Task<string> ReadTextAsync(HttpResponseMessage response, int maxChars, CancellationToken cancellationToken)
    {
        try
        {
            return Cut(await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false), maxChars);
        }
        catch (HttpRequestException)
        {
            return string.Empty;
        }
    }

    private static string Cut(string text, int maxChars) => text.Length <= maxChars ? text : text[..maxChars];

    private static string MediaTypeOrJson(string mediaType) =>
        MediaTypeHeaderValue.TryParse(mediaType, out var parsed) && parsed.MediaType is { } type && !type.Contains('*') ? type : "application/json";

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
        JsonElement { ValueKind: JsonValueKind.String } element => element.GetString(),
        JsonElement { ValueKind: JsonValueKind.Null or JsonValueKind.Undefined } => null,
        JsonElement element => element.GetRawText(),
        IFormattable formattable => formattable.ToString(null, CultureInfo.InvariantCulture),
        _ => JsonSerializer.Serialize(value, value.GetType(), ApiJson.Options),
    };
}

/// <summary>Turns failed responses into messages a person (or an AI) can act on.</summary>
public static class ApiErrorMessages
{
    private const int MaxMessageChars = 1000;

    /// <summary>The message from the error body where it has one, otherwise what failed.</summary>
    public static string Describe(ApiRequest request, HttpResponseMessage response, string body)
    {
        var status = (int)response.StatusCode;
        var reason = string.IsNullOrWhiteSpace(response.ReasonPhrase) ? $"status {status}" : response.ReasonPhrase;
        var fromBody = FromBody(body, response.Content.Headers.ContentType?.MediaType);
        if (fromBody is not null && string.Equals(fromBody.Trim().TrimEnd('.'), reason, StringComparison.OrdinalIgnoreCase))
        {
            fromBody = null;
        }
        var message = fromBody ?? status switch
        {
            300 => $"{request.Display} has several representations and the API did not choose one",
            304 => $"{request.Display} answered that the {request.Subject} has not changed (not modified)",
            >= 300 and < 400 when response.Headers.Location is { } location => $"{request.Display} was redirected to {location}, which was not followed",
            >= 300 and < 400 => $"{request.Display} answered a redirect ({reason}) without a Location header",
            400 => $"{request.Display} was rejected as invalid",
            401 => $"{request.Display} needs authentication",
            403 => $"{request.Display} is not allowed",
            404 => $"{Capitalize(request.Subject)} not found: {request.Display}",
            409 => $"{request.Display} conflicts with the current state of the {request.Subject}",
            429 => $"Too many requests: {request.Display}",
            >= 500 => $"The API failed on {request.Display}: {reason}",
            _ => $"{request.Display} failed: {reason}",
        };
        var retryAfter = RetryAfterSeconds(response);
        if (retryAfter is double seconds)
        {
            message += $"; retry after {seconds.ToString("0", CultureInfo.InvariantCulture)} seconds";
        }
        return message;
    }

    /// <summary>Why no response arrived, without the stack of wrapped exceptions.</summary>
    public static string Reason(Exception exception)
    {
        var inner = exception;
        while (inner.InnerException is not null)
        {
            inner = inner.InnerException;
        }
        return inner.Message;
    }

    /// <summary>problem+json <c>title</c>/<c>detail</c>, or a <c>message</c>, <c>error</c> or <c>errors</c> field; short plain text.</summary>
    public static string? FromBody(string body, string? mediaType)
    {
        var trimmed = body.Trim();
        if (trimmed.Length == 0)
        {
            return null;
        }
        if (trimmed[0] is '{' or '[')
        {
            try
            {
                using var document = JsonDocument.Parse(trimmed);
                return Limit(FromJson(document.RootElement));
            }
            catch (JsonException)
            {
                return null;
            }
        }
        var isText = mediaType is null || mediaType.StartsWith("text/plain", StringComparison.OrdinalIgnoreCase);
        return isText && trimmed[0] != '<' ? Limit(trimmed) : null;
    }

    private static string? FromJson(JsonElement element)
    {
        if (element.ValueKind == JsonValueKind.String)
        {
            return NonEmpty(element.GetString());
        }
        if (element.ValueKind == JsonValueKind.Array)
        {
            var parts = new List<string>();
            foreach (var item in element.EnumerateArray())
            {
                if (FromJson(item) is string part)
                {
                    parts.Add(part);
                }
            }
            return parts.Count > 0 ? string.Join("; ", parts) : null;
        }
        if (element.ValueKind != JsonValueKind.Object)
        {
            return null;
        }
        var title = Text(element, "title");
        var detail = Text(element, "detail");
        if (detail is not null)
        {
            return title is not null && !detail.Contains(title, StringComparison.OrdinalIgnoreCase) ? $"{title}: {detail}" : detail;
        }
        foreach (var name in new[] { "message", "error_description", "errorMessage", "error", "msg", "description", "errors" })
        {
            if (Property(element, name) is JsonElement value && FromJson(value) is string found)
            {
                return found;
            }
        }
        return title;
    }

    private static JsonElement? Property(JsonElement element, string name)
    {
        foreach (var property in element.EnumerateObject())
        {
            if (string.Equals(property.Name, name, StringComparison.OrdinalIgnoreCase))
            {
                return property.Value;
            }
        }
        return null;
    }

    private static string? Text(JsonElement element, string name) =>
        Property(element, name) is { ValueKind: JsonValueKind.String } value ? NonEmpty(value.GetString()) : null;

    private static string? NonEmpty(string? text) => string.IsNullOrWhiteSpace(text) ? null : text.Trim();

    private static string? Limit(string? text) =>
        text is null ? null : text.Length <= MaxMessageChars ? text : text[..MaxMessageChars] + "…";

    private static string Capitalize(string text) => text.Length == 0 ? "Resource" : char.ToUpperInvariant(text[0]) + text[1..];

    private static double? RetryAfterSeconds(HttpResponseMessage response)
    {
        var retryAfter = response.Headers.RetryAfter;
        if (retryAfter?.Delta is TimeSpan delta)
        {
            return Math.Max(0, delta.TotalSeconds);
        }
        if (retryAfter?.Date is DateTimeOffset date)
        {
            return Math.Max(0, Math.Ceiling((date - DateTimeOffset.UtcNow).TotalSeconds));
        }
        return null;
    }
}
