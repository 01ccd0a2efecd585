#nullable enable

using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Linq;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Http;
using Microsoft.IdentityModel.Protocols;
using Microsoft.IdentityModel.Protocols.OpenIdConnect;
using __CLIENT_NAMESPACE__;

namespace __NAMESPACE__;

/// <summary>
/// <c>--upstream-token-exchange</c>: each call's API token is obtained for its caller, by exchanging the caller's MCP
/// access token at the authority's token endpoint (RFC 8693) for one whose audience is the API. The caller's own
/// token is never sent to the API; the exchanged one is cached per caller's token until it expires, and redacted
/// from answers like any credential.
/// </summary>
internal sealed class McpTokenExchange
{
    private const string ExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange";
    private const string AccessTokenType = "urn:ietf:params:oauth:token-type:access_token";
    private const int MaxCachedTokens = 10_000;
    private static readonly object ExchangedKey = new();
    private readonly ConcurrentDictionary<string, (string Token, DateTimeOffset Expires)> _exchanged = new(StringComparer.Ordinal);
    private readonly HttpClient _tokenClient = new(new SocketsHttpHandler { AllowAutoRedirect = false, UseCookies = false }) { Timeout = TimeSpan.FromSeconds(30) };
    private readonly IConfigurationManager<OpenIdConnectConfiguration> _metadata;
    private readonly string _clientId;
    private readonly string _clientSecret;
    private readonly string _api;

    private McpTokenExchange(IConfigurationManager<OpenIdConnectConfiguration> metadata, string clientId, string clientSecret, string api)
    {
        _metadata = metadata;
        _clientId = clientId;
        _clientSecret = clientSecret;
        _api = api;
    }

    /// <summary>
    /// The exchange at the authority of <paramref name="authorization"/>, as the client in the settings, for the API at
    /// <paramref name="api"/>; false and one line when a setting is missing.
    /// </summary>
    public static bool TryCreate(McpAuthorization authorization, string? clientId, string? clientSecret, Uri api, (string ClientId, string ClientSecret) settings, [NotNullWhen(true)] out McpTokenExchange? exchange, out string? error)
    {
        exchange = null;
        error = string.IsNullOrWhiteSpace(clientId) ? $"error: {settings.ClientId} is not set: give the client this server exchanges callers' tokens as"
            : string.IsNullOrWhiteSpace(clientSecret) ? $"error: {settings.ClientSecret} is not set: give the secret of the client in {settings.ClientId}"
            : null;
        if (error is not null) return false;
        exchange = new McpTokenExchange(authorization.Metadata, clientId!.Trim(), clientSecret!.Trim(), api.GetLeftPart(UriPartial.Path));
        ApiSecrets.Add(exchange._clientSecret);
        return true;
    }

    /// <summary>
    /// Where set (the replicas of a deployment share one), exchanged tokens are also kept there, sealed with the
    /// caller's token: a replica takes the token another obtained for the same caller's token instead of exchanging it again.
    /// </summary>
    public IApiTokenStore? Store { get; set; }

    /// <summary>The API token obtained for the call being served, for redaction (it is never kept beyond its lifetime).</summary>
    public static string? ExchangedToken() => new HttpContextAccessor().HttpContext?.Items[ExchangedKey] as string;

