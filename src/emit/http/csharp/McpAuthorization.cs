#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Linq;
using System.Net;
using System.Reflection;
using System.Security.Claims;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Authentication.JwtBearer;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.IdentityModel.Protocols;
using Microsoft.IdentityModel.Protocols.OpenIdConnect;
using Microsoft.IdentityModel.Tokens;
using ModelContextProtocol.AspNetCore.Authentication;
using ModelContextProtocol.Authentication;
using ModelContextProtocol.Server;

namespace __NAMESPACE__;

/// <summary>
/// Who may use the server (MCP authorization): it is an OAuth 2.1 resource server that admits only JWT access
/// tokens the authority signed, issued for this server (<c>aud</c>), unexpired, with the scopes every call needs.
/// It publishes its RFC 9728 metadata so that MCP clients find the authority and sign the user in by themselves.
/// The caller's token is never sent on: the API is called with the server's own credentials.
/// </summary>
internal sealed class McpAuthorization
{
    /// <summary>Signature algorithms of access tokens: asymmetric ones only (the authority's published keys).</summary>
    private static readonly string[] Algorithms = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"];

    private McpAuthorization(Uri authority, Uri resource, string[] scopes)
    {
        Authority = authority;
        Resource = resource;
        // As written in the settings: an issuer and a resource are compared as strings (a trailing slash counts).
        AuthorityText = authority.OriginalString;
        ResourceText = resource.OriginalString;
        Scopes = scopes;
        var path = resource.AbsolutePath == "/" ? "" : resource.AbsolutePath.TrimEnd('/');
        MetadataUrl = $"{resource.GetLeftPart(UriPartial.Authority)}/.well-known/oauth-protected-resource{path}";
        Metadata = new AuthorityMetadata(authority, authority.Scheme == "https");
    }

    /// <summary>The authority's metadata and keys, read when first needed and refreshed as they change.</summary>
    public IConfigurationManager<OpenIdConnectConfiguration> Metadata { get; }

    /// <summary>The authorization server (its issuer URL).</summary>
    public Uri Authority { get; }

    /// <summary>This server's MCP URL as clients reach it: the audience its tokens must have.</summary>
    public Uri Resource { get; }

    private string AuthorityText { get; }

    private string ResourceText { get; }

    /// <summary>Scopes every call needs.</summary>
    public string[] Scopes { get; }

    /// <summary>Where the protected-resource metadata is (RFC 9728: the well-known path inserted before the resource's path).</summary>
    public string MetadataUrl { get; }

    /// <summary>The settings; false and one line naming the setting when one is missing or not usable.</summary>
    public static bool TryRead(string? authority, string? resource, string? scopes, (string Authority, string Resource, string Scopes) settings, [NotNullWhen(true)] out McpAuthorization? authorization, out string? error)
    {
        authorization = null;
        error = null;
        if (string.IsNullOrWhiteSpace(authority)) error = $"error: {settings.Authority} is not set: give the authorization server's issuer URL (https://…)";
        else if (!Uri.TryCreate(authority.Trim(), UriKind.Absolute, out var issuer) || !(issuer.Scheme == "https" || issuer.Scheme == "http" && IsLoopback(issuer.Host)) || issuer.Query.Length > 0 || issuer.Fragment.Length > 0)
            error = $"error: {settings.Authority} is \"{authority}\": give the authorization server's issuer URL, https:// (http:// only on a loopback address)";
        else if (string.IsNullOrWhiteSpace(resource)) error = $"error: {settings.Resource} is not set: give this server's MCP URL as clients reach it (https://…/mcp)";
        else if (!Uri.TryCreate(resource.Trim(), UriKind.Absolute, out var audience) || audience.Scheme is not ("https" or "http") || audience.Query.Length > 0 || audience.Fragment.Length > 0)
            error = $"error: {settings.Resource} is \"{resource}\": give this server's MCP URL as clients reach it (https://…/mcp)";
        else
        {
            var needed = (scopes ?? "").Split([' ', ','], StringSplitOptions.RemoveEmptyEntries);
            if (needed.FirstOrDefault(scope => scope.Any(c => c < 0x21 || c == '"' || c == '\\' || c > 0x7e)) is { } bad)
            {
                error = $"error: {settings.Scopes}: \"{bad}\" is not an OAuth scope";
                return false;
            }
            authorization = new McpAuthorization(issuer, audience, needed);
            return true;
        }
        return false;
    }

