#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;

namespace __NAMESPACE__;

/// <summary>
/// An interpreter process (<see cref="McpScriptRunner"/>) that runs one script at a time: this program started
/// again with <see cref="McpScriptRunner.Flag"/>, with an empty environment (no setting, no secret), a hard limit on
/// its heap, and its stdin and stdout as the message channel. Processes are started ahead, and one whose script
/// ended with its result is kept for the next script (which runs in a new engine), so that a script does not wait
/// for the runtime to start; one whose script failed is ended.
/// </summary>
internal sealed class McpScriptProcess
{
    /// <summary>Longest message read from the interpreter: a result is cut to the result limit before it is sent.</summary>
    private static int MaxMessageLength => 2 * McpTools.MaxResultLength + 1024 * 1024;

    private readonly Process _process;
    private readonly SemaphoreSlim _writing = new(1, 1);
    private readonly StringBuilder _errors = new();

    private McpScriptProcess(McpScriptLimits limits)
    {
        var start = new ProcessStartInfo(Environment.ProcessPath ?? "dotnet")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            StandardOutputEncoding = new UTF8Encoding(false),
            StandardInputEncoding = new UTF8Encoding(false),
        };
        // Run through the dotnet host (dotnet Server.dll, dnx): the program's own assembly is its first argument.
        if (Path.GetFileNameWithoutExtension(start.FileName).Equals("dotnet", StringComparison.OrdinalIgnoreCase))
        {
            start.ArgumentList.Add(Assembly.GetEntryAssembly()!.Location);
        }
        start.ArgumentList.Add(McpScriptRunner.Flag);
        var root = Environment.GetEnvironmentVariable("DOTNET_ROOT");
        start.Environment.Clear();
        if (!string.IsNullOrEmpty(root))
        {
            start.Environment["DOTNET_ROOT"] = root;
        }
        // The interpreter's heap: the script's memory limit and room for the interpreter itself; past it, an
        // out-of-memory error ends the script (the live-memory limit is checked in the interpreter, McpScriptMemory).
        start.Environment["DOTNET_GCHeapHardLimit"] = "0x" + (((long)limits.MaxMemoryMb + __ROOM_MB__) * 1024 * 1024).ToString("X");
        start.Environment["DOTNET_gcServer"] = "0";
        start.Environment["DOTNET_gcConcurrent"] = "0";
        start.Environment["DOTNET_TieredPGO"] = "0";
        Limits = limits;
        _process = Process.Start(start) ?? throw new InvalidOperationException("the script interpreter did not start");
        _process.ErrorDataReceived += (_, line) =>
        {
            lock (_errors)
            {
                if (line.Data is { } text && _errors.Length < 4096)
                {
                    _errors.AppendLine(text);
                }
            }
        };
        _process.BeginErrorReadLine();
    }

    private McpScriptLimits Limits { get; }

    private static readonly object Pool = new();

    /// <summary>Warm interpreters (each has run a script before it counts as ready), waiting for a script.</summary>
    private static readonly Stack<McpScriptProcess> Idle = new();

    /// <summary>Scripts waiting for an interpreter (none was idle), first come first served.</summary>
    private static readonly Queue<TaskCompletionSource<McpScriptProcess>> Takers = new();

    private static McpScriptLimits _limits = new();
    private static int _alive;
    private static int _starting;
    private int _discarded;

    /// <summary>Most interpreters kept ready beyond the running scripts' own (and so started when the server starts).</summary>
    public const int Spare = 2;

    /// <summary>Most interpreters alive at once: one per running script and the spare ones.</summary>
    private static int Cap => McpScriptAdmission.Limits.MaxRunning + Spare;

    /// <summary>Interpreter processes alive now: running a script, ready, or starting.</summary>
    public static int Alive
    {
        get { lock (Pool) return _alive; }
    }

    /// <summary>Starts the spare interpreters ahead, so that the first scripts do not wait for one.</summary>
    public static void Prepare(McpScriptLimits limits)
    {
        lock (Pool)
        {
            _limits = limits;
            Fill(Spare);
        }
    }

    /// <summary>
    /// A warm interpreter for a script under <paramref name="limits"/>: an idle one, else the next that is ready
    /// (started now if none is starting for this script). Only admitted scripts take one
    /// (<see cref="McpScriptAdmission"/>), so the pool never holds more than their number and the spare ones.
    /// </summary>
    public static async Task<McpScriptProcess> TakeAsync(McpScriptLimits limits, CancellationToken cancellationToken)
    {
        TaskCompletionSource<McpScriptProcess> taker;
        lock (Pool)
        {
            _limits = limits;
            while (Idle.TryPop(out var idle))
            {
                if (!idle._process.HasExited && idle.Limits == limits)
                {
                    Fill();
                    return idle;
                }
                idle.Discard();
            }
            taker = new TaskCompletionSource<McpScriptProcess>(TaskCreationOptions.RunContinuationsAsynchronously);
            Takers.Enqueue(taker);
            if (_starting < Takers.Count(t => !t.Task.IsCompleted) && _alive < Cap)
            {
                Start();
            }
            Fill();
        }
        using var _ = cancellationToken.Register(() => taker.TrySetCanceled(cancellationToken));
        return await taker.Task.ConfigureAwait(false);
    }

    /// <summary>After a script that ended with its result: to the next script waiting, else kept ready, else ended.</summary>
    public static void Keep(McpScriptProcess process)
    {
        lock (Pool)
        {
            if (process._process.HasExited || process.Limits != _limits)
            {
                process.Discard();
                return;
            }
            Hand(process);
        }
    }

    /// <summary>A ready interpreter to the first script still waiting for one, else kept ready while spare ones are short.</summary>
    private static void Hand(McpScriptProcess process)
    {
        while (Takers.TryDequeue(out var taker))
        {
            if (taker.TrySetResult(process))
            {
                return;
            }
        }
        if (Idle.Count < Spare)
        {
            Idle.Push(process);
            return;
        }
        process.Discard();
    }

    /// <summary>
    /// Starts interpreters (within the cap) until <paramref name="ready"/> are ready or starting beyond the scripts
    /// waiting for one: one after a script took an interpreter (those whose scripts end well come back), the spare
    /// ones when the server starts.
    /// </summary>
    private static void Fill(int ready = 1)
    {
        while (_alive < Cap && Idle.Count + _starting - Takers.Count(t => !t.Task.IsCompleted) < ready)
        {
            Start();
        }
    }

    /// <summary>Starts an interpreter; it joins the pool once warm (its "ready" line), or fails the first waiting script.</summary>
    private static void Start()
    {
        _alive++;
        _starting++;
        var limits = _limits;
        _ = Task.Run(async () =>
        {
            McpScriptProcess? process = null;
            string? failure;
            try
            {
                process = new McpScriptProcess(limits);
                failure = await process.WarmAsync().ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is InvalidOperationException or System.ComponentModel.Win32Exception or IOException)
            {
                failure = exception.Message;
            }
            lock (Pool)
            {
                _starting--;
                if (failure is null && process is not null)
                {
                    Hand(process);
                    return;
                }
                if (process is null)
                {
                    _alive--;
                }
                else
                {
                    process.Discard();
                }
                while (Takers.TryDequeue(out var taker))
                {
                    if (taker.TrySetException(new McpScriptStartException($"the script interpreter did not start: {failure}")))
                    {
                        break;
                    }
                }
            }
        });
    }

    /// <summary>Waits for the interpreter's "ready" line (sent once its engine has run a first script): null, or why not.</summary>
    private async Task<string?> WarmAsync()
    {
        using var patience = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        try
        {
            var message = await ReceiveAsync(patience.Token).ConfigureAwait(false);
            return message?["ready"] is not null ? null : Crash();
        }
        catch (OperationCanceledException)
        {
            return "it was not ready within 60 s";
        }
    }

    /// <summary>Ends the interpreter and frees what it held; the pool starts another if spare ones are short.</summary>
    public void Discard()
    {
        Kill();
        if (Interlocked.Exchange(ref _discarded, 1) == 0)
        {
            _process.Dispose();
            _writing.Dispose();
            lock (Pool)
            {
                _alive--;
                Fill();
            }
        }
    }

    public async Task SendAsync(JsonObject message, CancellationToken cancellationToken)
    {
        await _writing.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            // Never half a line: a message is written whole once begun (the interpreter reads all the time, or is ended).
            await _process.StandardInput.WriteLineAsync(message.ToJsonString().AsMemory(), CancellationToken.None).ConfigureAwait(false);
            await _process.StandardInput.FlushAsync(CancellationToken.None).ConfigureAwait(false);
        }
        finally
        {
            _writing.Release();
        }
    }

    private readonly char[] _buffer = new char[16 * 1024];
    private int _start;
    private int _end;

    /// <summary>The interpreter's next message, or null when it ended without one (or sent one too long to read).</summary>
    public async Task<JsonObject?> ReceiveAsync(CancellationToken cancellationToken)
    {
        var line = new StringBuilder();
        while (true)
        {
            if (_start == _end)
            {
                _start = 0;
                _end = await _process.StandardOutput.ReadAsync(_buffer.AsMemory(), cancellationToken).ConfigureAwait(false);
                if (_end == 0)
                {
                    return null;
                }
            }
            var newline = Array.IndexOf(_buffer, '\n', _start, _end - _start);
            var stop = newline < 0 ? _end : newline;
            line.Append(_buffer, _start, stop - _start);
            _start = newline < 0 ? _end : newline + 1;
            if (line.Length > MaxMessageLength)
            {
                Kill();
                return null;
            }
            if (newline >= 0)
            {
                return JsonNode.Parse(line.ToString()) as JsonObject;
            }
        }
    }

    /// <summary>Why the interpreter ended without an answer, as far as its exit tells.</summary>
    public string Crash()
    {
        Kill();
        _process.WaitForExit(2000);
        string errors;
        lock (_errors)
        {
            errors = _errors.ToString();
        }
        return errors.Contains("Stack overflow", StringComparison.Ordinal)
            ? "it nested values or calls so deep that the interpreter ran out of stack (SCRIPT_MAX_RECURSION)"
            : errors.Contains("OutOfMemory", StringComparison.Ordinal) || errors.Contains("out of memory", StringComparison.OrdinalIgnoreCase)
                ? McpScriptRunner.Exceeded
                : $"the interpreter stopped (exit code {(_process.HasExited ? _process.ExitCode : -1)})";
    }

    public void Kill()
    {
        if (_discarded != 0)
        {
            return;
        }
        try
        {
            _process.Kill(entireProcessTree: true);
        }
        catch (InvalidOperationException)
        {
            // already ended
        }
    }
}

/// <summary>No interpreter process could be started for a script.</summary>
internal sealed class McpScriptStartException(string message) : Exception(message);
