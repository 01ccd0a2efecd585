#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using ModelContextProtocol;
using ModelContextProtocol.Protocol;
using ModelContextProtocol.Server;
using ApiSecrets = global::__CLIENT_NAMESPACE__.ApiSecrets;

namespace __NAMESPACE__;

/// <summary>
/// How a resource (McpResources) is read: through its operation's tool, so that credentials, the answer's length
/// limit, redaction and error messages are the tool's own. An answer the tool gives as <c>Error: …</c> (the API's
/// reason, or why no answer came) is an MCP error with that message, which the client shows. Each read writes an
/// audit line beside the tool calls' (<see cref="McpAudit"/>).
/// </summary>
public static class McpResourceSupport
{
    private const string ErrorPrefix = "Error: ";

    private static ILogger? log;

    /// <summary>
    /// The GET operations of <see cref="McpResources"/> as resources (--resources): read through their tools; a URI whose
    /// values do not fit is invalid params.
    /// </summary>
    public static IMcpServerBuilder WithOperationResources(this IMcpServerBuilder builder) =>
        builder.WithResources([typeof(McpResources)]).WithRequestFilters(filters => filters.AddReadResourceFilter(CheckReads));

    /// <summary>The resource's text: the tool's answer, secrets redacted; a failed call is an MCP error.</summary>
    public static async Task<string> ReadAsync(Task<string> answer)
    {
        var text = ApiSecrets.Redact(await answer.ConfigureAwait(false));
        if (text.StartsWith(ErrorPrefix, StringComparison.Ordinal))
        {
            throw new McpException(text[ErrorPrefix.Length..]);
        }
        return text;
    }

    /// <summary>
    /// The read-resource filter: a URI that matches a template but whose values do not fit its parameters (a word
    /// where a number goes) is answered as invalid params, saying which, instead of as an internal error; every read
    /// is timed and written to the audit log.
    /// </summary>
    public static McpRequestFilter<ReadResourceRequestParams, ReadResourceResult> CheckReads { get; } = next => async (context, cancellationToken) =>
    {
        var notes = McpTools.CallNotes.Current.Value = new McpTools.CallNotes();
        var started = Stopwatch.GetTimestamp();
        ReadResourceResult? result = null;
        var outcome = "failed";
        try
        {
            result = await next(context, cancellationToken);
            outcome = "ok";
            return result;
        }
        catch (McpException)
        {
            outcome = "error";
            throw;
        }
        catch (Exception exception) when (exception is FormatException or OverflowException or ArgumentException)
        {
            outcome = "error";
            var template = (context.MatchedPrimitive as McpServerResource)?.ProtocolResourceTemplate.UriTemplate;
            throw new McpProtocolException(ApiSecrets.Redact($"Invalid resource URI {context.Params?.Uri}: it does not fit {template}: {exception.Message}"), McpErrorCode.InvalidParams);
        }
        finally
        {
            McpTools.CallNotes.Current.Value = null;
            if (McpAudit.Enabled && Logger(context.Services) is { } logger && logger.IsEnabled(LogLevel.Information))
            {
                var name = (context.MatchedPrimitive as McpServerResource)?.ProtocolResourceTemplate.Name ?? "(unknown)";
                var bytes = result?.Contents.OfType<TextResourceContents>().Sum(content => (long)Encoding.UTF8.GetByteCount(content.Text)) ?? 0;
                Write(logger, name, outcome, notes.Status > 0 ? notes.Status : null, Stopwatch.GetElapsedTime(started), bytes);
            }
        }
    };

    private static ILogger? Logger(IServiceProvider? services) =>
        log ??= services?.GetService(typeof(ILoggerFactory)) is ILoggerFactory factory ? factory.CreateLogger(McpAudit.Category) : null;

    /// <summary>
    /// One JSON line, as a tool call's, with the resource's name where a call has the tool's. The URI is not written:
    /// its values are arguments, and the audit log writes no argument's value.
    /// </summary>
    private static void Write(ILogger log, string resource, string outcome, int? status, TimeSpan elapsed, long bytes)
    {
        (string Name, object? Value)[] fields =
        [
            ("time", DateTimeOffset.UtcNow.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture)),
            ("caller", McpCaller.Current),
            ("resource", resource),
            ("outcome", outcome),
            ("status", status),
            ("durationMs", Math.Round(elapsed.TotalMilliseconds, 1)),
            ("bytes", bytes),
        ];
        var entry = new Entry(JsonSerializer.Serialize(fields.ToDictionary(f => f.Name, f => f.Value)));
        entry.AddRange(fields.Select(f => new KeyValuePair<string, object?>(f.Name, f.Value)));
        log.Log(LogLevel.Information, new EventId(2, "ResourceRead"), entry, null, (state, _) => state.Line);
    }

    /// <summary>A line as a log entry: its text is the JSON line; its properties are the same fields.</summary>
    private sealed class Entry(string line) : List<KeyValuePair<string, object?>>
    {
        public string Line { get; } = line;

        public override string ToString() => Line;
    }
}