    /// <summary>The scopes each tool's operation requires, by tool name: alternatives, a caller needs all of one.</summary>
    private Dictionary<string, string[][]> _toolScopes = new(StringComparer.Ordinal);

    /// <summary>Token validation, the metadata document and the 401 answer; the scopes the tools of <paramref name="tools"/> require.</summary>
    public void AddServices(IServiceCollection services, Type tools)
    {
        foreach (var method in tools.GetMethods(BindingFlags.Public | BindingFlags.Static))
        {
            if (method.GetCustomAttribute<McpServerToolAttribute>() is { Name: { } name } && method.GetCustomAttribute<McpTools.OAuthScopesAttribute>() is { } required)
            {
                _toolScopes[name] = required.Alternatives.Select(alternative => alternative.Split(' ', StringSplitOptions.RemoveEmptyEntries)).ToArray();
            }
        }
        var supported = Scopes.Concat(_toolScopes.Values.SelectMany(alternatives => alternatives.SelectMany(scopes => scopes))).Distinct(StringComparer.Ordinal).ToList();
        var issuer = AuthorityText.TrimEnd('/');
        services.AddAuthentication(options =>
            {
                options.DefaultAuthenticateScheme = JwtBearerDefaults.AuthenticationScheme;
                options.DefaultChallengeScheme = JwtBearerDefaults.AuthenticationScheme;
            })
            .AddJwtBearer(options =>
            {
                options.RequireHttpsMetadata = Authority.Scheme == "https";
                options.ConfigurationManager = Metadata;
                // Claims as the token has them: `scope` and `sub` keep their names.
                options.MapInboundClaims = false;
                options.TokenValidationParameters = new TokenValidationParameters
                {
                    ValidIssuers = [issuer, issuer + "/"],
                    ValidAudience = ResourceText,
                    ValidAlgorithms = Algorithms,
                    RequireSignedTokens = true,
                    RequireExpirationTime = true,
                    ClockSkew = TimeSpan.FromSeconds(60),
                };
                options.Events = new JwtBearerEvents { OnChallenge = ChallengeAsync };
            })
            // Serves the metadata at /.well-known/oauth-protected-resource (and below it, /mcp included).
            .AddMcp(options => options.ResourceMetadata = new ProtectedResourceMetadata
            {
                Resource = ResourceText,
                AuthorizationServers = { AuthorityText },
                ScopesSupported = supported,
                BearerMethodsSupported = ["header"],
            });
        services.AddAuthorization();
    }

    /// <summary>401 with where the metadata is, and <c>invalid_token</c> when a token came and was refused.</summary>
    private Task ChallengeAsync(JwtBearerChallengeContext context)
    {
        context.HandleResponse();
        var sent = context.AuthenticateFailure is not null || context.Request.Headers.Authorization.Count > 0;
        context.Response.StatusCode = StatusCodes.Status401Unauthorized;
        context.Response.Headers.WWWAuthenticate = $"Bearer resource_metadata=\"{MetadataUrl}\"" + (sent ? ", error=\"invalid_token\"" : "");
        return Task.CompletedTask;
    }

