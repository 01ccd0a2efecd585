#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
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
internal sealed partial class McpScriptProcess
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

    private int _discarded;

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

    private bool _demoted;

    /// <summary>
    /// The script has run long (SCRIPT_SHORT_SECONDS): its process runs at the lowest priority from now on, so that
    /// interpreters starting and short scripts get the processor first.
    /// </summary>
    public void Demote()
    {
        _demoted = true;
        try
        {
            _process.PriorityClass = ProcessPriorityClass.Idle;
        }
        catch (Exception exception) when (exception is InvalidOperationException or System.ComponentModel.Win32Exception or PlatformNotSupportedException)
        {
            // Exited meanwhile, or the system does not let it be changed: it runs on as it was.
        }
    }

    /// <summary>Ends the interpreter and frees what it held; the pool starts another if none is ready (unless <paramref name="refill"/> is false).</summary>
    public void Discard(bool refill = true)
    {
        Kill();
        if (Interlocked.Exchange(ref _discarded, 1) == 0)
        {
            _process.Dispose();
            _writing.Dispose();
            lock (Pool)
            {
                _alive--;
                if (refill)
                {
                    Fill();
                }
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
