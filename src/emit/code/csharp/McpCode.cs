#nullable enable

using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using ModelContextProtocol.Protocol;
using ModelContextProtocol.Server;
using __CLIENT_NAMESPACE__;

namespace __NAMESPACE__;

/// <summary>
/// Code mode's run_script: the model's JavaScript runs in an interpreter process of its own
/// (<see cref="McpScriptRunner"/>), and each <c>api.&lt;name&gt;(args)</c> it makes is answered here by that
/// operation's tool, exactly as call_operation would answer it (checks, credentials, limits, redaction).
/// </summary>
[McpServerToolType]
internal static class McpCode
{
    /// <summary>The limits of one script; the host sets them from configuration.</summary>
    public static McpScriptLimits Limits { get; set; } = new();

    /// <summary>
    /// Code mode's tools: search_operations, describe_operation (with each operation's signature) and run_script, which
    /// runs the model's JavaScript against the operations of <see cref="McpTools"/>; warm interpreter processes for
    /// scripts are started once the host has.
    /// </summary>
    public static IMcpServerBuilder WithCodeTools(this IMcpServerBuilder builder)
    {
        // search_operations with detail "full" gives each hit's signature, as scripts call it.
        McpDiscovery.SignatureOf = SignatureOf;
        // Scripts running, waiting and the interpreters alive, as gauges (exported with OTEL_EXPORTER_OTLP_ENDPOINT).
        McpTelemetry.ObserveScripts(() => McpScriptAdmission.Running, () => McpScriptAdmission.Waiting, () => McpScriptAdmission.PoolSize);
        builder.Services.AddMcpStartup(_ => McpScriptProcess.Prepare(Limits));
        return builder.WithSearchTools([typeof(McpDiscovery), typeof(McpCode)]);
    }

    /// <summary>
    /// With --auth oauth: why the caller may not call an operation (its token lacks the scopes the operation needs), or
    /// null; a script's call it refuses is rejected with that message and status 403, and nothing is sent.
    /// </summary>
    public static Func<string, string?>? Admit { get; set; }

    /// <summary>
    /// With --confirm: asks the user before a script that names destructive operations runs (by throwing the question),
    /// and returns why it may not run, or null; the host sets it.
    /// </summary>
    public static Func<RequestContext<CallToolRequestParams>, string, string?>? Confirm { get; set; }

    /// <summary>This JSON goes to the model, never into HTML: characters such as ' and &lt; stay as they are.</summary>
    private static readonly JsonSerializerOptions Output = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

__DESCRIBE_TOOL__
    public static string DescribeOperation(RequestContext<CallToolRequestParams> context, string name)
    {
        var described = McpDiscovery.DescribeOperation(context, name);
        if (JsonNode.Parse(described) is not JsonObject operation || SignatureOf(name) is not { } signature)
        {
            return described;
        }
        operation["signature"] = signature;
        return operation.ToJsonString(Output);
    }

    /// <summary>An operation's signature as a script calls it, or null for a name that is none.</summary>
    public static string? SignatureOf(string name) => Signatures.Value.TryGetValue(name, out var signature) ? signature : null;

