#nullable enable

using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.HttpOverrides;

namespace __NAMESPACE__;

/// <summary>
/// The proxies the operator trusts to say who a caller is (<c>TRUSTED_PROXIES</c>): behind nginx or an ingress every
/// caller connects from the proxy's address, so without them all anonymous callers would share one rate-limit bucket
/// and one share of scripts. A request that comes from one of these proxies is the caller its <c>X-Forwarded-For</c>
/// names (through a chain of such proxies, ASP.NET Core's forwarded-headers middleware); from anyone else the header is
/// ignored, so no caller can choose who it is. With none named, the header is never read.
/// </summary>
internal static class McpHttpProxies
{
    /// <summary>Addresses and networks (CIDR), separated by commas or spaces; false and one line when one is neither.</summary>
    public static bool TryRead(string? text, string setting, out IReadOnlyList<System.Net.IPNetwork> proxies, out string? error)
    {
        var found = new List<System.Net.IPNetwork>();
        proxies = found;
        error = null;
        foreach (var entry in (text ?? string.Empty).Split([',', ' ', ';'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            if (System.Net.IPNetwork.TryParse(entry, out var network))
            {
                found.Add(network);
            }
            else if (IPAddress.TryParse(entry, out var address))
            {
                found.Add(new System.Net.IPNetwork(address, address.AddressFamily == AddressFamily.InterNetworkV6 ? 128 : 32));
            }
            else
            {
                error = $"error: {setting}: \"{entry}\" is not an IP address or network (e.g. 10.0.0.5 or 10.0.0.0/8, separated by commas)";
                return false;
            }
        }
        return true;
    }

    /// <summary>First thing after the app is built: the caller of a request from a trusted proxy is the one it names.</summary>
    public static void Use(WebApplication app, IReadOnlyList<System.Net.IPNetwork> proxies)
    {
        if (proxies.Count == 0)
        {
            return;
        }
        // Only the proxies named: none of the middleware's defaults (loopback), and every hop of a chain must be one.
        var options = new ForwardedHeadersOptions { ForwardedHeaders = ForwardedHeaders.XForwardedFor, ForwardLimit = null };
        options.KnownProxies.Clear();
#if NET10_0_OR_GREATER
        options.KnownIPNetworks.Clear();
        foreach (var proxy in proxies)
        {
            options.KnownIPNetworks.Add(proxy);
        }
#else
        options.KnownNetworks.Clear();
        foreach (var proxy in proxies)
        {
            options.KnownNetworks.Add(new Microsoft.AspNetCore.HttpOverrides.IPNetwork(proxy.BaseAddress, proxy.PrefixLength));
        }
#endif
        app.UseForwardedHeaders(options);
    }
}
