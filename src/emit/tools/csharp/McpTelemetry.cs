#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace __NAMESPACE__;

/// <summary>
/// What the server reports to OpenTelemetry: the names of the sources Program.cs subscribes to (the MCP SDK's spans and
/// metrics, this server's meter), this server's counters and histograms per tool, and gauges of code mode's scripts.
/// Nothing is measured unless a listener (OpenTelemetry, <c>dotnet-counters</c>) subscribes.
/// </summary>
internal static class McpTelemetry
{
    /// <summary>The ModelContextProtocol SDK's activity source and meter: a span per request (<c>tools/call get_book</c>,
    /// with <c>mcp.method.name</c> and <c>gen_ai.tool.name</c>) and <c>mcp.server.operation.duration</c>.</summary>
    public const string SdkName = "Experimental.ModelContextProtocol";

    /// <summary>This server's meter, named after its namespace.</summary>
    public static readonly string MeterName = typeof(McpTelemetry).Namespace ?? "McpServer";

    private static readonly Meter Meter = new(MeterName);

    private static readonly Counter<long> Calls = Meter.CreateCounter<long>("mcp.tool.calls", "{call}", "Tool calls answered, by tool and outcome.");

    private static readonly Counter<long> Errors = Meter.CreateCounter<long>("mcp.tool.errors", "{call}", "Tool calls answered with an error, by tool.");

    private static readonly Histogram<double> Durations = Meter.CreateHistogram<double>("mcp.tool.duration", "s", "How long tool calls took, by tool and outcome.");

    private static readonly Histogram<long> Sizes = Meter.CreateHistogram<long>("mcp.tool.answer.size", "By", "Bytes of the tool calls' answers (UTF-8 text), by tool.");

    /// <summary>Counts one tool call: its tool, whether it was an error, how long it took and how big its answer was.</summary>
    public static void Record(string tool, bool error, TimeSpan duration, long bytes)
    {
        var outcome = new KeyValuePair<string, object?>("outcome", error ? "error" : "ok");
        var name = new KeyValuePair<string, object?>("gen_ai.tool.name", tool);
        Calls.Add(1, name, outcome);
        if (error)
        {
            Errors.Add(1, name);
        }
        Durations.Record(duration.TotalSeconds, name, outcome);
        Sizes.Record(bytes, name);
    }

    private static readonly List<ObservableGauge<int>> Gauges = [];

    /// <summary>
    /// Code mode: gauges of the scripts running, the scripts waiting for an interpreter, and the interpreter pool's
    /// size, read from these delegates whenever the metrics are collected. Call once, at start.
    /// </summary>
    public static void ObserveScripts(Func<int> running, Func<int> waiting, Func<int> pool)
    {
        lock (Gauges)
        {
            Gauges.Add(Meter.CreateObservableGauge("mcp.scripts.running", running, "{script}", "Scripts running now."));
            Gauges.Add(Meter.CreateObservableGauge("mcp.scripts.waiting", waiting, "{script}", "Scripts waiting for an interpreter."));
            Gauges.Add(Meter.CreateObservableGauge("mcp.scripts.pool.size", pool, "{process}", "Interpreter processes in the pool."));
        }
    }

    /// <summary>
    /// A URL as spans may record it: scheme, host, port and path, each query value replaced by <c>Redacted</c> (an API
    /// key may travel in the query), without user information or fragment; text that is no absolute URL gives null.
    /// </summary>
    public static string? RedactedUrl(string url) =>
        Uri.TryCreate(url, UriKind.Absolute, out var uri)
            ? uri.GetComponents(UriComponents.SchemeAndServer | UriComponents.Path, UriFormat.UriEscaped) + RedactedQuery(uri.Query)
            : null;

    /// <summary>A query (<c>?a=1&amp;b</c>) with each value replaced by <c>Redacted</c>; a name alone may be a secret too.</summary>
    public static string RedactedQuery(string query)
    {
        var text = query.TrimStart('?');
        if (text.Length == 0)
        {
            return "";
        }
        var pairs = text.Split('&');
        for (var i = 0; i < pairs.Length; i++)
        {
            var equals = pairs[i].IndexOf('=');
            pairs[i] = equals >= 0 ? pairs[i][..equals] + "=Redacted" : pairs[i] == "*" ? "*" : "Redacted";
        }
        return "?" + string.Join("&", pairs);
    }

    /// <summary>Rewrites a finished span's <c>url.full</c> and <c>url.query</c> with <see cref="RedactedUrl"/> and <see cref="RedactedQuery"/>.</summary>
    public static void RedactUrl(Activity activity)
    {
        if (activity.GetTagItem("url.full") is string full)
        {
            activity.SetTag("url.full", RedactedUrl(full));
        }
        if (activity.GetTagItem("url.query") is string query)
        {
            activity.SetTag("url.query", RedactedQuery(query));
        }
    }
}
