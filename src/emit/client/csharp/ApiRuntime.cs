#nullable enable

using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Encodings.Web;
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

    /// <summary>
    /// A successful response too large to read whole (past <see cref="ApiLimits.MaxResponseBytes"/>): the text
    /// of its first <see cref="CutAtBytes"/> bytes, not parsed; <see cref="Value"/> is then null.
    /// </summary>
    public string? CutText { get; private init; }

    /// <summary>Where a response too large to read whole was cut, in bytes.</summary>
    public int CutAtBytes { get; private init; }

    /// <summary>
    /// The answer as the API sent it, read by its Content-Type: a <see cref="JsonElement"/> for JSON (every property,
    /// declared or not; JSON lines as an array), a string for text, an <see cref="ApiFile"/> for anything else; null
    /// when the answer had no body. It is there whether or not the answer fits <typeparamref name="T"/>.
    /// </summary>
    public object? Body { get; private init; }

    /// <summary>
    /// Why a successful answer is not a <typeparamref name="T"/> (JSON of another shape than the spec declares, text,
    /// a file): <see cref="Value"/> is then null and <see cref="Body"/> holds the answer. Null when it fits.
    /// </summary>
    public string? Mismatch { get; private init; }

    /// <summary>The response headers the spec declares for this answer, and <c>Link</c> (pagination) and <c>Location</c>, as received.</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Headers { get; private init; } = [];

    public static ApiResult<T> Success(int statusCode, T? value) => new(true, statusCode, value, null);

    /// <summary>A successful answer as read: the value where it fits <typeparamref name="T"/>, the body as sent either way.</summary>
    internal static ApiResult<T> Read(int statusCode, T? value, object? body, string? mismatch) =>
        new(true, statusCode, value, null) { Body = body, Mismatch = mismatch };

    /// <summary>The same result with the answer's kept headers.</summary>
    internal ApiResult<T> WithHeaders(IReadOnlyList<KeyValuePair<string, string>> headers) =>
        new(IsSuccess, StatusCode, Value, Error) { Body = Body, Mismatch = Mismatch, Headers = headers, CutText = CutText, CutAtBytes = CutAtBytes };

    public static ApiResult<T> Cut(int statusCode, string text, int bytes) => new(true, statusCode, default, null) { CutText = text, CutAtBytes = bytes };

    public static ApiResult<T> Failure(ApiError error) => new(false, error.StatusCode ?? 0, default, error);
}

/// <summary>Why an API call failed.</summary>
/// <param name="StatusCode">The HTTP status, or null when no response arrived.</param>
/// <param name="Message">A human-readable message, taken from the error body where it has one.</param>
/// <param name="Body">The error body as received (its first 64 KB), if any.</param>
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

/// <summary>
/// A file: a binary response (its bytes, media type and the file name from Content-Disposition), or a file a request
/// sends (a multipart part with that name and media type). As JSON it is read from its base64 bytes, or from
/// <c>{"content": "&lt;base64&gt;", "fileName": "a.pdf", "contentType": "application/pdf"}</c>, and written as its base64 bytes.
/// </summary>
[JsonConverter(typeof(ApiFileConverter))]
public sealed record ApiFile(string? ContentType, string? FileName, byte[] Content)
{
    /// <summary>The whole length in bytes, where known (past <see cref="ApiLimits.MaxBinaryBytes"/>, from Content-Length).</summary>
    public long? Length { get; init; } = Content.LongLength;

    /// <summary>False when the response was longer than <see cref="ApiLimits.MaxBinaryBytes"/>: Content holds its start.</summary>
    public bool IsComplete { get; init; } = true;
}