    /// <summary>
    /// The middleware after authentication: an MCP request whose token lacks a scope every call needs, or the scopes the
    /// operation of a tool it calls requires (through <c>call_operation</c> too), is refused with 403 and
    /// <c>insufficient_scope</c> before anything is sent, naming the scopes to ask for (those it has and those it lacks),
    /// so that the client can ask the user for more.
    /// </summary>
    public async Task CheckScopesAsync(HttpContext context, RequestDelegate next)
    {
        if (context.User.Identity?.IsAuthenticated != true)
        {
            await next(context);
            return;
        }
        var granted = GrantedScopes(context.User);
        var lacking = Scopes.Where(scope => !granted.Contains(scope)).ToList();
        if (_toolScopes.Count > 0 && HttpMethods.IsPost(context.Request.Method))
        {
            context.Request.EnableBuffering();
            var called = await ToolsCalledAsync(context.Request.Body, context.RequestAborted);
            context.Request.Body.Position = 0;
            if (called is null)
            {
                context.Response.StatusCode = StatusCodes.Status400BadRequest;
                context.Response.ContentType = "application/json";
                await context.Response.WriteAsync("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid request: a property name appears twice\"}}");
                return;
            }
            foreach (var name in called)
            {
                if (_toolScopes.TryGetValue(name, out var alternatives) && !alternatives.Any(scopes => scopes.All(granted.Contains)))
                {
                    lacking.AddRange(alternatives[0].Where(scope => !granted.Contains(scope)));
                }
            }
        }
        if (lacking.Count == 0)
        {
            await next(context);
            return;
        }
        context.Response.StatusCode = StatusCodes.Status403Forbidden;
        var wanted = string.Join(' ', granted.Concat(lacking).Distinct(StringComparer.Ordinal));
        context.Response.Headers.WWWAuthenticate = $"Bearer error=\"insufficient_scope\", scope=\"{wanted}\", resource_metadata=\"{MetadataUrl}\"";
    }

    /// <summary>
    /// The tools a POST's JSON-RPC message (or batch) calls: <c>tools/call</c>'s name, and with <c>call_operation</c> the
    /// operation's. Null when a name the check reads appears twice in an object (readers could disagree on which counts);
    /// none when the body is not JSON (the MCP server refuses it).
    /// </summary>
    private static async Task<List<string>?> ToolsCalledAsync(System.IO.Stream body, CancellationToken cancel)
    {
        var called = new List<string>();
        JsonDocument document;
        try
        {
            document = await JsonDocument.ParseAsync(body, default, cancel);
        }
        catch (JsonException)
        {
            return called;
        }
        using (document)
        {
            var messages = document.RootElement.ValueKind == JsonValueKind.Array ? document.RootElement.EnumerateArray().ToList() : [document.RootElement];
            foreach (var message in messages)
            {
                if (message.ValueKind != JsonValueKind.Object) continue;
                if (Repeats(message)) return null;
                if (!message.TryGetProperty("method", out var method) || method.ValueKind != JsonValueKind.String || method.GetString() != "tools/call") continue;
                if (!message.TryGetProperty("params", out var parameters) || parameters.ValueKind != JsonValueKind.Object) continue;
                if (Repeats(parameters)) return null;
                if (!parameters.TryGetProperty("name", out var name) || name.ValueKind != JsonValueKind.String) continue;
                called.Add(name.GetString()!);
                if (name.GetString() == "call_operation" && parameters.TryGetProperty("arguments", out var arguments) && arguments.ValueKind == JsonValueKind.Object)
                {
                    if (Repeats(arguments)) return null;
                    if (arguments.TryGetProperty("name", out var operation) && operation.ValueKind == JsonValueKind.String) called.Add(operation.GetString()!);
                }
            }
        }
        return called;
    }

