#nullable enable

using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace __NAMESPACE__;

/// <summary>
/// Admission of run_script scripts: at most <see cref="McpScriptAdmissionLimits.MaxRunning"/> run at once, and on a
/// server with many callers (HTTP) at most <see cref="McpScriptAdmissionLimits.MaxRunningPerCaller"/> of them are one
/// caller's (<see cref="McpCaller.Current"/>); the others wait in a bounded queue, first come first served among
/// callers under their share, for at most <see cref="McpScriptAdmissionLimits.QueueWaitSeconds"/>. A script that finds
/// the queue (or its caller's half of it) full, or waits longer, is refused at once with a "busy" message.
/// </summary>
internal static class McpScriptAdmission
{
    /// <summary>The limits; the host sets them from configuration before the first script.</summary>
    public static McpScriptAdmissionLimits Limits { get; set; } = new();

    private static readonly object Gate = new();
    private static readonly LinkedList<Waiter> Queue = new();
    private static readonly Dictionary<string, Share> Callers = new();
    private static int _running;

    /// <summary>Scripts running now.</summary>
    public static int Running
    {
        get { lock (Gate) return _running; }
    }

    /// <summary>Scripts waiting for a slot now.</summary>
    public static int Waiting
    {
        get { lock (Gate) return Queue.Count; }
    }

    /// <summary>Interpreter processes alive now (running a script, ready, or starting).</summary>
    public static int PoolSize => McpScriptProcess.Alive;

    /// <summary>Callers are told apart only where there are many (an HTTP server identifies each request's caller).</summary>
    private static bool Shared => McpCaller.Identify is not null;

    private static int PerCallerRunning(McpScriptAdmissionLimits limits) => Shared ? Math.Min(limits.MaxRunningPerCaller, limits.MaxRunning) : limits.MaxRunning;

    private static int PerCallerWaiting(McpScriptAdmissionLimits limits) => Shared ? Math.Max(1, limits.QueueLength / 2) : limits.QueueLength;

    /// <summary>
    /// A slot for one script of <paramref name="caller"/>, once one is free: the slot (give it back by disposing it),
    /// or null and why not (the answer to give, "busy: …").
    /// </summary>
    public static async Task<(Slot? Slot, string? Refusal)> EnterAsync(string caller, CancellationToken cancellationToken)
    {
        var limits = Limits;
        Waiter waiter;
        lock (Gate)
        {
            var share = ShareOf(caller);
            if (_running < limits.MaxRunning && share.Running < PerCallerRunning(limits))
            {
                Admit(share);
                return (new Slot(caller), null);
            }
            if (Queue.Count >= limits.QueueLength)
            {
                Forget(caller, share);
                return (null, $"busy: {_running} scripts running, {Queue.Count} waiting; try again in a few seconds");
            }
            if (share.Waiting >= PerCallerWaiting(limits))
            {
                Forget(caller, share);
                return (null, $"busy: this caller has {share.Running} scripts running and {share.Waiting} waiting, its share (SCRIPT_MAX_RUNNING_PER_CALLER); try again in a few seconds");
            }
            waiter = new Waiter(share);
            waiter.Node = Queue.AddLast(waiter);
            share.Waiting++;
        }
        try
        {
            await waiter.Admitted.Task.WaitAsync(TimeSpan.FromSeconds(limits.QueueWaitSeconds), cancellationToken).ConfigureAwait(false);
            return (new Slot(caller), null);
        }
        catch (Exception exception) when (exception is TimeoutException or OperationCanceledException)
        {
            lock (Gate)
            {
                if (waiter.Node.List is not null)
                {
                    Queue.Remove(waiter.Node);
                    waiter.Share.Waiting--;
                    Forget(caller, waiter.Share);
                    if (exception is OperationCanceledException)
                    {
                        throw;
                    }
                    return (null, $"busy: no slot came free within {limits.QueueWaitSeconds:0.###} s (SCRIPT_QUEUE_WAIT_SECONDS); {_running} scripts running, {Queue.Count} waiting; try again in a few seconds");
                }
            }
            // Admitted meanwhile: the slot is this call's.
            if (exception is OperationCanceledException)
            {
                Leave(caller);
                throw;
            }
            return (new Slot(caller), null);
        }
    }

    /// <summary>Gives a slot back, and hands it to the first waiter whose caller is under its share.</summary>
    private static void Leave(string caller)
    {
        lock (Gate)
        {
            var share = ShareOf(caller);
            _running--;
            share.Running--;
            Forget(caller, share);
            var limits = Limits;
            for (var node = Queue.First; node is not null && _running < limits.MaxRunning;)
            {
                var next = node.Next;
                if (node.Value.Share.Running < PerCallerRunning(limits))
                {
                    Queue.Remove(node);
                    node.Value.Share.Waiting--;
                    Admit(node.Value.Share);
                    node.Value.Admitted.TrySetResult();
                }
                node = next;
            }
        }
    }

    private static void Admit(Share share)
    {
        _running++;
        share.Running++;
    }

    private static Share ShareOf(string caller)
    {
        if (!Callers.TryGetValue(caller, out var share))
        {
            Callers[caller] = share = new Share();
        }
        return share;
    }

    private static void Forget(string caller, Share share)
    {
        if (share.Running == 0 && share.Waiting == 0)
        {
            Callers.Remove(caller);
        }
    }

    /// <summary>One caller's scripts running and waiting.</summary>
    private sealed class Share
    {
        public int Running;
        public int Waiting;
    }

    private sealed class Waiter(Share share)
    {
        public Share Share { get; } = share;
        public LinkedListNode<Waiter> Node { get; set; } = null!;
        public TaskCompletionSource Admitted { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }

    /// <summary>A running script's slot; disposing it gives it back.</summary>
    public sealed class Slot(string caller) : IDisposable
    {
        private int _left;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _left, 1) == 0)
            {
                Leave(caller);
            }
        }
    }
}

/// <summary>How many scripts run and wait (see README: SCRIPT_MAX_RUNNING, SCRIPT_QUEUE_*, SCRIPT_MAX_RUNNING_PER_CALLER).</summary>
internal sealed record McpScriptAdmissionLimits
{
    /// <summary>The default number of scripts running at once: one per core, at least 2.</summary>
    public static int DefaultMaxRunning => Math.Max(2, Environment.ProcessorCount);

    public int MaxRunning { get; init; } = DefaultMaxRunning;
    public int QueueLength { get; init; } = __QUEUE_PER_RUNNING__ * DefaultMaxRunning;
    public double QueueWaitSeconds { get; init; } = __QUEUE_WAIT_SECONDS__;
    public int MaxRunningPerCaller { get; init; } = Math.Max(1, DefaultMaxRunning / 2);
}
