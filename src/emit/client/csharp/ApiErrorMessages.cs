#nullable enable

using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Text.Json;

namespace __NAMESPACE__;

/// <summary>Turns failed responses into messages a person (or an AI) can act on.</summary>
public static class ApiErrorMessages
{
    private const int MaxMessageChars = 1000;
    private const int MaxPlainTextChars = 500;

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
            400 or 422 => $"{request.Display} was rejected as invalid",
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

    /// <summary>
    /// The error's message (problem+json <c>title</c>/<c>detail</c>, or a <c>message</c>, <c>error</c> or <c>errors</c>
    /// field; a JSON string; short plain text) and the reasons the body lists (see <see cref="ReasonLists"/>), bounded.
    /// </summary>
    public static string? FromBody(string body, string? mediaType)
    {
        var trimmed = body.Trim();
        if (trimmed.Length == 0)
        {
            return null;
        }
        // JSON: an object, an array, or a string (Alertmanager's "silence not found").
        if (trimmed[0] is '{' or '[' or '"')
        {
            try
            {
                using var document = JsonDocument.Parse(trimmed);
                return WithReasons(Limit(FromJson(document.RootElement)), document.RootElement);
            }
            catch (JsonException)
            {
                return null;
            }
        }
        // Plain text is a message when it is short: a long body (a page, a dump) says nothing by itself.
        var isText = mediaType is null || mediaType.StartsWith("text/plain", StringComparison.OrdinalIgnoreCase);
        return isText && trimmed[0] != '<' && trimmed.Length <= MaxPlainTextChars ? trimmed : null;
    }

