#nullable enable

using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace __NAMESPACE__;

/// <summary>
/// Who may reach the HTTP server, by the <c>Host</c> and <c>Origin</c> of each request (DNS-rebinding protection):
/// a web page in a browser must not be able to drive a server that listens on this machine or a private network.
/// <list type="bullet">
/// <item>An <c>Origin</c>, when present, must be a loopback origin or one of the allowed origins.</item>
/// <item>The <c>Host</c> must be a loopback name or one of the allowed hosts; with none listed, a server that listens
/// on loopback addresses only accepts loopback names, and one that listens on other addresses accepts any.</item>
/// </list>
/// A refused request gets 403 and a JSON-RPC error, before anything else reads it.
/// </summary>
internal sealed class McpHttpAccess
{
    private readonly HashSet<string> _hosts;
    private readonly HashSet<string> _origins;
    private readonly string _hostsSetting;
    private readonly string _originsSetting;
    private readonly IServer _server;
    private readonly ILogger _logger;
    private bool? _loopbackOnly;

    private McpHttpAccess(HashSet<string> hosts, HashSet<string> origins, string hostsSetting, string originsSetting, IServer server, ILogger logger)
    {
        _hosts = hosts;
        _origins = origins;
        _hostsSetting = hostsSetting;
        _originsSetting = originsSetting;
        _server = server;
        _logger = logger;
    }

    /// <summary>Host names from a comma-separated setting (no port, no scheme); false and one line when one is not a host name.</summary>
    public static bool TryReadHosts(string? text, string setting, out HashSet<string> hosts, out string? error)
    {
        hosts = new HashSet<string>(StringComparer.Ordinal);
        error = null;
        foreach (var entry in Entries(text))
        {
            var name = entry.ToLowerInvariant();
            if (Uri.CheckHostName(name.Trim('[', ']')) == UriHostNameType.Unknown || name.Contains(':') && !name.StartsWith('['))
            {
                error = $"error: {setting}: \"{entry}\" is not a host name (give names without scheme or port, separated by commas)";
                return false;
            }
            hosts.Add(name.Trim('[', ']'));
        }
        return true;
    }

    /// <summary>Origins from a comma-separated setting (<c>scheme://host[:port]</c>); false and one line when one is not an origin.</summary>
    public static bool TryReadOrigins(string? text, string setting, out HashSet<string> origins, out string? error)
    {
        origins = new HashSet<string>(StringComparer.Ordinal);
        error = null;
        foreach (var entry in Entries(text))
        {
            if (Normalize(entry) is not { } origin)
            {
                error = $"error: {setting}: \"{entry}\" is not an origin (give scheme://host[:port], separated by commas)";
                return false;
            }
            origins.Add(origin);
        }
        return true;
    }

    /// <summary>The check, for the server's listening addresses (read when the first request comes, once the server listens).</summary>
    public static McpHttpAccess Create(HashSet<string> hosts, HashSet<string> origins, string hostsSetting, string originsSetting, IServiceProvider services)
        => new(hosts, origins, hostsSetting, originsSetting, services.GetRequiredService<IServer>(), services.GetRequiredService<ILoggerFactory>().CreateLogger("McpHttpAccess"));

    /// <summary>The middleware: refuses a request whose Origin or Host is not allowed, passes the others on.</summary>
    public Task InvokeAsync(HttpContext context, RequestDelegate next)
    {
        var origin = context.Request.Headers.Origin.ToString();
        if (context.Request.Headers.Origin.Count > 0 && !OriginAllowed(origin))
        {
            return RefuseAsync(context, $"the Origin {Quote(origin)} is not allowed (an allowed one is loopback or listed in {_originsSetting})");
        }
        // Probes of load balancers and orchestrators reach /healthz by address; it says only that the process is up.
        var probe = context.Request.Path.Equals("/healthz", StringComparison.Ordinal) && HttpMethods.IsGet(context.Request.Method);
        var host = context.Request.Host.Host;
        if (!probe && !HostAllowed(host))
        {
            return RefuseAsync(context, $"the Host {Quote(host)} is not allowed (an allowed one is loopback or listed in {_hostsSetting})");
        }
        return next(context);
    }

    private bool OriginAllowed(string origin)
        => Normalize(origin) is { } normalized && (IsLoopback(new Uri(normalized).IdnHost) || _origins.Contains(normalized));

