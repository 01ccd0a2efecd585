#nullable enable

using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;

namespace __NAMESPACE__;

/// <summary>
/// Long-running operations (<c>x-ms-long-running-operation</c>), as Microsoft's REST API guidelines and Azure's
/// async-operation contract say: after the first answer, the operation is watched until it ends, at the URL its
/// answer names (<c>Azure-AsyncOperation</c>, then <c>Operation-Location</c>, then <c>Location</c>; else the resource
/// itself, by its <c>provisioningState</c>), waiting what <c>Retry-After</c> asks. Every URL watched must be on the API's
/// origin: it gets the operation's credentials, limits and redaction, and nothing is sent anywhere else. The final
/// answer follows <c>final-state-via</c>. Past <see cref="ApiLimits.LongRunningWaitSeconds"/> the answer says the
/// operation is still running, with a token that lets the same operation be watched again (signed, so that it can
/// only name what this server handed out).
/// </summary>
public sealed partial class ApiRequest
{
    private bool longRunning;
    private string? finalStateVia;
    private string? resumeToken;

    /// <summary>Reports how a watched operation stands (the tool forwards it as MCP progress notifications).</summary>
    public static readonly AsyncLocal<Action<string>?> Progress = new();

    /// <summary>
    /// The operation runs long: its answer is watched until it ends. With <paramref name="resume"/> (a token a previous
    /// answer gave), nothing is sent: the operation that token names is watched again.
    /// </summary>
    public ApiRequest LongRunning(string? finalStateVia, string? resume)
    {
        longRunning = true;
        this.finalStateVia = finalStateVia;
        resumeToken = string.IsNullOrWhiteSpace(resume) ? null : resume.Trim();
        return this;
    }

    /// <summary>What is watched, and how: a status resource, a Location to poll, or the resource's own state.</summary>
    private sealed record Watch(Uri Url, string Kind, Uri Original, string Method, Uri? Location);

    private const string StatusKind = "status";
    private const string LocationKind = "location";
    private const string ResourceKind = "resource";

    /// <summary>The watch a first answer asks for, or null when it has ended already (or says nothing to watch).</summary>
    private Watch? WatchOf(HttpResponseMessage response, Uri target, Uri baseAddress, JsonElement? body)
    {
        Uri? Header(string name) => response.Headers.TryGetValues(name, out var values) && Uri.TryCreate(target, string.Join("", values).Trim(), out var url) ? url : null;
        var location = response.Headers.Location is { } raw ? new Uri(target, raw) : null;
        var status = Header("Azure-AsyncOperation") ?? Header("Operation-Location");
        var watch = status is not null ? new Watch(status, StatusKind, target, Method.Method, location)
            : location is not null && (int)response.StatusCode == 202 ? new Watch(location, LocationKind, target, Method.Method, location)
            : (int)response.StatusCode is 200 or 201 && Method != HttpMethod.Post && ProvisioningState(body) is { } state && !Terminal(state) ? new Watch(target, ResourceKind, target, Method.Method, location)
            : null;
        return watch is not null && SameOrigin(watch.Url, baseAddress) ? watch : null;
    }

