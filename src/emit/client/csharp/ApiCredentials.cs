#nullable enable

using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;

namespace __NAMESPACE__;

/// <summary>How a security scheme sends its credential.</summary>
public enum ApiCredentialKind
{
    /// <summary>An API key in a header.</summary>
    ApiKeyHeader,
    /// <summary>An API key in the query string.</summary>
    ApiKeyQuery,
    /// <summary>An API key in a cookie.</summary>
    ApiKeyCookie,
    /// <summary><c>Authorization: Bearer</c> with a configured token.</summary>
    Bearer,
    /// <summary><c>Authorization: Basic</c> with a user name and password.</summary>
    Basic,
    /// <summary>OAuth2 client credentials: a token fetched from the token URL, cached and refreshed.</summary>
    OAuth2ClientCredentials,
    /// <summary>
    /// <c>Authorization: Bearer</c> with a token the host obtains (<see cref="ApiCredential.TokenSource"/>: Azure.Identity's
    /// DefaultAzureCredential, say), cached until a few minutes before it expires; a configured token wins.
    /// </summary>
    Token,
}

/// <summary>One security scheme of the API and the credential configured for it.</summary>
public sealed class ApiCredential
{
    /// <summary>The scheme's name in the OpenAPI document.</summary>
    public required string Scheme { get; init; }

    public required ApiCredentialKind Kind { get; init; }

    /// <summary>Header, query or cookie name of an API key.</summary>
    public string? ParameterName { get; init; }

    /// <summary>The API key or bearer token; for OAuth2 client credentials, a token obtained elsewhere (used as it is).</summary>
    public string? Value { get; init; }

    public string? Username { get; init; }

    public string? Password { get; init; }

    public string? ClientId { get; init; }

    public string? ClientSecret { get; init; }

    /// <summary>OAuth2 token endpoint; relative URLs are resolved against the API's base URL.</summary>
    public string? TokenUrl { get; init; }

    /// <summary>Space-separated OAuth2 scopes to ask for, if any.</summary>
    public string? Scopes { get; init; }

    /// <summary>For <see cref="ApiCredentialKind.Token"/>: where tokens come from, and when each expires.</summary>
    public Func<CancellationToken, ValueTask<(string Token, DateTimeOffset ExpiresOn)>>? TokenSource { get; init; }

    /// <summary>The settings that hold this credential, for messages (never their values).</summary>
    public required string Settings { get; init; }

    /// <summary>True when every value the scheme needs is set.</summary>
    public bool IsConfigured => Kind switch
    {
        ApiCredentialKind.Basic => !string.IsNullOrEmpty(Username) && Password is not null,
        ApiCredentialKind.OAuth2ClientCredentials => !string.IsNullOrEmpty(Value) || (!string.IsNullOrEmpty(ClientId) && !string.IsNullOrEmpty(ClientSecret) && !string.IsNullOrEmpty(TokenUrl)),
        ApiCredentialKind.Token => !string.IsNullOrEmpty(Value) || TokenSource is not null,
        _ => !string.IsNullOrEmpty(Value),
    };
}

/// <summary>
/// Adds to each request the credentials its operation requires (see <see cref="ApiRequest.Security"/>);
/// a request none of whose alternatives is configured is not sent. Register one instance per app and
/// add <see cref="CreateHandler"/> to the HttpClient pipeline.
/// </summary>
public sealed class ApiCredentials
{
    private static readonly TimeSpan RefreshMargin = TimeSpan.FromSeconds(60);
    private readonly Dictionary<string, ApiCredential> bySchema;
    private readonly ConcurrentDictionary<string, (string Token, DateTimeOffset Expires)> tokens = new();
    private readonly SemaphoreSlim tokenLock = new(1, 1);
    private readonly HttpClient tokenClient;

    public ApiCredentials(IEnumerable<ApiCredential> credentials, HttpMessageHandler? tokenHandler = null)
    {
        bySchema = credentials.ToDictionary(c => c.Scheme, StringComparer.Ordinal);
        // Secrets never reach a result, an error or a log: nor the Basic header they make.
        foreach (var credential in bySchema.Values)
        {
            ApiSecrets.Add(credential.Value);
            ApiSecrets.Add(credential.Password);
            ApiSecrets.Add(credential.ClientSecret);
            if (credential.Kind == ApiCredentialKind.Basic && credential.IsConfigured)
            {
                ApiSecrets.Add(Convert.ToBase64String(Encoding.UTF8.GetBytes($"{credential.Username}:{credential.Password}")));
            }
        }
        tokenClient = new HttpClient(tokenHandler ?? new SocketsHttpHandler(), disposeHandler: tokenHandler is null) { Timeout = TimeSpan.FromSeconds(30) };
    }