    private bool HostAllowed(string host)
    {
        var name = host.ToLowerInvariant().Trim('[', ']');
        if (IsLoopback(name)) return true;
        if (_hosts.Count > 0) return _hosts.Contains(name);
        return !(_loopbackOnly ??= ListensOnLoopbackOnly());
    }

    /// <summary>Whether every address the server listens on is a loopback one (no address known: as if it were).</summary>
    private bool ListensOnLoopbackOnly()
    {
        var addresses = _server.Features.Get<IServerAddressesFeature>()?.Addresses ?? [];
        return addresses.All(address =>
        {
            // http://+:80 and http://*:80 are not URIs; they listen everywhere.
            var start = address.IndexOf("://", StringComparison.Ordinal);
            var rest = start < 0 ? address : address[(start + 3)..];
            var end = rest.StartsWith('[') ? rest.IndexOf(']') + 1 : rest.IndexOfAny([':', '/']);
            return IsLoopback(end <= 0 ? rest : rest[..end]);
        });
    }

    private static bool IsLoopback(string host)
    {
        host = host.Trim('[', ']').ToLowerInvariant();
        return host == "localhost" || host.EndsWith(".localhost", StringComparison.Ordinal) || IPAddress.TryParse(host, out var address) && IPAddress.IsLoopback(address);
    }

    /// <summary><c>scheme://host[:port]</c> in lower case, the port only when not the scheme's default; null when not an http(s) origin.</summary>
    private static string? Normalize(string origin)
    {
        if (!Uri.TryCreate(origin.Trim(), UriKind.Absolute, out var uri) || uri.Scheme is not ("http" or "https")) return null;
        if (uri.UserInfo.Length > 0 || uri.Query.Length > 0 || uri.Fragment.Length > 0 || uri.AbsolutePath != "/") return null;
        var host = uri.HostNameType == UriHostNameType.IPv6 ? $"[{uri.IdnHost.Trim('[', ']')}]" : uri.IdnHost;
        return uri.IsDefaultPort ? $"{uri.Scheme}://{host}" : $"{uri.Scheme}://{host}:{uri.Port}";
    }

    private static IEnumerable<string> Entries(string? text)
        => (text ?? "").Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);

    private static readonly JsonSerializerOptions Relaxed = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>A header value as a message shows it: in quotes, control characters left out, at most 200 characters.</summary>
    private static string Quote(string value)
    {
        var shown = new string(value.Where(c => !char.IsControl(c)).Take(200).ToArray());
        return $"\"{shown}\"";
    }

    private Task RefuseAsync(HttpContext context, string reason)
    {
        _logger.LogWarning("Refused {Method} {Path}: {Reason}", context.Request.Method, context.Request.Path.Value, reason);
        context.Response.StatusCode = StatusCodes.Status403Forbidden;
        context.Response.ContentType = "application/json";
        var error = new { jsonrpc = "2.0", id = (object?)null, error = new { code = -32000, message = $"Forbidden: {reason}" } };
        return context.Response.WriteAsync(JsonSerializer.Serialize(error, Relaxed));
    }
}

/// <summary>Program.cs's calls: who calls each request, and who may reach the server.</summary>
internal static class McpHttpAccessSetup
{
    /// <summary>Who calls: the authenticated subject, else the client's address (for shares, limits and the audit log).</summary>
    public static IHostApplicationBuilder AddMcpHttpAccess(this IHostApplicationBuilder builder)
    {
        builder.Services.AddHttpContextAccessor();
        var callers = new HttpContextAccessor();
        McpCaller.Identify = () => callers.HttpContext is { } call ? McpCaller.Of(call.User.FindFirst("sub")?.Value, call.Connection.RemoteIpAddress) : null;
        return builder;
    }

    /// <summary>
    /// First thing after the app is built: behind the trusted proxies, the caller is the one a request from them names
    /// (from anyone else X-Forwarded-For is ignored); then every request's Host and Origin are checked before anything
    /// else reads it.
    /// </summary>
    public static WebApplication UseMcpHttpAccess(this WebApplication app, McpSettings settings)
    {
        McpHttpProxies.Use(app, settings.TrustedProxies);
        app.Use(McpHttpAccess.Create(settings.AllowedHosts, settings.AllowedOrigins, McpSettings.AllowedHostsSetting, McpSettings.AllowedOriginsSetting, app.Services).InvokeAsync);
        return app;
    }
}