    /// <summary>Each operation's signature as a script calls it, by name (McpSignatures.json, written by the generator).</summary>
    private static readonly Lazy<Dictionary<string, string>> Signatures = new(() =>
    {
        using var stream = typeof(McpCode).Assembly.GetManifestResourceStream("McpSignatures.json")
            ?? throw new InvalidOperationException("McpSignatures.json is not embedded in the assembly.");
        return JsonSerializer.Deserialize<Dictionary<string, string>>(stream) ?? new();
    });

__RUN_TOOL__
    public static async Task<CallToolResult> RunScript(RequestContext<CallToolRequestParams> context, string code, CancellationToken cancellationToken = default)
    {
        if (Confirm?.Invoke(context, code) is { } refused)
        {
            return McpToolSupport.ErrorResult(refused);
        }
        var limits = Limits;
        var waited = Stopwatch.StartNew();
        var (slot, refusal) = await McpScriptAdmission.EnterAsync(McpCaller.Current, cancellationToken).ConfigureAwait(false);
        if (slot is null)
        {
            return McpToolSupport.ErrorResult($"Error: {refusal}");
        }
        using var _ = slot;
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        // Admission may stop it, waiting for its interpreter or running, should it hold its slot long while others
        // wait and the long-running slots are taken.
        slot.OnStop(() =>
        {
            try
            {
                stop.Cancel();
            }
            catch (ObjectDisposedException)
            {
                // It had ended already.
            }
        });
        McpScriptProcess script;
        try
        {
            script = await McpScriptProcess.TakeAsync(limits, () => slot.Long, stop.Token).ConfigureAwait(false);
        }
        catch (McpScriptStartException exception)
        {
            return Failed(exception.Message);
        }
        catch (OperationCanceledException) when (slot.Stopped && !cancellationToken.IsCancellationRequested)
        {
            return McpToolSupport.ErrorResult($"Error: {McpScriptAdmission.StoppedReason(McpScriptAdmission.Limits, running: false)}");
        }
        // The time limit counts from here: waiting for a slot and an interpreter is not the script's time.
        var waitedMs = waited.ElapsedMilliseconds;
        stop.CancelAfter(TimeSpan.FromSeconds(limits.TimeoutSeconds));
        slot.Start();
        // Once it has run long, its process runs at the lowest priority: interpreters starting and short scripts come first.
        using var demote = new Timer(_ => script.Demote(), null, TimeSpan.FromSeconds(McpScriptAdmission.Limits.ShortSeconds), Timeout.InfiniteTimeSpan);
        var finished = false;
        var logs = new JsonArray();
        var calls = new List<Task>();
        var made = 0;
        try
        {
            await script.SendAsync(new JsonObject
            {
                ["code"] = code,
                ["tools"] = new JsonArray(McpSearch.Index.Operations.Select(o => (JsonNode?)JsonValue.Create(o.Name)).ToArray()),
                ["limits"] = new JsonObject
                {
                    ["seconds"] = limits.TimeoutSeconds,
                    ["statements"] = limits.MaxStatements,
                    ["recursion"] = limits.MaxRecursion,
                    ["memoryMb"] = limits.MaxMemoryMb,
                    ["calls"] = limits.MaxCalls,
                    ["resultLength"] = McpTools.MaxResultLength,
                },
            }, stop.Token).ConfigureAwait(false);
            while (true)
            {
                var message = await script.ReceiveAsync(stop.Token).ConfigureAwait(false);
                if (message is null)
                {
                    return Failed(script.Crash());
                }
                if (message["log"] is { } line)
                {
                    logs.Add(line.GetValue<string>());
                }
                else if (message["call"] is { } id)
                {
                    if (++made > limits.MaxCalls)
                    {
                        return Failed($"it made more than {limits.MaxCalls} API calls, the limit (SCRIPT_MAX_CALLS)");
                    }
                    calls.Add(AnswerAsync(context, script, id.GetValue<int>(), message["name"]!.GetValue<string>(), message["arguments"]!.GetValue<string>(), stop.Token));
                }
                else if (message["failed"] is { } failed)
                {
                    return Failed(failed.GetValue<string>());
                }
                else
                {
                    finished = true;
                    return Answer(message, logs, waitedMs);
                }
            }
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return slot.Stopped
                ? McpToolSupport.ErrorResult($"Error: {McpScriptAdmission.StoppedReason(McpScriptAdmission.Limits, slot.Running)}")
                : Failed($"it ran longer than the time limit of {limits.TimeoutSeconds:0.###} s (SCRIPT_TIMEOUT_SECONDS)");
        }
        finally
        {
            // Nothing the script started goes on after its answer: its calls are cancelled, and its process ends unless
            // the script ended with its result (then the process waits for another script, in a new realm).
            stop.Cancel();
            await Task.WhenAll(calls).ConfigureAwait(false);
            if (finished)
            {
                McpScriptProcess.Keep(script);
            }
            else
            {
                script.Discard();
            }
        }
    }