    private static bool Repeats(JsonElement element)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        return element.EnumerateObject().Any(property => !seen.Add(property.Name));
    }

    /// <summary>
    /// For a call made inside a request that is already admitted (a code-mode script's api call): why the caller's token
    /// may not call <paramref name="tool"/>'s operation, naming the scopes to ask for, or null when it may.
    /// </summary>
    public string? Refusal(ClaimsPrincipal? user, string tool)
    {
        var granted = user is null ? [] : GrantedScopes(user);
        if (!_toolScopes.TryGetValue(tool, out var alternatives) || alternatives.Any(scopes => scopes.All(granted.Contains)))
        {
            return null;
        }
        var wanted = string.Join(' ', granted.Concat(alternatives[0]).Distinct(StringComparer.Ordinal));
        return $"Error: insufficient scope: {tool} needs the OAuth scopes \"{string.Join(' ', alternatives[0])}\", which the caller's token does not have; sign in again asking for \"{wanted}\"";
    }

    /// <summary>The token's scopes: its <c>scope</c> claim (space-separated), or <c>scp</c> as Microsoft Entra ID writes it.</summary>
    private static HashSet<string> GrantedScopes(ClaimsPrincipal user)
        => user.FindAll("scope").Concat(user.FindAll("scp"))
            .SelectMany(claim => claim.Value.Split(' ', StringSplitOptions.RemoveEmptyEntries))
            .Where(scope => !scope.Any(c => c < 0x21 || c == '"' || c == '\\' || c > 0x7e))
            .ToHashSet(StringComparer.Ordinal);

    private static bool IsLoopback(string host)
        => host == "localhost" || IPAddress.TryParse(host.Trim('[', ']'), out var address) && IPAddress.IsLoopback(address);

    /// <summary>
    /// The authority's metadata and keys: OpenID Connect discovery, or where the authority has none, its RFC 8414
    /// document (<c>/.well-known/oauth-authorization-server</c>, inserted before the issuer's path).
    /// </summary>
    private sealed class AuthorityMetadata : IConfigurationManager<OpenIdConnectConfiguration>
    {
        private readonly ConfigurationManager<OpenIdConnectConfiguration> _openIdConnect;
        private readonly ConfigurationManager<OpenIdConnectConfiguration> _oauth;

        public AuthorityMetadata(Uri authority, bool requireHttps)
        {
            var retriever = new HttpDocumentRetriever { RequireHttps = requireHttps };
            var path = authority.AbsolutePath == "/" ? "" : authority.AbsolutePath.TrimEnd('/');
            _openIdConnect = new($"{authority.GetLeftPart(UriPartial.Authority)}{path}/.well-known/openid-configuration", new OpenIdConnectConfigurationRetriever(), retriever);
            _oauth = new($"{authority.GetLeftPart(UriPartial.Authority)}/.well-known/oauth-authorization-server{path}", new OpenIdConnectConfigurationRetriever(), retriever);
        }

        public async Task<OpenIdConnectConfiguration> GetConfigurationAsync(CancellationToken cancel)
        {
            try
            {
                return await _openIdConnect.GetConfigurationAsync(cancel).ConfigureAwait(false);
            }
            catch (Exception) when (!cancel.IsCancellationRequested)
            {
                return await _oauth.GetConfigurationAsync(cancel).ConfigureAwait(false);
            }
        }

        public void RequestRefresh()
        {
            _openIdConnect.RequestRefresh();
            _oauth.RequestRefresh();
        }
    }
}

/// <summary>Program.cs's calls: who may use the server.</summary>
internal static class McpAuthorizationSetup
{
    /// <summary>Token validation, the protected-resource metadata and the scope checks of the tools' operations.</summary>
    public static IHostApplicationBuilder AddMcpAuthorization(this IHostApplicationBuilder builder, McpSettings settings)
    {
        settings.Authorization.AddServices(builder.Services, typeof(McpTools));
        return builder;
    }

    /// <summary>
    /// After the Host and Origin checks: the caller's access token (401 without a valid one), then the scopes every
    /// call needs (403), before any MCP request is read.
    /// </summary>
    public static WebApplication UseMcpAuthorization(this WebApplication app, McpSettings settings)
    {
        app.UseAuthentication();
        app.UseAuthorization();
        app.Use(settings.Authorization.CheckScopesAsync);
        return app;
    }
}