/// <summary>Reads an <see cref="ApiFile"/> from its base64 bytes or from an object with them, its name and media type.</summary>
public sealed class ApiFileConverter : JsonConverter<ApiFile>
{
    public override ApiFile? Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        if (reader.TokenType == JsonTokenType.String)
        {
            return new ApiFile(null, null, Bytes(ref reader));
        }
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            throw new JsonException();
        }
        byte[]? content = null;
        string? fileName = null;
        string? contentType = null;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            var name = reader.GetString();
            reader.Read();
            switch (name)
            {
                case "content":
                    content = Bytes(ref reader);
                    break;
                case "fileName":
                    fileName = reader.TokenType == JsonTokenType.Null ? null : reader.GetString();
                    break;
                case "contentType":
                    contentType = reader.TokenType == JsonTokenType.Null ? null : reader.GetString();
                    break;
                default:
                    reader.Skip();
                    break;
            }
        }
        return content is null ? throw new JsonException() : new ApiFile(contentType, fileName, content);
    }

    public override void Write(Utf8JsonWriter writer, ApiFile value, JsonSerializerOptions options) => writer.WriteBase64StringValue(value.Content);

    // A JsonException without a message: the serializer's own says where (Path: $.…).
    private static byte[] Bytes(ref Utf8JsonReader reader) =>
        reader.TokenType == JsonTokenType.String && ApiBase64.TryDecode(reader.GetString() ?? string.Empty, out var bytes) ? bytes : throw new JsonException();
}

/// <summary>
/// How much of an answer is read: past these, reading stops and the connection is closed, so that a call's
/// memory does not depend on what the API sends. The host sets them from its settings.
/// </summary>
public static class ApiLimits
{
    /// <summary>A JSON or text success body; a longer one is handed on cut, as text.</summary>
    public static int MaxResponseBytes { get; set; } = 1024 * 1024;

    /// <summary>An error body (its message is taken from it).</summary>
    public static int MaxErrorBodyBytes { get; set; } = 64 * 1024;

    /// <summary>A binary body (a tool returns up to this much in base64).</summary>
    public static int MaxBinaryBytes { get; set; } = 64 * 1024;

    /// <summary>How long a call watches a long-running operation before it answers that the operation is still running.</summary>
    public static double LongRunningWaitSeconds { get; set; } = 50;
}

/// <summary>
/// A second place for tokens obtained at run time, which the replicas of a deployment share (the host sets it, where
/// it has such a store). A token is kept under a name and sealed with a key made from <c>secret</c>, the secret that
/// obtained it: the store never holds a token, nor what it was obtained with, in the clear.
/// </summary>
public interface IApiTokenStore
{
    /// <summary>The token kept under <paramref name="name"/> and sealed with <paramref name="secret"/>, if one is there and unexpired; null when none is, or when the store cannot be reached.</summary>
    Task<(string Token, DateTimeOffset Expires)?> GetAsync(string name, string secret, CancellationToken cancellationToken);

    /// <summary>Keeps <paramref name="token"/> until it expires; a store that cannot be reached keeps nothing.</summary>
    Task SetAsync(string name, string secret, (string Token, DateTimeOffset Expires) token, CancellationToken cancellationToken);
}

/// <summary>
/// Every configured secret, and its derived forms (URL-escaped, the Basic header's base64, tokens obtained at run
/// time), taken out of every result, error and log line that passes through <see cref="Redact"/>.
/// </summary>
public static class ApiSecrets
{
    private const int MinLength = 4;
    private static readonly object Gate = new();
    private static string[] secrets = [];

    /// <summary>Registers a secret (a value shorter than 4 characters is too likely to be ordinary text).</summary>
    public static void Add(string? secret)
    {
        if (string.IsNullOrEmpty(secret) || secret.Length < MinLength)
        {
            return;
        }
        lock (Gate)
        {
            // Longest first, so that a secret inside another is not left half-redacted.
            secrets = secrets.Concat(Forms(secret)).Where(f => f.Length >= MinLength).Distinct(StringComparer.Ordinal).OrderByDescending(f => f.Length).ToArray();
        }
    }

    /// <summary>
    /// Registers what a header given in the settings carries, when its name says it is a credential (Authorization,
    /// Proxy-Authorization, Cookie, or a name with key, token, secret, auth, session or signature in it): the whole
    /// value, the part after a scheme (<c>Bearer</c>, <c>token</c>) and each cookie's value.
    /// </summary>
    public static void AddHeader(string name, string value)
    {
        if (!IsCredentialName(name))
        {
            return;
        }
        Add(value);
        if (value.Trim().Split(' ', 2, StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries) is [_, var credential])
        {
            Add(credential);
        }
        foreach (var pair in value.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            Add(pair.Split('=', 2) is [_, var cookie] ? cookie : null);
        }
    }