    /// <summary>Watches the operation until it ends, fails, or the wait runs out; the answer as the operation's final state says.</summary>
    private async Task<ApiResult<T>> FollowAsync<T>(HttpClient httpClient, Watch watch, ApiResult<T> first, CancellationToken cancellationToken)
    {
        var ends = DateTimeOffset.UtcNow + TimeSpan.FromSeconds(ApiLimits.LongRunningWaitSeconds);
        var wait = TimeSpan.FromSeconds(1);
        var state = "InProgress";
        for (var polls = 1; ; polls++)
        {
            if (DateTimeOffset.UtcNow + wait > ends)
            {
                return Pending<T>(watch, state);
            }
            await Task.Delay(wait, cancellationToken).ConfigureAwait(false);
            var (status, body, retryAfter, moved) = await GetAsync(httpClient, watch.Url, cancellationToken).ConfigureAwait(false);
            if (status is not { } answered)
            {
                return Failure<T>(null, $"{Display} started, but watching it failed: {ErrorOf(body) ?? "no answer"}");
            }
            if (answered >= 400)
            {
                // A Location watched answers the operation's failure itself; a status resource that cannot be read is no answer.
                return Failure<T>(answered, watch.Kind == LocationKind ? $"{Display} failed: {ErrorOf(body) ?? "the operation did not succeed"}" : $"{Display} started, but watching it failed (HTTP {answered}): {ErrorOf(body) ?? "no reason given"}");
            }
            wait = retryAfter ?? TimeSpan.FromSeconds(Math.Min(10, polls + 1));
            if (watch.Kind == LocationKind)
            {
                if (answered == 202)
                {
                    Progress.Value?.Invoke($"{Display}: still running (HTTP 202)");
                    if (moved is not null && SameOrigin(moved, httpClient.BaseAddress!))
                    {
                        watch = watch with { Url = moved };
                    }
                    continue;
                }
                return await FinalAsync(httpClient, watch, answered, body, first, cancellationToken).ConfigureAwait(false);
            }
            state = (watch.Kind == StatusKind ? StatusOf(body) : ProvisioningState(body)) ?? state;
            Progress.Value?.Invoke($"{Display}: {state}");
            if (!Terminal(state))
            {
                continue;
            }
            if (!string.Equals(state, "Succeeded", StringComparison.OrdinalIgnoreCase))
            {
                return Failure<T>(answered, $"{Display} ended {state}: {ErrorOf(body) ?? "the API gave no reason"}");
            }
            return await FinalAsync(httpClient, watch, answered, body, first, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// The final answer (<c>final-state-via</c>): a PUT or PATCH's resource (its original URL), else where the
    /// operation's Location says, else the status or last answer itself.
    /// </summary>
    private async Task<ApiResult<T>> FinalAsync<T>(HttpClient httpClient, Watch watch, int status, JsonElement? body, ApiResult<T> first, CancellationToken cancellationToken)
    {
        Uri? from = null;
        if ((watch.Method is "PUT" or "PATCH" && finalStateVia is not ("location" or "operation-location")) || finalStateVia == "original-uri")
        {
            from = watch.Kind == ResourceKind ? null : watch.Original;
        }
        else if (watch.Kind == StatusKind && watch.Location is not null && finalStateVia is null or "location" && watch.Method != "DELETE")
        {
            from = watch.Location;
        }
        if (from is not null && SameOrigin(from, httpClient.BaseAddress!))
        {
            var (finalStatus, finalBody, _, _) = await GetAsync(httpClient, from, cancellationToken).ConfigureAwait(false);
            if (finalStatus is >= 200 and < 300)
            {
                return Ended<T>(finalStatus.Value, finalBody);
            }
        }
        return Ended<T>(status, body ?? (first.Body is JsonElement initial ? initial : null));
    }

    private ApiResult<T> Ended<T>(int status, JsonElement? body)
    {
        if (body is not { } element)
        {
            return ApiResult<T>.Read(status, default, null, null);
        }
        try
        {
            return ApiResult<T>.Read(status, element.Deserialize<T>(ApiJson.Options), element, null);
        }
        catch (Exception exception) when (exception is JsonException or NotSupportedException or InvalidOperationException)
        {
            return ApiResult<T>.Read(status, default, element, $"the answer to {Display} does not fit its type: {exception.Message}");
        }
    }

    /// <summary>Still running when the wait ran out: how it stands, and the token that watches it again.</summary>
    private ApiResult<T> Pending<T>(Watch watch, string state)
    {
        var token = Sign(watch);
        var answer = JsonSerializer.SerializeToElement(new Dictionary<string, object>
        {
            ["status"] = state,
            ["running"] = true,
            ["operation"] = token,
            ["note"] = $"{Display} is still running after {ApiLimits.LongRunningWaitSeconds.ToString("0", CultureInfo.InvariantCulture)} s. To wait for it again, call this tool again with the same arguments and operation set to the token above; nothing is sent again.",
        }, ApiJson.Options);
        return ApiResult<T>.Read(202, default, answer, null);
    }

    /// <summary>A GET of a watched URL (on the API's origin), with the operation's credentials: status, JSON body, Retry-After and Location.</summary>
    private async Task<(int? Status, JsonElement? Body, TimeSpan? RetryAfter, Uri? Location)> GetAsync(HttpClient httpClient, Uri url, CancellationToken cancellationToken)
    {
        if (!SameOrigin(url, httpClient.BaseAddress!))
        {
            return (null, null, null, null);
        }
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(httpClient.Timeout);
        using var message = new HttpRequestMessage(HttpMethod.Get, url);
        message.Options.Set(DeadlineOption, DateTimeOffset.UtcNow + httpClient.Timeout);
        if (security is not null)
        {
            message.Options.Set(SecurityOption, security);
        }
        message.Headers.TryAddWithoutValidation("Accept", "application/json");
        try
        {
            using var response = await httpClient.SendAsync(message, HttpCompletionOption.ResponseHeadersRead, deadline.Token).ConfigureAwait(false);
            var (bytes, complete) = await ReadCappedAsync(response.Content, ApiLimits.MaxResponseBytes, deadline.Token).ConfigureAwait(false);
            JsonElement? body = null;
            if (complete && bytes.Length > 0)
            {
                try
                {
                    using var document = JsonDocument.Parse(bytes);
                    body = document.RootElement.Clone();
                }
                catch (JsonException)
                {
                    body = JsonSerializer.SerializeToElement(ApiSecrets.Redact(Encoding.UTF8.GetString(bytes)));
                }
            }
            return ((int)response.StatusCode, body, RetryAfter(response), response.Headers.Location is { } location ? new Uri(url, location) : null);
        }
        catch (Exception exception) when (exception is HttpRequestException or ApiCredentialsException || (exception is OperationCanceledException && !cancellationToken.IsCancellationRequested))
        {
            return (null, JsonSerializer.SerializeToElement(ApiSecrets.Redact(ApiErrorMessages.Reason(exception))), null, null);
        }
    }

    private static TimeSpan? RetryAfter(HttpResponseMessage response)
    {
        var retry = response.Headers.RetryAfter;
        var wait = retry?.Delta ?? (retry?.Date is { } date ? date - DateTimeOffset.UtcNow : null);
        return wait is { } w ? TimeSpan.FromSeconds(Math.Clamp(w.TotalSeconds, 0.1, 60)) : null;
    }

    private static bool Terminal(string state) => state.Equals("Succeeded", StringComparison.OrdinalIgnoreCase) || state.Equals("Failed", StringComparison.OrdinalIgnoreCase) || state.Equals("Canceled", StringComparison.OrdinalIgnoreCase) || state.Equals("Cancelled", StringComparison.OrdinalIgnoreCase);

    private static string? StatusOf(JsonElement? body) => body is { ValueKind: JsonValueKind.Object } b && b.TryGetProperty("status", out var s) && s.ValueKind == JsonValueKind.String ? s.GetString() : null;

    private static string? ProvisioningState(JsonElement? body)
    {
        if (body is not { ValueKind: JsonValueKind.Object } b)
        {
            return null;
        }
        var holder = b.TryGetProperty("properties", out var properties) && properties.ValueKind == JsonValueKind.Object ? properties : b;
        return holder.TryGetProperty("provisioningState", out var state) && state.ValueKind == JsonValueKind.String ? state.GetString() : null;
    }

    private static string? ErrorOf(JsonElement? body) => body is { } b ? ApiErrorMessages.FromBody(b.GetRawText(), "application/json") : null;

    /// <summary>
    /// The keys of the tokens of operations still running: the first signs them, each checks them. One per process
    /// unless the host sets them (for replicas: the setting, or the key the replicas share).
    /// </summary>
    public static IReadOnlyList<byte[]> OperationKeys { get; set; } = [RandomNumberGenerator.GetBytes(32)];

    private string Sign(Watch watch)
    {
        var payload = JsonSerializer.SerializeToUtf8Bytes(new[] { watch.Url.ToString(), watch.Kind, watch.Original.ToString(), watch.Method, watch.Location?.ToString() ?? "", Display });
        return Base64Url(payload) + "." + Base64Url(HMACSHA256.HashData(OperationKeys[0], payload));
    }

    /// <summary>The watch a token names, where this server signed it; else null.</summary>
    private static Watch? Unsign(string token)
    {
        var parts = token.Split('.');
        if (parts.Length != 2 || FromBase64Url(parts[0]) is not { } payload || FromBase64Url(parts[1]) is not { } signature
            || !OperationKeys.Any(key => CryptographicOperations.FixedTimeEquals(signature, HMACSHA256.HashData(key, payload))))
        {
            return null;
        }
        var fields = JsonSerializer.Deserialize<string[]>(payload);
        return fields is { Length: 6 } && Uri.TryCreate(fields[0], UriKind.Absolute, out var url) && Uri.TryCreate(fields[2], UriKind.Absolute, out var original)
            ? new Watch(url, fields[1], original, fields[3], fields[4].Length > 0 && Uri.TryCreate(fields[4], UriKind.Absolute, out var location) ? location : null)
            : null;
    }

    private static string Base64Url(byte[] bytes) => Convert.ToBase64String(bytes).TrimEnd('=').Replace('+', '-').Replace('/', '_');

    private static byte[]? FromBase64Url(string text)
    {
        var padded = text.Replace('-', '+').Replace('_', '/');
        padded += new string('=', (4 - padded.Length % 4) % 4);
        try
        {
            return Convert.FromBase64String(padded);
        }
        catch (FormatException)
        {
            return null;
        }
    }
}
