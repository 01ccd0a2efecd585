#nullable enable

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;

namespace __NAMESPACE__;

/// <summary>
/// Sending a request and reading its answer, bounded: redirects followed only within the API's origin, the
/// timeout over the whole exchange (the body included), and every body read with a byte cap as it arrives.
/// </summary>
public sealed partial class ApiRequest
{
    private const int MaxRedirects = 5;

    /// <summary>Sends the request and reads the response. Failures become an <see cref="ApiError"/>; only cancellation throws.</summary>
    public async Task<ApiResult<T>> SendAsync<T>(HttpClient httpClient, ApiResponseKind responseKind, CancellationToken cancellationToken)
    {
        if (problem is not null)
        {
            return Failure<T>(null, $"{Display} was not sent: {problem}");
        }
        if (httpClient.BaseAddress is null)
        {
            return Failure<T>(null, $"{Display} was not sent: no base URL is configured for the API");
        }
        // The path and query are escaped here; Uri must not undo that (it would turn %2E%2E into a "..").
        // A query in the base URL (how some APIs take a token) goes with every request, before the operation's own.
        var baseUrl = httpClient.BaseAddress.GetLeftPart(UriPartial.Path);
        var baseQuery = httpClient.BaseAddress.Query.TrimStart('?');
        var pairs = baseQuery.Length > 0 ? query.Prepend(baseQuery) : query;
        var target = new Uri(
            (baseUrl.EndsWith('/') ? baseUrl : baseUrl + "/") + path + (pairs.Any() ? "?" + string.Join("&", pairs) : string.Empty),
            new UriCreationOptions { DangerousDisablePathAndQueryCanonicalization = true });
        if (resumeToken is not null)
        {
            // A long-running operation a previous answer said was still running: watched again, nothing sent.
            return Unsign(resumeToken) is { } resumed && SameOrigin(resumed.Url, httpClient.BaseAddress)
                ? await FollowAsync(httpClient, resumed, ApiResult<T>.Read(202, default, null, null), cancellationToken).ConfigureAwait(false)
                : Failure<T>(null, $"{Display} was not sent: the operation token is not one this server gave (tokens of a restarted server, or of another replica without the same OPERATION_KEY, are not)");
        }
        if (nextLink is not null)
        {
            // The next page, as the previous answer named it: sent only where it is this operation on the API's origin.
            if (NextPageTarget(httpClient.BaseAddress) is not { } page)
            {
                return Failure<T>(null, $"{Display} was not sent: the nextLink is not a next page of this operation (it must be a URL on the API's origin, {httpClient.BaseAddress.GetLeftPart(UriPartial.Authority)}, with this operation's path)");
            }
            target = page;
        }
        // HttpClient.Timeout stops counting when the headers arrive: this deadline covers the body too.
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        if (httpClient.Timeout != Timeout.InfiniteTimeSpan)
        {
            deadline.CancelAfter(httpClient.Timeout);
        }
        var token = deadline.Token;
        var endsAt = httpClient.Timeout == Timeout.InfiniteTimeSpan ? DateTimeOffset.MaxValue : DateTimeOffset.UtcNow + httpClient.Timeout;
        var method = Method;
        var withBody = true;
        // Cookies the API sets on a redirect (a login, a cookie check), for the redirects of this call only.
        CookieContainer? jar = null;
        try
        {
            // Redirects are followed here, and only within the API's origin: the credentials go nowhere else.
            for (var redirects = 0; ; redirects++)
            {
                using var message = CreateMessage(method, target, withBody, endsAt, jar?.GetCookieHeader(target));
                using var response = await httpClient.SendAsync(message, HttpCompletionOption.ResponseHeadersRead, token).ConfigureAwait(false);
                var status = (int)response.StatusCode;
                if (status is 301 or 302 or 303 or 307 or 308 && response.Headers.Location is { } location)
                {
                    var next = new Uri(target, location);
                    if (!SameOrigin(next, httpClient.BaseAddress))
                    {
                        return Failure<T>(status, $"{Display} was redirected to {next.GetLeftPart(UriPartial.Authority)}, another origin than the API's, and the redirect was not followed");
                    }
                    if (redirects == MaxRedirects)
                    {
                        return Failure<T>(status, $"{Display} was redirected more than {MaxRedirects} times");
                    }
                    // 303, and 301/302 after a POST, continue as a GET without the body (as browsers do).
                    if (status == 303 || (status is 301 or 302 && method == HttpMethod.Post))
                    {
                        method = HttpMethod.Get;
                        withBody = false;
                    }
                    if (response.Headers.TryGetValues("Set-Cookie", out var setCookies))
                    {
                        jar ??= new CookieContainer();
                        foreach (var setCookie in setCookies)
                        {
                            try
                            {
                                jar.SetCookies(target, setCookie);
                            }
                            catch (CookieException)
                            {
                                // A cookie the jar cannot read (or one for another domain or path) is not sent.
                            }
                        }
                    }
                    target = next;
                    continue;
                }
                if (!response.IsSuccessStatusCode)
                {
                    var errorBody = await ReadErrorBodyAsync(response, token).ConfigureAwait(false);
                    return ApiResult<T>.Failure(new ApiError(status, ApiSecrets.Redact(ApiErrorMessages.Describe(this, response, errorBody)), ApiSecrets.Redact(errorBody)));
                }
                var result = await ReadSuccessAsync<T>(response, responseKind, token).ConfigureAwait(false);
                // A long-running operation's first answer: watched until it ends, outside this exchange's deadline.
                return longRunning && WatchOf(response, target, httpClient.BaseAddress, result.Body is JsonElement body ? body : null) is { } watch
                    ? await FollowAsync(httpClient, watch, result, cancellationToken).ConfigureAwait(false)
                    : result;
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            throw;
        }
        catch (ApiCredentialsException exception)
        {
            return Failure<T>(null, $"{Display} was not sent: {exception.Message}");
        }
        catch (OperationCanceledException)
        {
            return Failure<T>(null, $"{Display} timed out after {httpClient.Timeout.TotalSeconds.ToString("0.#", CultureInfo.InvariantCulture)} s");
        }
        catch (HttpRequestException exception) when (exception.StatusCode is null && exception.HttpRequestError is HttpRequestError.ConnectionError or HttpRequestError.NameResolutionError or HttpRequestError.SecureConnectionError or HttpRequestError.ProxyTunnelError)
        {
            return Failure<T>(null, $"{Display} could not reach the API at {httpClient.BaseAddress.GetLeftPart(UriPartial.Path)}: {ApiErrorMessages.Reason(exception)}");
        }
        catch (Exception exception) when (exception is HttpRequestException or IOException)
        {
            return Failure<T>(null, $"{Display} failed before a complete response arrived: {ApiErrorMessages.Reason(exception)}");
        }
    }

    private string? nextLink;
    private string? nextLinkPath;

    /// <summary>
    /// A paged operation's next page (<c>x-ms-pageable</c>): when <paramref name="link"/> is given, the request goes to it
    /// as it is, query and all, instead of the path and query built from the arguments, provided it is on the API's
    /// origin and its path (after the base URL's) matches <paramref name="pathPattern"/>, this operation's own. The same
    /// credentials, limits and redaction apply; anything else is refused and nothing is sent.
    /// </summary>
    public ApiRequest NextLink(string? link, string pathPattern)
    {
        nextLink = string.IsNullOrWhiteSpace(link) ? null : link.Trim();
        nextLinkPath = pathPattern;
        return this;
    }

    /// <summary>The next page's URL, where it is on the API's origin and this operation's path; else null.</summary>
    private Uri? NextPageTarget(Uri baseAddress)
    {
        if (nextLink is null || nextLinkPath is null || !Uri.TryCreate(baseAddress, nextLink, out var page) || !SameOrigin(page, baseAddress) || page.UserInfo.Length > 0 || page.Fragment.Length > 0)
        {
            return null;
        }
        var basePath = baseAddress.AbsolutePath.TrimEnd('/') + "/";
        var pagePath = page.AbsolutePath;
        if (!pagePath.StartsWith(basePath, StringComparison.Ordinal))
        {
            return null;
        }
        var own = pagePath[basePath.Length..];
        return System.Text.RegularExpressions.Regex.IsMatch(own, nextLinkPath, System.Text.RegularExpressions.RegexOptions.CultureInvariant, TimeSpan.FromSeconds(1)) && !own.Split('/').Any(segment => segment is "." or ".." || Uri.UnescapeDataString(segment) is "." or "..")
            // The query as the link has it, byte for byte (a $skiptoken is opaque).
            ? new Uri(page.GetLeftPart(UriPartial.Path) + (nextLink.IndexOf('?') is var at and >= 0 ? nextLink[at..] : string.Empty), new UriCreationOptions { DangerousDisablePathAndQueryCanonicalization = true })
            : null;
    }

    /// <summary>When the call a request belongs to runs out of time (its timeout covers every attempt).</summary>
    public static readonly HttpRequestOptionsKey<DateTimeOffset> DeadlineOption = new("openapi-mcp-dotnet.deadline");

    /// <summary>
    /// How long to wait before sending a request again, where its answer asks for that and the wait ends within the
    /// call's time: a 429 or 503 with a <c>Retry-After</c> (seconds or a date). Null otherwise. (Which methods may be
    /// sent again is the retry policy's choice: the host's sends again only GET, HEAD, PUT, DELETE and the like.)
    /// </summary>
    public static TimeSpan? RetryWait(HttpResponseMessage? response)
    {
        if (response is null || (int)response.StatusCode is not (429 or 503) || response.Headers.RetryAfter is not { } retryAfter)
        {
            return null;
        }
        var now = DateTimeOffset.UtcNow;
        var wait = retryAfter.Delta ?? (retryAfter.Date is { } date ? date - now : null);
        if (wait is not { } delay)
        {
            return null;
        }
        delay = delay < TimeSpan.Zero ? TimeSpan.Zero : delay;
        var endsAt = response.RequestMessage?.Options.TryGetValue(DeadlineOption, out var end) == true ? end : DateTimeOffset.MaxValue;
        return endsAt - now > delay ? delay : null;
    }

    /// <summary>
    /// The API's base URL from a setting: absolute http(s), its path ending in '/' (paths are appended to it), its
    /// query kept for every request, and the values of query parameters that name a credential registered as secrets.
    /// </summary>
    public static bool TryBaseAddress(string? text, out Uri address)
    {
        address = null!;
        if (!Uri.TryCreate(text?.Trim(), UriKind.Absolute, out var uri) || uri.Scheme is not ("http" or "https"))
        {
            return false;
        }
        var builder = new UriBuilder(uri) { Fragment = string.Empty };
        if (!builder.Path.EndsWith('/'))
        {
            builder.Path += "/";
        }
        foreach (var pair in builder.Query.TrimStart('?').Split('&', StringSplitOptions.RemoveEmptyEntries))
        {
            var (name, value) = pair.Split('=', 2) is [var n, var v] ? (Uri.UnescapeDataString(n), v) : (pair, string.Empty);
            if (ApiSecrets.IsCredentialName(name))
            {
                ApiSecrets.Add(value);
                ApiSecrets.Add(Uri.UnescapeDataString(value));
            }
        }
        address = builder.Uri;
        return true;
    }

    private static ApiResult<T> Failure<T>(int? status, string message) => ApiResult<T>.Failure(new ApiError(status, ApiSecrets.Redact(message), null));

    private static bool SameOrigin(Uri a, Uri b) =>
        string.Equals(a.Scheme, b.Scheme, StringComparison.OrdinalIgnoreCase) && string.Equals(a.IdnHost, b.IdnHost, StringComparison.OrdinalIgnoreCase) && a.Port == b.Port;

    /// <summary>A new message for each attempt (a message, and its content, can be sent once).</summary>
    private HttpRequestMessage CreateMessage(HttpMethod method, Uri target, bool withBody, DateTimeOffset endsAt, string? redirectCookies)
    {
        var message = new HttpRequestMessage(method, target) { Content = withBody ? content?.Invoke() : null };
        message.Options.Set(DeadlineOption, endsAt);
        if (security is not null)
        {
            message.Options.Set(SecurityOption, security);
        }
        foreach (var header in headers)
        {
            if (!message.Headers.TryAddWithoutValidation(header.Key, header.Value))
            {
                // A content header (Content-Range, Content-Language…): it goes with the content, empty if there is none.
                message.Content ??= new ByteArrayContent([]);
                message.Content.Headers.TryAddWithoutValidation(header.Key, header.Value);
            }
        }
        IReadOnlyList<string> sent = string.IsNullOrEmpty(redirectCookies) ? cookies : [.. cookies, redirectCookies];
        if (sent.Count > 0)
        {
            message.Headers.TryAddWithoutValidation("Cookie", string.Join("; ", sent));
        }
        if (accept is not null)
        {
            message.Headers.TryAddWithoutValidation("Accept", accept);
        }
        return message;
    }

    private static async Task<string> ReadErrorBodyAsync(HttpResponseMessage response, CancellationToken cancellationToken)
    {
        try
        {
            var (bytes, _) = await ReadCappedAsync(response.Content, ApiLimits.MaxErrorBodyBytes, cancellationToken).ConfigureAwait(false);
            return Encoding.UTF8.GetString(bytes);
        }
        catch (Exception exception) when (exception is HttpRequestException or IOException)
        {
            return string.Empty;
        }
    }

    /// <summary>
    /// At most <paramref name="maxBytes"/> of a body, read as they arrive; reading stops there (the caller then
    /// disposes the response, which closes the connection). Whether the whole body was read.
    /// </summary>
    public static async Task<(byte[] Bytes, bool Whole)> ReadCappedAsync(HttpContent content, int maxBytes, CancellationToken cancellationToken)
    {
        await using var stream = await content.ReadAsStreamAsync(cancellationToken).ConfigureAwait(false);
        var buffer = new byte[Math.Min(maxBytes + 1, 81920)];
        using var kept = new MemoryStream();
        while (kept.Length <= maxBytes)
        {
            var read = await stream.ReadAsync(buffer.AsMemory(0, (int)Math.Min(buffer.Length, maxBytes + 1 - kept.Length)), cancellationToken).ConfigureAwait(false);
            if (read == 0)
            {
                return (kept.ToArray(), true);
            }
            kept.Write(buffer, 0, read);
        }
        var bytes = kept.GetBuffer().AsSpan(0, maxBytes).ToArray();
        return (bytes, false);
    }
}