    /// <summary>Whether a header or query parameter of this name carries a credential.</summary>
    public static bool IsCredentialName(string name)
    {
        var lower = name.ToLowerInvariant();
        return lower is "authorization" or "proxy-authorization" or "cookie"
            || CredentialWords.Any(word => lower.Contains(word, StringComparison.Ordinal));
    }

    private static readonly string[] CredentialWords = ["key", "token", "secret", "auth", "session", "signature", "password"];

    /// <summary>
    /// The secret of the call being served, if any: a shared server's per-user credential, taken from the
    /// request it serves. Redacted like the registered ones, without being kept.
    /// </summary>
    public static Func<string?>? CallSecret { get; set; }

    /// <summary>The text with every registered secret, and the call's own, replaced by <c>[redacted]</c>.</summary>
    public static string Redact(string text)
    {
        var current = secrets;
        if (CallSecret?.Invoke() is { Length: >= MinLength } callSecret)
        {
            // Its Basic form too: a forwarded user:password is sent in base64.
            current = [.. Forms(callSecret).Append(Convert.ToBase64String(Encoding.UTF8.GetBytes(callSecret))).Concat(current).Where(f => f.Length >= MinLength).OrderByDescending(f => f.Length)];
        }
        foreach (var secret in current)
        {
            if (text.Contains(secret, StringComparison.Ordinal))
            {
                text = text.Replace(secret, "[redacted]", StringComparison.Ordinal);
            }
        }
        return text;
    }

    // As written in a URL, and in JSON by either encoder (answers are written with the relaxed one: a quote as \").
    private static string[] Forms(string secret) =>
        [secret, Uri.EscapeDataString(secret), JsonEncodedText.Encode(secret).ToString(), JsonEncodedText.Encode(secret, JavaScriptEncoder.UnsafeRelaxedJsonEscaping).ToString()];
}

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
    /// writing unless they were given as null (a null that clears a value reaches the API; a value not given stays
    /// out), numbers read from strings too, and a response that omits a required property still reads.
    /// Text is written as it is (<c>héllo</c>, not <c>h\u00E9llo</c>): this JSON goes to APIs and to the model,
    /// never into HTML.
    /// </summary>
    public static JsonSerializerOptions Options { get; } = CreateOptions();

    private static JsonSerializerOptions CreateOptions()
    {
        var options = new JsonSerializerOptions
        {
            DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
            Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
            NumberHandling = JsonNumberHandling.AllowReadingFromString,
            TypeInfoResolver = new DefaultJsonTypeInfoResolver { Modifiers = { AllowMissingProperties, KeepGivenNulls } },
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

    /// <summary>The properties of each object read whose JSON gave them as null, by name.</summary>
    private static readonly ConditionalWeakTable<object, HashSet<string>> GivenNulls = new();

    /// <summary>
    /// A property read as JSON null is written as null again: <c>{"isbn": null}</c> in a tool's arguments clears the
    /// value on the API, where leaving <c>isbn</c> out leaves it as it is. Only a null that was given is written.
    /// </summary>
    private static void KeepGivenNulls(JsonTypeInfo typeInfo)
    {
        if (typeInfo.Kind != JsonTypeInfoKind.Object || typeInfo.Type.IsValueType)
        {
            return;
        }
        foreach (var property in typeInfo.Properties)
        {
            if (property.Set is not { } set || (property.PropertyType.IsValueType && Nullable.GetUnderlyingType(property.PropertyType) is null))
            {
                continue;
            }
            var name = property.Name;
            var shouldSerialize = property.ShouldSerialize;
            property.Set = (target, value) =>
            {
                set(target, value);
                if (value is null)
                {
                    GivenNulls.GetOrCreateValue(target).Add(name);
                }
            };
            property.ShouldSerialize = (target, value) => value is null
                ? GivenNulls.TryGetValue(target, out var names) && names.Contains(name)
                : shouldSerialize?.Invoke(target, value) ?? true;
        }
    }

    private static void AllowMissingProperties(JsonTypeInfo typeInfo)
    {
        foreach (var property in typeInfo.Properties)
        {
            property.IsRequired = false;
            if (property.PropertyType == typeof(JsonElement) || property.PropertyType == typeof(JsonElement?))
            {
                // A required any-JSON property the answer left out holds no value at all: it is left out again.
                property.ShouldSerialize = static (_, value) => value is not JsonElement { ValueKind: JsonValueKind.Undefined };
            }
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
