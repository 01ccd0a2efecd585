#nullable enable

using System;
using System.Collections.Generic;
using System.Linq;
using System.Net.Http;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;

namespace __NAMESPACE__;

/// <summary>
/// Reading a successful answer by what the API sent (its Content-Type), not only by what the spec declares: real
/// servers do not always fit their own specs. JSON is read as JSON, into the declared type where it fits and as
/// sent where it does not; JSON lines as an array; text as text; anything else as a file. Every body is read with
/// a byte cap as it arrives, after decompression, so a compressed answer is bounded by what it expands to.
/// </summary>
public sealed partial class ApiRequest
{
    private string[] keptHeaders = ["Link", "Location"];

    /// <summary>
    /// Response headers the spec declares for the answer, handed on with it. <c>Link</c> (pagination) and <c>Location</c>
    /// (what a 201 created, where a 202's work is followed) always are: often the only way to find what came of a call.
    /// </summary>
    public ApiRequest KeepHeaders(params string[] names)
    {
        keptHeaders = [.. keptHeaders, .. names];
        return this;
    }

    private async Task<ApiResult<T>> ReadSuccessAsync<T>(HttpResponseMessage response, ApiResponseKind responseKind, CancellationToken cancellationToken)
    {
        var mediaType = response.Content.Headers.ContentType?.MediaType;
        var form = FormOf(mediaType);
        // A file the spec declares stays one where the API sends the very media type it declares (a file typed JSON),
        // unless that type is text (a YAML document, a CSV file): the text itself, as long as it is UTF-8 or says its charset.
        if (responseKind == ApiResponseKind.Binary && (form == BodyForm.Unknown || (form != BodyForm.Text && string.Equals(mediaType, accept, StringComparison.OrdinalIgnoreCase))))
        {
            form = BodyForm.Binary;
        }
        return (await ReadAsync<T>(response, form, cancellationToken).ConfigureAwait(false)).WithHeaders(Kept(response));
    }

    /// <summary>The body, read as <paramref name="form"/> says, with a byte cap.</summary>
    private async Task<ApiResult<T>> ReadAsync<T>(HttpResponseMessage response, BodyForm form, CancellationToken cancellationToken)
    {
        var status = (int)response.StatusCode;
        if (form == BodyForm.Binary)
        {
            var (bytes, whole) = await ReadCappedAsync(response.Content, ApiLimits.MaxBinaryBytes, cancellationToken).ConfigureAwait(false);
            return FileResult<T>(status, response, bytes, whole);
        }
        var (body, complete) = await ReadCappedAsync(response.Content, ApiLimits.MaxResponseBytes, cancellationToken).ConfigureAwait(false);
        if (!complete)
        {
            // Not read further: what came is handed on as text, and says where it was cut.
            return ApiResult<T>.Cut(status, ApiSecrets.Redact(Encoding.UTF8.GetString(body)), body.Length);
        }
        if (body.AsSpan().Trim(" \t\r\n"u8).IsEmpty)
        {
            return ApiResult<T>.Read(status, default, null, null);
        }
        var encoding = CharsetOf(response);
        if (encoding is null && !System.Text.Unicode.Utf8.IsValid(body))
        {
            // Not text, whatever it was called: a file, as long as a file may be.
            var whole = body.Length <= ApiLimits.MaxBinaryBytes;
            return FileResult<T>(status, response, whole ? body : body[..ApiLimits.MaxBinaryBytes], whole);
        }
        var text = (encoding ?? Encoding.UTF8).GetString(body).TrimStart('\uFEFF');
        return form switch
        {
            BodyForm.Text => TextResult<T>(status, text, "the API answered with text"),
            BodyForm.JsonLines => JsonValues(text.Replace('\u001E', '\n'), single: true) is { } lines
                ? JsonResult<T>(status, lines)
                : TextResult<T>(status, text, "the API said JSON lines but sent text"),
            // JSON, or nothing said: JSON if it parses (one value, or several one after the other), else text.
            _ => (ParseJson(text) ?? JsonValues(text)) is { } json
                ? JsonResult<T>(status, json)
                : TextResult<T>(status, text, form == BodyForm.Json ? "the API said JSON but sent text" : "the API answered with text"),
        };
    }

    /// <summary>The one JSON value the text is, or null.</summary>
    private static JsonElement? ParseJson(string text)
    {
        try
        {
            using var document = JsonDocument.Parse(text);
            return document.RootElement.Clone();
        }
        catch (JsonException)
        {
            return null;
        }
    }