    /// <summary>
    /// A shared server's per-user credential: when set, each request carries the value this returns (read from
    /// the MCP request being served, or obtained for its caller) as its operation's credential, instead of the
    /// configured values: the API key or token itself, or <c>user:password</c> for Basic.
    /// </summary>
    public Func<CancellationToken, ValueTask<string?>>? Forwarded { get; init; }

    /// <summary>Where <see cref="Forwarded"/> reads from, for messages: the incoming request's header.</summary>
    public string ForwardedFrom { get; init; } = "the request";

    /// <summary>
    /// Where set (the replicas of a deployment share one), OAuth2 client-credentials tokens are also kept there, sealed
    /// with their client's secret: a replica takes the token another fetched instead of fetching its own.
    /// </summary>
    public IApiTokenStore? TokenStore { get; init; }

    /// <summary>A new handler for an HttpClient pipeline; it shares this instance's token cache.</summary>
    public DelegatingHandler CreateHandler() => new Handler(this);

    private sealed class Handler(ApiCredentials owner) : DelegatingHandler
    {
        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            if (!request.Options.TryGetValue(ApiRequest.SecurityOption, out var alternatives) || alternatives.Length == 0)
            {
                return await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
            }
            var chosen = (owner.Forwarded is { } forwarded ? owner.ChooseForwarded(alternatives, await forwarded(cancellationToken).ConfigureAwait(false)) : owner.Choose(alternatives))
                ?? throw new ApiCredentialsException(owner.Describe(alternatives));
            await owner.ApplyAsync(request, chosen, refresh: false, cancellationToken).ConfigureAwait(false);
            var response = await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
            if (response.StatusCode != HttpStatusCode.Unauthorized || !chosen.Any(c => c.Kind is ApiCredentialKind.OAuth2ClientCredentials or ApiCredentialKind.Token && string.IsNullOrEmpty(c.Value)))
            {
                return response;
            }
            response.Dispose();
            using var retry = await CloneAsync(request, cancellationToken).ConfigureAwait(false);
            await owner.ApplyAsync(retry, chosen, refresh: true, cancellationToken).ConfigureAwait(false);
            return await base.SendAsync(retry, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// The first alternative whose schemes are all configured; else, when the operation allows it, none
    /// (an empty list); else null.
    /// </summary>
    private IReadOnlyList<ApiCredential>? Choose(string[] alternatives)
    {
        var anonymous = false;
        foreach (var alternative in alternatives)
        {
            var names = alternative.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (names.Length == 0)
            {
                anonymous = true;
                continue;
            }
            var found = names.Select(name => bySchema.GetValueOrDefault(name)).ToList();
            if (found.All(c => c is { IsConfigured: true }))
            {
                return found!;
            }
        }
        return anonymous ? Array.Empty<ApiCredential>() : null;
    }

    /// <summary>The first alternative whose schemes are all known, each carrying the forwarded value.</summary>
    private IReadOnlyList<ApiCredential>? ChooseForwarded(string[] alternatives, string? value)
    {
        if (alternatives.Any(alternative => alternative.Trim().Length == 0) && string.IsNullOrEmpty(value))
        {
            return Array.Empty<ApiCredential>();
        }
        if (string.IsNullOrEmpty(value))
        {
            throw new ApiCredentialsException($"it needs the caller's API credential: send it in the {ForwardedFrom} header of the MCP request");
        }
        foreach (var alternative in alternatives)
        {
            var found = alternative.Split(' ', StringSplitOptions.RemoveEmptyEntries).Select(name => bySchema.GetValueOrDefault(name)).ToList();
            if (found.Count > 0 && found.All(c => c is not null))
            {
                return found.Select(c => WithValue(c!, value)).ToList();
            }
        }
        return null;
    }

    private static ApiCredential WithValue(ApiCredential credential, string value)
    {
        var colon = value.IndexOf(':');
        return new ApiCredential
        {
            Scheme = credential.Scheme,
            Kind = credential.Kind,
            ParameterName = credential.ParameterName,
            Settings = credential.Settings,
            Value = value,
            Username = colon < 0 ? value : value[..colon],
            Password = colon < 0 ? "" : value[(colon + 1)..],
        };
    }

    private string Describe(string[] alternatives)
    {
        var options = alternatives.Where(alternative => alternative.Trim().Length > 0).Select(alternative =>
            string.Join(" and ", alternative.Split(' ', StringSplitOptions.RemoveEmptyEntries)
                .Select(name => bySchema.TryGetValue(name, out var credential) ? credential.Settings : $"a credential for the unsupported scheme '{name}'")));
        return "it needs credentials: set " + string.Join(", or ", options.Distinct());
    }

    private async Task ApplyAsync(HttpRequestMessage request, IReadOnlyList<ApiCredential> credentials, bool refresh, CancellationToken cancellationToken)
    {
        foreach (var credential in credentials)
        {
            if (refresh && credential.Kind is not (ApiCredentialKind.OAuth2ClientCredentials or ApiCredentialKind.Token))
            {
                continue; // a retried request already carries the other credentials
            }
            switch (credential.Kind)
            {
                case ApiCredentialKind.ApiKeyHeader:
                    request.Headers.Remove(credential.ParameterName!);
                    request.Headers.TryAddWithoutValidation(credential.ParameterName!, credential.Value);
                    break;
                case ApiCredentialKind.ApiKeyQuery:
                    var uri = request.RequestUri!.OriginalString;
                    var pair = Uri.EscapeDataString(credential.ParameterName!) + "=" + Uri.EscapeDataString(credential.Value!);
                    request.RequestUri = new Uri(uri + (uri.Contains('?') ? "&" : "?") + pair, new UriCreationOptions { DangerousDisablePathAndQueryCanonicalization = true });
                    break;
                case ApiCredentialKind.ApiKeyCookie:
                    var cookie = Uri.EscapeDataString(credential.ParameterName!) + "=" + Uri.EscapeDataString(credential.Value!);
                    var existing = request.Headers.TryGetValues("Cookie", out var values) ? string.Join("; ", values) : null;
                    request.Headers.Remove("Cookie");
                    request.Headers.TryAddWithoutValidation("Cookie", existing is null ? cookie : existing + "; " + cookie);
                    break;
                case ApiCredentialKind.Bearer:
                    request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", credential.Value);
                    break;
                case ApiCredentialKind.Basic:
                    var pairBytes = Encoding.UTF8.GetBytes($"{credential.Username}:{credential.Password}");
                    request.Headers.Authorization = new AuthenticationHeaderValue("Basic", Convert.ToBase64String(pairBytes));
                    break;
                case ApiCredentialKind.OAuth2ClientCredentials:
                    var token = string.IsNullOrEmpty(credential.Value) ? await TokenAsync(credential, request.RequestUri, refresh, cancellationToken).ConfigureAwait(false) : credential.Value;
                    request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
                    break;
                case ApiCredentialKind.Token:
                    var sourced = string.IsNullOrEmpty(credential.Value) ? await SourcedTokenAsync(credential, refresh, cancellationToken).ConfigureAwait(false) : credential.Value;
                    request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", sourced);
                    break;
            }
        }
    }

    /// <summary>How long before it expires a token from a token source is fetched again (as Azure's SDKs refresh theirs).</summary>
    private static readonly TimeSpan SourcedRefreshMargin = TimeSpan.FromMinutes(5);

    /// <summary>A token from the credential's token source, cached until it nears its end or was refused.</summary>
    private Task<string> SourcedTokenAsync(ApiCredential credential, bool refresh, CancellationToken cancellationToken) =>
        CachedTokenAsync(credential.Scheme, SourcedRefreshMargin, refresh, null, async () =>
        {
            try
            {
                return await credential.TokenSource!(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
            {
                throw new ApiCredentialsException($"no token for '{credential.Scheme}': {ApiErrorMessages.Reason(exception)} (set {credential.Settings})");
            }
        }, cancellationToken);

    /// <summary>
    /// The scheme's cached token, else (or when it was refused) a new one from <paramref name="fetch"/>, one fetch at a
    /// time; with <paramref name="shared"/>, the token store's (its name and the secret that seals it) comes before a fetch.
    /// </summary>
    private async Task<string> CachedTokenAsync(string scheme, TimeSpan margin, bool refresh, (string Name, string Secret)? shared, Func<Task<(string Token, DateTimeOffset Expires)>> fetch, CancellationToken cancellationToken)
    {
        if (!refresh && tokens.TryGetValue(scheme, out var cached) && cached.Expires - margin > DateTimeOffset.UtcNow)
        {
            return cached.Token;
        }
        await tokenLock.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            if (!refresh && tokens.TryGetValue(scheme, out cached) && cached.Expires - margin > DateTimeOffset.UtcNow)
            {
                return cached.Token;
            }
            var store = shared is null ? null : TokenStore;
            if (!refresh && store is not null && await store.GetAsync(shared!.Value.Name, shared.Value.Secret, cancellationToken).ConfigureAwait(false) is { } kept && kept.Expires - margin > DateTimeOffset.UtcNow)
            {
                ApiSecrets.Add(kept.Token);
                tokens[scheme] = kept;
                return kept.Token;
            }
            var fresh = await fetch().ConfigureAwait(false);
            ApiSecrets.Add(fresh.Token);
            tokens[scheme] = fresh;
            if (store is not null)
            {
                await store.SetAsync(shared!.Value.Name, shared.Value.Secret, fresh, cancellationToken).ConfigureAwait(false);
            }
            return fresh.Token;
        }
        finally
        {
            tokenLock.Release();
        }
    }

    /// <summary>A cached OAuth2 client-credentials token, fetched again when it is within a minute of expiring or was refused.</summary>
    private Task<string> TokenAsync(ApiCredential credential, Uri? requestUri, bool refresh, CancellationToken cancellationToken) =>
        CachedTokenAsync(credential.Scheme, RefreshMargin, refresh, SharedName(credential), () => FetchTokenAsync(credential, requestUri, cancellationToken), cancellationToken);

    /// <summary>A client-credentials token's name in the token store (its token URL, client and scopes) and the secret that seals it.</summary>
    private static (string Name, string Secret)? SharedName(ApiCredential credential) =>
        string.IsNullOrEmpty(credential.ClientSecret) ? null : ($"oauth2 {credential.TokenUrl} {credential.ClientId} {credential.Scopes}", credential.ClientSecret);

    /// <summary>A new token from the credential's token URL (client credentials grant).</summary>
    private async Task<(string Token, DateTimeOffset Expires)> FetchTokenAsync(ApiCredential credential, Uri? requestUri, CancellationToken cancellationToken)
    {
        var tokenUrl = requestUri is not null && Uri.TryCreate(requestUri, credential.TokenUrl, out var resolved) ? resolved : new Uri(credential.TokenUrl!);
        var form = new List<KeyValuePair<string, string>> { new("grant_type", "client_credentials") };
        if (!string.IsNullOrWhiteSpace(credential.Scopes))
        {
            form.Add(new("scope", credential.Scopes));
        }
        using var message = new HttpRequestMessage(HttpMethod.Post, tokenUrl) { Content = new FormUrlEncodedContent(form) };
        var clientPair = Encoding.UTF8.GetBytes($"{Uri.EscapeDataString(credential.ClientId!)}:{Uri.EscapeDataString(credential.ClientSecret!)}");
        ApiSecrets.Add(Convert.ToBase64String(clientPair));
        message.Headers.Authorization = new AuthenticationHeaderValue("Basic", Convert.ToBase64String(clientPair));
        HttpResponseMessage response;
        try
        {
            response = await tokenClient.SendAsync(message, cancellationToken).ConfigureAwait(false);
        }
        catch (HttpRequestException exception)
        {
            throw new ApiCredentialsException($"no OAuth2 token for '{credential.Scheme}': {tokenUrl} could not be reached ({exception.HttpRequestError})");
        }
        using (response)
        {
            if (!response.IsSuccessStatusCode)
            {
                throw new ApiCredentialsException($"no OAuth2 token for '{credential.Scheme}': {tokenUrl} answered HTTP {(int)response.StatusCode}; check {credential.Settings}");
            }
            var (body, _) = await ApiRequest.ReadCappedAsync(response.Content, ApiLimits.MaxErrorBodyBytes, cancellationToken).ConfigureAwait(false);
            try
            {
                using var document = JsonDocument.Parse(body);
                var root = document.RootElement;
                if (!root.TryGetProperty("access_token", out var accessToken) || accessToken.GetString() is not { Length: > 0 } token)
                {
                    throw new ApiCredentialsException($"no OAuth2 token for '{credential.Scheme}': the answer of {tokenUrl} has no access_token");
                }
                var seconds = root.TryGetProperty("expires_in", out var expiresIn) && expiresIn.TryGetInt32(out var value) ? value : 3600;
                return (token, DateTimeOffset.UtcNow.AddSeconds(seconds));
            }
            catch (JsonException)
            {
                throw new ApiCredentialsException($"no OAuth2 token for '{credential.Scheme}': the token endpoint did not answer JSON");
            }
        }
    }

    private static async Task<HttpRequestMessage> CloneAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        var clone = new HttpRequestMessage(request.Method, request.RequestUri) { Version = request.Version };
        foreach (var header in request.Headers)
        {
            clone.Headers.TryAddWithoutValidation(header.Key, header.Value);
        }
        if (request.Content is not null)
        {
            var bytes = await request.Content.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
            clone.Content = new ByteArrayContent(bytes);
            foreach (var header in request.Content.Headers)
            {
                clone.Content.Headers.TryAddWithoutValidation(header.Key, header.Value);
            }
        }
        foreach (var option in request.Options)
        {
            ((IDictionary<string, object?>)clone.Options)[option.Key] = option.Value;
        }
        return clone;
    }
}
