#nullable enable

using System;
using System.Collections.Generic;
using System.Globalization;
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

    /// <summary>problem+json <c>title</c>/<c>detail</c>, or a <c>message</c>, <c>error</c> or <c>errors</c> field; a JSON string; short plain text.</summary>
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
                return Limit(FromJson(document.RootElement));
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