    private static string? FromJson(JsonElement element)
    {
        if (element.ValueKind == JsonValueKind.String)
        {
            var text = NonEmpty(element.GetString());
            return text is not null && Embedded(text) is { } read ? read : text;
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

    /// <summary>
    /// A message that is itself JSON: zod's ZodError carries its issues as the JSON text of their list, which Hono's
    /// validator (and other zod users) answer with. Read as the body it would have been: a list of reasons gives each as
    /// <c>field: why</c>. Null when the text is not JSON or says nothing readable.
    /// </summary>
    private static string? Embedded(string text)
    {
        if (text[0] is not ('[' or '{'))
        {
            return null;
        }
        try
        {
            using var document = JsonDocument.Parse(text);
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Array)
            {
                return WithReasons(Limit(FromJson(root)), root);
            }
            var reasons = new List<(string Text, string Shown)>();
            Listed(root, reasons, 1);
            return reasons.Count == 0 ? null : string.Join("; ", reasons.Select(reason => reason.Shown).Distinct().Take(MaxReasons));
        }
        catch (JsonException)
        {
            return null;
        }
    }

    /// <summary>Most reasons a message lists, and the longest message with its reasons.</summary>
    private const int MaxReasons = 20;
    private const int MaxWithReasons = 2000;

    /// <summary>
    /// Where APIs list why a request failed: problem+json <c>errors</c> (ASP.NET's ValidationProblemDetails, a map of
    /// field to messages) and <c>invalid-params</c> (RFC 9457); <c>details</c> (Joi and celebrate; Google's
    /// <c>error.details</c>, whose BadRequest lists <c>fieldViolations</c>); <c>errors</c> arrays or maps (Rails,
    /// Laravel, Spring, GitHub, JSON:API, Google's <c>error.errors</c>); FastAPI's and Pydantic's <c>detail</c> list;
    /// Stoplight Prism's <c>validation</c>. A body that is itself a map of field to messages (Django REST framework's) is
    /// read as one too.
    /// </summary>
    private static readonly string[] ReasonLists = ["errors", "invalid-params", "invalidParams", "details", "detail", "fieldViolations", "violations", "validationErrors", "fieldErrors", "validation"];

    /// <summary>Keys of a map of field to messages that name no field: the reasons about the whole request (Django's).</summary>
    private static readonly string[] NoField = ["non_field_errors", "__all__"];

    /// <summary>Where a reason names the argument it is about.</summary>
    private static readonly string[] FieldNames = ["field", "name", "path", "param", "parameter", "property", "propertyPath", "pointer", "instancePath", "loc", "location"];

    /// <summary>Where a reason says what is wrong.</summary>
    private static readonly string[] ReasonTexts = ["message", "detail", "description", "defaultMessage", "reason", "msg", "title", "code"];

    /// <summary>The message and the reasons the body lists that it does not already say (each once), bounded.</summary>
    private static string? WithReasons(string? message, JsonElement root)
    {
        var reasons = new List<(string Text, string Shown)>();
        if (message is null && IsFieldMap(root, 0) && !Array.Exists(ReasonLists, name => Property(root, name) is not null))
        {
            FieldMap(root, null, reasons, 1);
        }
        Collect(root, reasons, 0);
        var extra = new List<string>();
        foreach (var (reason, shown) in reasons)
        {
            if (extra.Count < MaxReasons && !extra.Contains(shown) && (message is null || !message.Contains(reason, StringComparison.OrdinalIgnoreCase)))
            {
                extra.Add(shown);
            }
        }
        if (extra.Count == 0)
        {
            return message;
        }
        var text = (message is null ? "" : message.TrimEnd().TrimEnd('.', ':', ';') + ": ") + string.Join("; ", extra);
        return text.Length <= MaxWithReasons ? text : text[..MaxWithReasons] + "…";
    }

    /// <summary>The reasons an error object lists, and those of the error object it wraps (Google's <c>error</c>).</summary>
    private static void Collect(JsonElement element, List<(string Text, string Shown)> reasons, int depth)
    {
        if (element.ValueKind != JsonValueKind.Object || depth > 4)
        {
            return;
        }
        foreach (var name in ReasonLists)
        {
            if (Property(element, name) is JsonElement list)
            {
                Listed(list, reasons, depth + 1);
            }
        }
        if (Property(element, "error") is { ValueKind: JsonValueKind.Object } wrapped)
        {
            Collect(wrapped, reasons, depth + 1);
        }
    }

    /// <summary>A list of reasons (strings or objects), or a map of field to its messages.</summary>
    private static void Listed(JsonElement list, List<(string Text, string Shown)> reasons, int depth)
    {
        if (list.ValueKind == JsonValueKind.Array)
        {
            foreach (var item in list.EnumerateArray())
            {
                Reason(item, null, reasons, depth);
            }
        }
        else if (list.ValueKind == JsonValueKind.Object && Text(list, "message") is null && Text(list, "detail") is null)
        {
            FieldMap(list, null, reasons, depth);
        }
    }

    /// <summary>
    /// A map of field to its messages, nested where the field is an object (<c>author.name</c>) or a list of them
    /// (<c>items[1].qty</c>), as ASP.NET's <c>errors</c> and Django REST framework's whole body are.
    /// </summary>
    private static void FieldMap(JsonElement map, string? prefix, List<(string Text, string Shown)> reasons, int depth)
    {
        foreach (var property in map.EnumerateObject())
        {
            var field = Array.Exists(NoField, name => name == property.Name) ? prefix : prefix is null ? property.Name : $"{prefix}.{property.Name}";
            FieldEntry(property.Value, field, reasons, depth);
        }
    }

    private static void FieldEntry(JsonElement value, string? field, List<(string Text, string Shown)> reasons, int depth)
    {
        if (depth > 8)
        {
            return;
        }
        if (value.ValueKind == JsonValueKind.Array)
        {
            var index = 0;
            foreach (var item in value.EnumerateArray())
            {
                // Objects in a list are the reasons of each item (Django's many=True), unless they are reasons themselves.
                if (item.ValueKind == JsonValueKind.Object && First(item, ReasonTexts) is null)
                {
                    FieldMap(item, $"{field}[{index}]", reasons, depth + 1);
                }
                else
                {
                    Reason(item, field, reasons, depth);
                }
                index++;
            }
        }
        else if (value.ValueKind == JsonValueKind.Object && First(value, ReasonTexts) is null)
        {
            FieldMap(value, field, reasons, depth + 1);
        }
        else
        {
            Reason(value, field, reasons, depth);
        }
    }

    /// <summary>
    /// Whether a whole body is a map of field to messages: every member a list (of messages, or of such maps for the
    /// items of a list) or such a map itself, with a message somewhere (<c>{"isbn": ["…"]}</c>), and none of the
    /// members an error object names its message by.
    /// </summary>
    private static bool IsFieldMap(JsonElement element, int depth)
    {
        if (element.ValueKind != JsonValueKind.Object || depth > 8 || First(element, ReasonTexts) is not null || Property(element, "error") is not null)
        {
            return false;
        }
        var any = false;
        foreach (var property in element.EnumerateObject())
        {
            var value = property.Value;
            if (value.ValueKind == JsonValueKind.Object)
            {
                if (value.EnumerateObject().Any() && !IsFieldMap(value, depth + 1))
                {
                    return false;
                }
                any |= value.EnumerateObject().Any();
                continue;
            }
            if (value.ValueKind != JsonValueKind.Array)
            {
                return false;
            }
            foreach (var item in value.EnumerateArray())
            {
                if (item.ValueKind == JsonValueKind.String)
                {
                    any = true;
                }
                else if (item.ValueKind != JsonValueKind.Object || (item.EnumerateObject().Any() && !IsFieldMap(item, depth + 1)))
                {
                    return false;
                }
                else
                {
                    any |= item.EnumerateObject().Any();
                }
            }
        }
        return any;
    }

    /// <summary>One reason, "field: what is wrong" where it names a field the text does not already name.</summary>
    private static void Reason(JsonElement item, string? field, List<(string Text, string Shown)> reasons, int depth)
    {
        string? text;
        if (item.ValueKind == JsonValueKind.String)
        {
            text = NonEmpty(item.GetString());
        }
        else if (item.ValueKind == JsonValueKind.Object)
        {
            text = First(item, ReasonTexts);
            field = FieldOf(item) ?? field;
            if (text is null)
            {
                // A group of reasons (Google's BadRequest detail with its fieldViolations).
                Collect(item, reasons, depth + 1);
                return;
            }
        }
        else
        {
            return;
        }
        if (text is not null && reasons.Count < 4 * MaxReasons)
        {
            reasons.Add((text, Limit(field is null || Names(text, field) ? text : $"{field}: {text}")!));
        }
    }

    /// <summary>
    /// Whether a reason's text already names its field, as a word spelled the same ("The Name field is required."):
    /// "The ISBN's check digit is wrong." does not name <c>isbn</c> as the API spells it, nor does "Invalid" name <c>id</c>.
    /// </summary>
    private static bool Names(string text, string field)
    {
        for (var at = text.IndexOf(field, StringComparison.Ordinal); at >= 0; at = text.IndexOf(field, at + 1, StringComparison.Ordinal))
        {
            var end = at + field.Length;
            if ((at == 0 || !char.IsLetterOrDigit(text[at - 1])) && (end == text.Length || !char.IsLetterOrDigit(text[end])))
            {
                return true;
            }
        }
        return false;
    }

    /// <summary>The field a reason names: a string, a path of names (<c>["body", "name"]</c>), or JSON:API's <c>source.pointer</c>.</summary>
    private static string? FieldOf(JsonElement item)
    {
        foreach (var name in FieldNames)
        {
            if (Property(item, name) is not JsonElement value)
            {
                continue;
            }
            if (value.ValueKind == JsonValueKind.String && NonEmpty(value.GetString()) is { } text)
            {
                return text;
            }
            if (value.ValueKind == JsonValueKind.Array)
            {
                // A path of names and indexes (FastAPI's ["body", "tags", 1]): body.tags[1].
                var path = new System.Text.StringBuilder();
                foreach (var part in value.EnumerateArray())
                {
                    if (part.ValueKind == JsonValueKind.Number)
                    {
                        path.Append('[').Append(part.GetRawText()).Append(']');
                    }
                    else
                    {
                        path.Append(path.Length > 0 ? "." : "").Append(part.ValueKind == JsonValueKind.String ? part.GetString() : part.GetRawText());
                    }
                }
                return path.Length > 0 ? path.ToString() : null;
            }
        }
        return Property(item, "source") is { ValueKind: JsonValueKind.Object } source ? First(source, ["pointer", "parameter", "header"]) : null;
    }

    private static string? First(JsonElement element, string[] names)
    {
        foreach (var name in names)
        {
            if (Text(element, name) is { } text)
            {
                return text;
            }
        }
        return null;
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
