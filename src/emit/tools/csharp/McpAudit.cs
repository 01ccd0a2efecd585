#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using ModelContextProtocol.Protocol;
using ModelContextProtocol.Server;

namespace __NAMESPACE__;

/// <summary>
/// One audit line per tool call, through the logging system (category <c>…Audit</c>): when, who called
/// (<see cref="McpCaller.Current"/>), which tool, the HTTP status of the API's answer (when a request was sent), how
/// long the call took, how many bytes the answer had, and the NAMES of the arguments given, never their values (a value
/// may be a credential or personal data). The line is one JSON object; its fields are also the entry's structured
/// properties, for a logging provider that keeps them. The same call is counted in <see cref="McpTelemetry"/>.
/// </summary>
internal static class McpAudit
{
    /// <summary>Whether lines are written (the calls are counted either way); see <see cref="McpTelemetrySetup"/>.</summary>
    public static bool Enabled { get; set; } = true;

    /// <summary>The category of the lines: this server's namespace and <c>.Audit</c>, for logging filters to route.</summary>
    public static readonly string Category = (typeof(McpAudit).Namespace ?? "McpServer") + ".Audit";

    private static ILogger? log;

    private static readonly AsyncLocal<Call?> Current = new();

    /// <summary>What the API's answers within one tool call were: the status of the last one, and how many there were.</summary>
    private sealed class Call
    {
        public int Status;
        public int Requests;
    }

    /// <summary>The outermost call-tool filter: times the call, notes its answer and writes the line.</summary>
    public static McpRequestFilter<CallToolRequestParams, CallToolResult> Calls { get; } = next => async (context, cancellationToken) =>
    {
        var call = Current.Value = new Call();
        var started = Stopwatch.GetTimestamp();
        CallToolResult? result = null;
        var asked = false;
        try
        {
            result = await next(context, cancellationToken);
            return result;
        }
        catch (InputRequiredException)
        {
            // The call asks the user first (confirmation): it is answered when the client calls again.
            asked = true;
            throw;
        }
        finally
        {
            Current.Value = null;
            var elapsed = Stopwatch.GetElapsedTime(started);
            var bytes = result?.Content.OfType<TextContentBlock>().Sum(block => (long)Encoding.UTF8.GetByteCount(block.Text)) ?? 0;
            var error = !asked && (result is null || result.IsError == true);
            // A name no tool has is counted as "(unknown)": a client cannot add metric series at will.
            var known = context.MatchedPrimitive is McpServerTool tool ? tool.ProtocolTool.Name : null;
            McpTelemetry.Record(known ?? "(unknown)", error, elapsed, bytes);
            if (Enabled && Logger(context.Services) is { } logger && logger.IsEnabled(LogLevel.Information))
            {
                Write(logger, known ?? Capped(context.Params?.Name ?? ""), call, context.Params?.Arguments?.Keys, asked ? "asked" : result is null ? "failed" : error ? "error" : "ok", elapsed, bytes);
            }
        }
    };

    private static ILogger? Logger(IServiceProvider? services) =>
        log ??= services?.GetService(typeof(ILoggerFactory)) is ILoggerFactory factory ? factory.CreateLogger(Category) : null;

    /// <summary>The most argument names a line lists, and the longest name it writes whole.</summary>
    private const int MaxNames = 50, MaxNameLength = 100;

    private static string Capped(string name) => name.Length <= MaxNameLength ? name : name[..MaxNameLength] + "…";

    private static void Write(ILogger log, string tool, Call call, IEnumerable<string>? arguments, string outcome, TimeSpan elapsed, long bytes)
    {
        var names = (arguments ?? []).Take(MaxNames).Select(Capped).ToArray();
        (string Name, object? Value)[] fields =
        [
            ("time", DateTimeOffset.UtcNow.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture)),
            ("caller", McpCaller.Current),
            ("tool", tool),
            ("outcome", outcome),
            ("status", call.Requests > 0 ? call.Status : null),
            ("requests", call.Requests),
            ("durationMs", Math.Round(elapsed.TotalMilliseconds, 1)),
            ("bytes", bytes),
            ("arguments", names),
        ];
        var entry = new Entry(JsonSerializer.Serialize(fields.ToDictionary(f => f.Name, f => f.Value)));
        foreach (var (name, value) in fields)
        {
            entry.Add(new(name, value is string[] list ? string.Join(",", list) : value));
        }
        log.Log(LogLevel.Information, new EventId(1, "ToolCall"), entry, null, (state, _) => state.Line);
    }

    /// <summary>
    /// A line as a log entry: its text is the JSON line; its properties are the same fields, for providers that keep
    /// structured properties (the argument names joined by commas, as such providers take scalar values).
    /// </summary>
    private sealed class Entry(string line) : List<KeyValuePair<string, object?>>
    {
        public string Line { get; } = line;

        public override string ToString() => Line;
    }

    /// <summary>
    /// Notes each answer of the API within a tool call (its status) for the call's audit line. Added to every HttpClient
    /// the server makes; outside a tool call it notes nothing.
    /// </summary>
    public sealed class StatusHandler : DelegatingHandler
    {
        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            var response = await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
            if (Current.Value is { } call)
            {
                Interlocked.Increment(ref call.Requests);
                call.Status = (int)response.StatusCode;
            }
            return response;
        }
    }
}
