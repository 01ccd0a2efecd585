#nullable enable

using System;
using System.Collections;
using System.Collections.Generic;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;

namespace __NAMESPACE__;

/// <summary>The request bodies: JSON, forms, multipart, text and bytes.</summary>
public sealed partial class ApiRequest
{
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
                // Part headers in UTF-8, as browsers send file names (.NET would write them as MIME encoded words).
                var multipart = new MultipartFormDataContent { HeaderEncodingSelector = (_, _) => Encoding.UTF8 };
                foreach (var (name, item) in fields)
                {
                    var part = Part(item);
                    var fileName = item is byte[] or ApiFile ? item is ApiFile { FileName: { Length: > 0 } given } ? given : name : null;
                    part.Headers.TryAddWithoutValidation("Content-Disposition", Disposition(name, fileName));
                    multipart.Add(part);
                }
                return multipart;
            };
        }
        return this;
    }

    /// <summary>
    /// A part's Content-Disposition as browsers write it (RFC 7578, and HTML's multipart/form-data encoding): the name
    /// and file name as quoted strings of UTF-8, a double quote, CR and LF in them percent-encoded. No <c>filename*</c>:
    /// RFC 7578 rules it out, and the fetch API's parser (Node's, and the servers built on it) refuses a body with it.
    /// </summary>
    private static string Disposition(string name, string? fileName) =>
        "form-data; name=" + Quoted(name) + (fileName is null ? string.Empty : "; filename=" + Quoted(fileName));

    private static string Quoted(string text) => "\"" + text.Replace("\"", "%22").Replace("\r", "%0D").Replace("\n", "%0A") + "\"";

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


    private static string MediaTypeOrJson(string mediaType) =>
        MediaTypeHeaderValue.TryParse(mediaType, out var parsed) && parsed.MediaType is { } type && !type.Contains('*') ? type : "application/json";
}