    /// <summary>
    /// The API token for the caller of the MCP request being served: the caller's token exchanged for one whose
    /// audience is the API, cached per caller's token until it expires. The caller's own token is never sent to the API.
    /// </summary>
    public async ValueTask<string?> ExchangedTokenAsync(CancellationToken cancel)
    {
        var context = new HttpContextAccessor().HttpContext;
        var header = context?.Request.Headers.Authorization.ToString() ?? "";
        if (context is null || !header.StartsWith("Bearer ", StringComparison.OrdinalIgnoreCase)) return null;
        var subject = header[7..].Trim();
        var key = Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(subject)));
        if (!_exchanged.TryGetValue(key, out var cached) || cached.Expires <= DateTimeOffset.UtcNow)
        {
            var name = $"token exchange {_api} {_clientId}";
            if (Store is not null && await Store.GetAsync(name, subject, cancel).ConfigureAwait(false) is { } kept && kept.Expires > DateTimeOffset.UtcNow)
            {
                cached = kept;
            }
            else
            {
                cached = await ExchangeAsync(subject, cancel).ConfigureAwait(false);
                if (Store is not null) await Store.SetAsync(name, subject, cached, cancel).ConfigureAwait(false);
            }
            if (_exchanged.Count >= MaxCachedTokens)
            {
                foreach (var stale in _exchanged.Where(entry => entry.Value.Expires <= DateTimeOffset.UtcNow).Select(entry => entry.Key).ToList()) _exchanged.TryRemove(stale, out _);
                if (_exchanged.Count >= MaxCachedTokens) _exchanged.Clear();
            }
            _exchanged[key] = cached;
        }
        context.Items[ExchangedKey] = cached.Token;
        return cached.Token;
    }

    private async Task<(string Token, DateTimeOffset Expires)> ExchangeAsync(string subject, CancellationToken cancel)
    {
        var configuration = await _metadata.GetConfigurationAsync(cancel).ConfigureAwait(false);
        if (string.IsNullOrEmpty(configuration.TokenEndpoint)) throw new ApiCredentialsException("the authorization server's metadata names no token endpoint to exchange the caller's token at");
        using var request = new HttpRequestMessage(HttpMethod.Post, configuration.TokenEndpoint)
        {
            Content = new FormUrlEncodedContent(new Dictionary<string, string>
            {
                ["grant_type"] = ExchangeGrant,
                ["subject_token"] = subject,
                ["subject_token_type"] = AccessTokenType,
                ["requested_token_type"] = AccessTokenType,
                ["resource"] = _api,
                ["audience"] = _api,
            }),
        };
        var basic = $"{Uri.EscapeDataString(_clientId)}:{Uri.EscapeDataString(_clientSecret)}";
        request.Headers.Authorization = new AuthenticationHeaderValue("Basic", Convert.ToBase64String(Encoding.UTF8.GetBytes(basic)));
        using var response = await _tokenClient.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancel).ConfigureAwait(false);
        var body = await ReadCappedAsync(response, cancel).ConfigureAwait(false);
        try
        {
            using var document = JsonDocument.Parse(body);
            var root = document.RootElement;
            if (response.IsSuccessStatusCode && root.TryGetProperty("access_token", out var token) && token.GetString() is { Length: > 0 } value)
            {
                var lifetime = root.TryGetProperty("expires_in", out var expires) && expires.TryGetInt32(out var seconds) ? seconds : 300;
                return (value, DateTimeOffset.UtcNow.AddSeconds(Math.Max(0, lifetime - 30)));
            }
            var reason = root.TryGetProperty("error", out var code) && code.ValueKind == JsonValueKind.String ? $": {code.GetString()}" : "";
            throw new ApiCredentialsException($"the authorization server did not exchange the caller's token for one for the API (HTTP {(int)response.StatusCode}{reason})");
        }
        catch (JsonException)
        {
            throw new ApiCredentialsException($"the authorization server's answer to the token exchange is not JSON (HTTP {(int)response.StatusCode})");
        }
    }

    private static async Task<string> ReadCappedAsync(HttpResponseMessage response, CancellationToken cancel)
    {
        const int Cap = 64 * 1024;
        using var stream = await response.Content.ReadAsStreamAsync(cancel).ConfigureAwait(false);
        var buffer = new byte[Cap];
        var length = 0;
        int read;
        while (length < Cap && (read = await stream.ReadAsync(buffer.AsMemory(length, Cap - length), cancel).ConfigureAwait(false)) > 0) length += read;
        return Encoding.UTF8.GetString(buffer, 0, length);
    }
}