    private static CallToolResult Failed(string why) => McpToolSupport.ErrorResult(ApiSecrets.Redact($"Error: script failed: {why}"));

    /// <summary>
    /// {"result": …, "logs": […]}, cut at the result limit like any answer; with "waitedMs" first when the script
    /// waited for a slot or an interpreter before it started (1 ms or more).
    /// </summary>
    private static CallToolResult Answer(JsonObject message, JsonArray logs, long waitedMs)
    {
        var result = message["result"]!.GetValue<string>();
        var length = message["length"]!.GetValue<int>();
        var waitedText = waitedMs > 0 ? $"\"waitedMs\":{waitedMs}," : "";
        var text = $"{{{waitedText}\"result\":{result},\"logs\":{logs.ToJsonString(Output)}}}";
        // The answer's length had the interpreter sent the whole result, not only its first part.
        var total = text.Length - result.Length + length;
        if (result.Length < length || text.Length > McpTools.MaxResultLength)
        {
            var cut = text.Length > McpTools.MaxResultLength ? text[..McpTools.MaxResultLength] : text;
            if (cut.Length > 0 && char.IsHighSurrogate(cut[^1]))
            {
                cut = cut[..^1];
            }
            text = cut + $"\n[truncated: the result has {total} characters and the limit is {McpTools.MaxResultLength}; return less, e.g. only the fields you need]";
        }
        else if (message["logsCut"]?.GetValue<bool>() == true)
        {
            text += "\n[logs cut: the script logged more than the result limit; later lines were dropped]";
        }
        return new CallToolResult { Content = [new TextContentBlock { Text = ApiSecrets.Redact(text) }] };
    }

    /// <summary>One api.&lt;name&gt;(args) of the script, answered as that operation's tool answers it.</summary>
    private static async Task AnswerAsync(RequestContext<CallToolRequestParams> context, McpScriptProcess script, int id, string name, string arguments, CancellationToken cancellationToken)
    {
        JsonObject answer;
        try
        {
            if (Admit?.Invoke(name) is { } refused)
            {
                await script.SendAsync(new JsonObject { ["id"] = id, ["error"] = refused, ["status"] = 403 }, cancellationToken).ConfigureAwait(false);
                return;
            }
            using var document = JsonDocument.Parse(arguments);
            var (result, status) = await McpDiscovery.CallAsync(context, name, document.RootElement, cancellationToken).ConfigureAwait(false);
            var text = result.Content.OfType<TextContentBlock>().FirstOrDefault()?.Text ?? "";
            if (result.IsError == true)
            {
                answer = new JsonObject { ["id"] = id, ["error"] = text };
                if (status > 0)
                {
                    answer["status"] = status;
                }
            }
            else
            {
                answer = new JsonObject { ["id"] = id, ["value"] = IsJson(text) ? text : JsonSerializer.Serialize(text, Output) };
            }
            await script.SendAsync(answer, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is OperationCanceledException or IOException or ObjectDisposedException or InvalidOperationException)
        {
            // The script has ended (its answer given, or its process gone): nobody is waiting for this answer.
        }
    }

    /// <summary>Whether an answer is whole JSON (an answer cut at the result limit is not, and is given as text).</summary>
    private static bool IsJson(string text)
    {
        try
        {
            using var _ = JsonDocument.Parse(text, new JsonDocumentOptions { MaxDepth = 256 });
            return true;
        }
        catch (JsonException)
        {
            return false;
        }
    }
}

/// <summary>The limits of one script (see README: SCRIPT_* settings).</summary>
internal sealed record McpScriptLimits
{
    public double TimeoutSeconds { get; init; } = __TIMEOUT_SECONDS__;
    public double MaxStatements { get; init; } = __MAX_STATEMENTS__;
    public int MaxRecursion { get; init; } = __MAX_RECURSION__;
    public double MaxMemoryMb { get; init; } = __MAX_MEMORY_MB__;
    public int MaxCalls { get; init; } = __MAX_CALLS__;
}
