#nullable enable

using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace __NAMESPACE__;

/// <summary>
/// The pool of interpreter processes: warm ones (each has run a first script before it counts as ready) wait for
/// scripts; a script admitted by <see cref="McpScriptAdmission"/> takes one, or waits for the next that is ready.
/// At most <see cref="McpScriptAdmissionLimits.MaxRunning"/> + <see cref="McpScriptAdmissionLimits.MaxLong"/> + <see cref="Spare"/> are alive at once.
/// </summary>
internal sealed partial class McpScriptProcess
{
    private static readonly object Pool = new();

    /// <summary>Warm interpreters (each has run a script before it counts as ready), waiting for a script.</summary>
    private static readonly Stack<McpScriptProcess> Idle = new();

    /// <summary>
    /// A script waiting for an interpreter (none was idle), with the number of the last interpreter started before
    /// it came: one of those that fails to start is replaced for it; one started for it that fails, fails it. Whether it
    /// waits in admission's long lane is asked when an interpreter comes ready.
    /// </summary>
    private readonly record struct Taker(TaskCompletionSource<McpScriptProcess> Answer, long Since, Func<bool> WaitsLong);

    /// <summary>Scripts waiting for an interpreter, first come first served within each lane (the first lane before the long one).</summary>
    private static readonly List<Taker> Takers = new();

    private static McpScriptLimits _limits = new();
    private static int _alive;
    private static int _starting;
    private static long _started;

    /// <summary>Most interpreters kept ready beyond the running scripts' own (and so started when the server starts).</summary>
    public const int Spare = 2;

    /// <summary>
    /// Most interpreters starting at once: one per core (at least 2). Each start is a runtime and an engine warming up;
    /// more at once only slow each other, and the first script waiting for one waits the longer.
    /// </summary>
    private static int MaxStarting => Math.Max(2, Environment.ProcessorCount);

    /// <summary>Most interpreters alive at once: one per running script (in either lane) and the spare ones.</summary>
    private static int Cap => McpScriptAdmission.Limits.MaxRunning + McpScriptAdmission.Limits.MaxLong + Spare;

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
    public static async Task<McpScriptProcess> TakeAsync(McpScriptLimits limits, Func<bool> waitsLong, CancellationToken cancellationToken)
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
            Takers.Add(new Taker(taker, _started, waitsLong));
            if (_starting < Waiting && _alive < Cap && _starting < MaxStarting)
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
            // A process that ran a long script runs at the lowest priority, which it cannot leave: it is not kept.
            if (process._process.HasExited || process.Limits != _limits || process._demoted)
            {
                process.Discard();
                return;
            }
            Hand(process);
        }
    }

    /// <summary>Set once the server has stopped: no interpreter is kept or started any more.</summary>
    private static bool _ended;

    /// <summary>When the server stops (after its drain): ends the interpreters kept ready; those still running a script end with it.</summary>
    public static void EndAll()
    {
        lock (Pool)
        {
            _ended = true;
            while (Idle.TryPop(out var idle))
            {
                idle.Discard(refill: false);
            }
        }
    }

    /// <summary>A ready interpreter to the first script still waiting for one, else kept ready while spare ones are short.</summary>
    private static void Hand(McpScriptProcess process)
    {
        if (_ended)
        {
            process.Discard(refill: false);
            return;
        }
        Takers.RemoveAll(t => t.Answer.Task.IsCompleted);
        // A script in the first lane before one that has already held its slot long (admission moved it to the long lane).
        var index = Takers.FindIndex(t => !t.WaitsLong());
        for (var at = index >= 0 ? index : 0; at < Takers.Count;)
        {
            var taker = Takers[at];
            Takers.RemoveAt(at);
            if (taker.Answer.TrySetResult(process))
            {
                return;
            }
            at = 0;
        }
        if (Idle.Count < Spare)
        {
            Idle.Push(process);
            return;
        }
        process.Discard();
    }

    /// <summary>
    /// Starts interpreters (within the caps) until <paramref name="ready"/> are ready or starting beyond the scripts
    /// waiting for one: one after a script took an interpreter (those whose scripts end well come back), the spare
    /// ones when the server starts, and those the cap on starting held back once a start ends.
    /// </summary>
    private static void Fill(int ready = 1)
    {
        while (!_ended && _alive < Cap && _starting < MaxStarting && Idle.Count + _starting - Waiting < ready)
        {
            Start();
        }
    }

    /// <summary>Scripts still waiting for an interpreter (those given up on by their callers left aside).</summary>
    private static int Waiting => Takers.Count(t => !t.Answer.Task.IsCompleted);

    /// <summary>Starts an interpreter; it joins the pool once warm (its "ready" line), or fails the first waiting script.</summary>
    private static void Start()
    {
        _alive++;
        _starting++;
        var number = ++_started;
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
            catch (Exception exception) when (exception is InvalidOperationException or Win32Exception or IOException)
            {
                failure = exception.Message;
            }
            lock (Pool)
            {
                _starting--;
                if (failure is null && process is not null)
                {
                    Hand(process);
                    Fill();
                    return;
                }
                if (process is null)
                {
                    _alive--;
                }
                else
                {
                    process.Discard(refill: false);
                }
                Failed(number, failure);
            }
        });
    }

    /// <summary>
    /// After interpreter <paramref name="number"/> failed to start: the first script waiting gets a new one if that
    /// one was started before the script came (it may have been ended from outside while warming), else fails. Not
    /// started again otherwise: an interpreter that cannot start would be started forever.
    /// </summary>
    private static void Failed(long number, string? failure)
    {
        Takers.RemoveAll(t => t.Answer.Task.IsCompleted);
        if (Takers.Count == 0)
        {
            return;
        }
        var first = Takers[0];
        if (number <= first.Since && !_ended)
        {
            if (_starting < Waiting && _alive < Cap && _starting < MaxStarting)
            {
                Start();
            }
            return;
        }
        Takers.RemoveAt(0);
        first.Answer.TrySetException(new McpScriptStartException($"the script interpreter did not start: {failure}"));
    }
}
