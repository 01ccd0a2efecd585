#nullable enable

using System;
using System.Net;

namespace __NAMESPACE__;

/// <summary>
/// Who is calling, as one key for shares, limits and the audit log: on a shared HTTP server the authenticated subject
/// (<c>sub:…</c>), else the client's address (<c>ip:…</c>); over stdio the one local user (<c>local</c>).
/// </summary>
internal static class McpCaller
{
    /// <summary>Set by an HTTP server's Program.cs: the caller of the request being served, or null outside one.</summary>
    public static Func<string?>? Identify { get; set; }

    /// <summary>The caller of the call being served.</summary>
    public static string Current => Identify?.Invoke() ?? "local";

    /// <summary>The key of a caller with this subject (from a validated token) and address.</summary>
    public static string Of(string? subject, IPAddress? address) =>
        !string.IsNullOrEmpty(subject) ? "sub:" + subject
        : address is null ? "local"
        : "ip:" + (address.IsIPv4MappedToIPv6 ? address.MapToIPv4() : address);
}