    /// <summary>A JSON answer: into <typeparamref name="T"/> where it fits; as sent (a <see cref="JsonElement"/>) either way.</summary>
    private ApiResult<T> JsonResult<T>(int status, JsonElement element)
    {
        if (typeof(T) == typeof(ApiFile) || (typeof(T) == typeof(string) && element.ValueKind != JsonValueKind.String))
        {
            return ApiResult<T>.Read(status, default, element, $"the answer to {Display} is JSON, not {(typeof(T) == typeof(string) ? "text" : "a file")}");
        }
        try
        {
            return ApiResult<T>.Read(status, element.Deserialize<T>(ApiJson.Options), element, null);
        }
        catch (Exception exception) when (exception is JsonException or NotSupportedException or InvalidOperationException)
        {
            var expected = Nullable.GetUnderlyingType(typeof(T))?.Name ?? typeof(T).Name;
            return ApiResult<T>.Read(status, default, element, $"the answer to {Display} does not fit {expected}: {exception.Message}");
        }
    }

    /// <summary>
    /// The JSON values of a text that holds several one after the other (a stream, as gRPC gateways and event endpoints
    /// send; with <paramref name="single"/>, JSON lines: one or more), as an array; null when it holds anything else.
    /// </summary>
    private static JsonElement? JsonValues(string text, bool single = false)
    {
        var reader = new Utf8JsonReader(Encoding.UTF8.GetBytes(text), new JsonReaderOptions { AllowMultipleValues = true });
        var values = new List<JsonElement>();
        try
        {
            while (reader.Read())
            {
                values.Add(JsonElement.ParseValue(ref reader));
            }
        }
        catch (JsonException)
        {
            return null;
        }
        return values.Count > 1 || (single && values.Count == 1) ? JsonSerializer.SerializeToElement(values, ApiJson.Options) : null;
    }

    private static ApiResult<T> TextResult<T>(int status, string text, string mismatch) =>
        text is T value
            ? ApiResult<T>.Read(status, value, text, null)
            : ApiResult<T>.Read(status, default, text, mismatch);

    private static ApiResult<T> FileResult<T>(int status, HttpResponseMessage response, byte[] bytes, bool whole)
    {
        var content = response.Content.Headers;
        var file = new ApiFile(content.ContentType?.ToString(), content.ContentDisposition?.FileNameStar ?? content.ContentDisposition?.FileName?.Trim('"'), bytes)
        {
            Length = whole ? bytes.Length : content.ContentLength,
            IsComplete = whole,
        };
        return file is T value
            ? ApiResult<T>.Read(status, value, file, null)
            : ApiResult<T>.Read(status, default, file, "the API answered with a file");
    }

    /// <summary>The kept headers of the answer, each value redacted, in the order the spec names them.</summary>
    private IReadOnlyList<KeyValuePair<string, string>> Kept(HttpResponseMessage response)
    {
        var kept = new List<KeyValuePair<string, string>>();
        foreach (var name in keptHeaders.Distinct(StringComparer.OrdinalIgnoreCase))
        {
            if (response.Headers.TryGetValues(name, out var values) || response.Content.Headers.TryGetValues(name, out values))
            {
                kept.Add(new(name, ApiSecrets.Redact(string.Join(", ", values))));
            }
        }
        return kept;
    }

    /// <summary>The text encoding the answer names, where it is another than UTF-8 and .NET has it (Latin-1, UTF-16…).</summary>
    private static Encoding? CharsetOf(HttpResponseMessage response)
    {
        var charset = response.Content.Headers.ContentType?.CharSet?.Trim('"', ' ');
        if (string.IsNullOrEmpty(charset) || charset.Equals("utf-8", StringComparison.OrdinalIgnoreCase) || charset.Equals("utf8", StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }
        try
        {
            return Encoding.GetEncoding(charset);
        }
        catch (ArgumentException)
        {
            return null;
        }
    }

    private enum BodyForm { Unknown, Json, JsonLines, Text, Binary }

    /// <summary>How a body of this media type is read.</summary>
    private static BodyForm FormOf(string? mediaType)
    {
        var type = mediaType?.Trim().ToLowerInvariant() ?? string.Empty;
        return type switch
        {
            "" => BodyForm.Unknown,
            "application/x-ndjson" or "application/ndjson" or "application/jsonl" or "application/x-jsonlines" or "application/jsonlines" or "application/json-seq" => BodyForm.JsonLines,
            _ when type.EndsWith("+json-seq", StringComparison.Ordinal) => BodyForm.JsonLines,
            _ when type.EndsWith("+json", StringComparison.Ordinal) || type.EndsWith("/json", StringComparison.Ordinal) => BodyForm.Json,
            _ when type.StartsWith("text/", StringComparison.Ordinal) || type.EndsWith("/xml", StringComparison.Ordinal) || type.EndsWith("+xml", StringComparison.Ordinal) => BodyForm.Text,
            "application/javascript" or "application/ecmascript" or "application/x-www-form-urlencoded" or "application/yaml" or "application/x-yaml" or "application/graphql" or "application/sql" => BodyForm.Text,
            _ => BodyForm.Binary,
        };
    }
}
