#nullable enable

using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace __NAMESPACE__;

/// <summary>
/// Admission of run_script scripts: at most <see cref="McpScriptAdmissionLimits.MaxRunning"/> run at once, and on a
/// server with many callers (HTTP) at most <see cref="McpScriptAdmissionLimits.MaxRunningPerCaller"/> of them are one
/// caller's (<see cref="McpCaller.Current"/>); the others wait in a bounded queue, first come first served among
/// callers under their share, for at most <see cref="McpScriptAdmissionLimits.QueueWaitSeconds"/>. A script that finds
/// the queue (or its caller's half of it) full, or waits longer, is refused at once with a "busy" message.
/// <para>
/// Long scripts cannot crowd out short ones: while scripts wait, one that has held its slot longer than
/// <see cref="McpScriptAdmissionLimits.ShortSeconds"/> moves to a lane of its own for long-running scripts (as many
/// slots as the running ones, one caller's share of them as of those), which frees its slot for the next script; where
/// that lane (or its caller's share of it) is full, it is stopped and answers "busy". A slot's time counts from its
/// admission, waiting for an interpreter included: a script that waits for one (they start slowly on a busy machine)
/// holds a slot as a running one does. Where some must be stopped, those still waiting for an interpreter go first
/// (they lose no work), and an interpreter that comes ready goes to a script in the first lane before one in the long
/// lane (<see cref="Slot.Long"/>). (A script that has run that long
/// also runs at the lowest priority from then on, whether or not others wait: see <see cref="McpCode"/>.) Four callers spinning in loops
/// on a two-core server so hold two long slots until their time limit ends them, two more are stopped, and a fifth
/// caller's quick script runs at once. At most twice the running slots are ever taken, so the interpreters alive stay
/// within twice the running slots and the spare ones.
/// </para>
/// </summary>
internal static class McpScriptAdmission
{
    /// <summary>The limits; the host sets them from configuration before the first script.</summary>
    public static McpScriptAdmissionLimits Limits { get; set; } = new();

    /// <summary>
    /// Where set (an HTTP server whose replicas share state), a caller's share across the deployment, taken before a
    /// slot here: (caller, its share running, its share waiting, how long it may wait) → a lease held while the script
    /// runs, or null when the share stayed taken.
    /// </summary>
    public static Func<string, int, int, TimeSpan, CancellationToken, Task<IDisposable?>>? DeploymentShare { get; set; }

    private static readonly object Gate = new();
    private static readonly LinkedList<Waiter> Queue = new();
    private static readonly Dictionary<string, Share> Callers = new();
    private static readonly List<Slot> Admitted = new();
    private static int _running;
    private static int _long;
    private static Timer? _watch;

    /// <summary>How often, while scripts wait, the running ones are looked at for those that have run long.</summary>
    private static readonly TimeSpan WatchEvery = TimeSpan.FromMilliseconds(50);

    /// <summary>Scripts running now, in either lane.</summary>
    public static int Running
    {
        get { lock (Gate) return _running + _long; }
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
        if (!Shared || DeploymentShare is not { } deployment)
        {
            return await EnterHereAsync(caller, limits, cancellationToken).ConfigureAwait(false);
        }
        var share = await deployment(caller, PerCallerRunning(limits), PerCallerWaiting(limits), TimeSpan.FromSeconds(limits.QueueWaitSeconds), cancellationToken).ConfigureAwait(false);
        if (share is null)
        {
            return (null, "busy: this caller's scripts running on the replicas of this server take its share (SCRIPT_MAX_RUNNING_PER_CALLER); try again in a few seconds");
        }
        try
        {
            var (slot, refusal) = await EnterHereAsync(caller, limits, cancellationToken).ConfigureAwait(false);
            if (slot is null)
            {
                share.Dispose();
                return (null, refusal);
            }
            slot.Deployment = share;
            return (slot, null);
        }
        catch
        {
            share.Dispose();
            throw;
        }
    }

    /// <summary>A slot on this server, as <see cref="EnterAsync"/> says.</summary>
    private static async Task<(Slot? Slot, string? Refusal)> EnterHereAsync(string caller, McpScriptAdmissionLimits limits, CancellationToken cancellationToken)
    {
        Waiter waiter;
        lock (Gate)
        {
            var share = ShareOf(caller);
            if (_running < limits.MaxRunning && share.Running < PerCallerRunning(limits))
            {
                return (Admit(caller, share), null);
            }
            if (Queue.Count >= limits.QueueLength)
            {
                Forget(caller, share);
                return (null, $"busy: {_running + _long} scripts running, {Queue.Count} waiting; try again in a few seconds");
            }
            if (share.Waiting >= PerCallerWaiting(limits))
            {
                Forget(caller, share);
                return (null, $"busy: this caller has {share.Running + share.Long} scripts running and {share.Waiting} waiting, its share (SCRIPT_MAX_RUNNING_PER_CALLER); try again in a few seconds");
            }
            waiter = new Waiter(caller, share);
            waiter.Node = Queue.AddLast(waiter);
            share.Waiting++;
            _watch ??= new Timer(_ => Rebalance(), null, TimeSpan.Zero, WatchEvery);
        }
        try
        {
            return (await waiter.Admitted.Task.WaitAsync(TimeSpan.FromSeconds(limits.QueueWaitSeconds), cancellationToken).ConfigureAwait(false), null);
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
                    return (null, $"busy: no slot came free within {limits.QueueWaitSeconds:0.###} s (SCRIPT_QUEUE_WAIT_SECONDS); {_running + _long} scripts running, {Queue.Count} waiting; try again in a few seconds");
                }
            }
            // Admitted meanwhile: the slot is this call's.
            var slot = waiter.Admitted.Task.Result;
            if (exception is OperationCanceledException)
            {
                slot.Dispose();
                throw;
            }
            return (slot, null);
        }
    }

    /// <summary>
    /// While scripts wait that a slot would let in: each script that has held its slot longer than the short time moves
    /// to the long lane, or is stopped where that lane (or its caller's share of it) is full; then the waiters get the slots.
    /// </summary>
    private static void Rebalance()
    {
        var stop = new List<Slot>();
        lock (Gate)
        {
            var limits = Limits;
            if (Queue.Count == 0)
            {
                _watch?.Dispose();
                _watch = null;
                return;
            }
            var wanted = Queue.Count(w => w.Share.Running < PerCallerRunning(limits));
            var now = Environment.TickCount64;
            // Those that have held their slot long: the running ones first to the long lane (then those still waiting
            // for an interpreter), and where the long lane is full, those still waiting are stopped first.
            var held = Admitted.Where(s => !s.Long && !s.Stopped && now - s.AdmittedAt >= limits.ShortSeconds * 1000)
                .OrderBy(s => s.Running ? 0 : 1).ThenBy(s => s.AdmittedAt).ToList();
            foreach (var slot in held.ToList())
            {
                if (wanted == 0 || _long >= limits.MaxLong)
                {
                    break;
                }
                if (slot.Share.Long >= PerCallerRunning(limits))
                {
                    continue;
                }
                slot.Long = true;
                _running--;
                slot.Share.Running--;
                _long++;
                slot.Share.Long++;
                held.Remove(slot);
                wanted--;
            }
            foreach (var slot in held.OrderBy(s => s.Running ? 1 : 0).ThenBy(s => s.AdmittedAt))
            {
                if (wanted == 0)
                {
                    break;
                }
                // Its slot comes free when its call ends (stopped, it ends at once).
                slot.Stopped = true;
                stop.Add(slot);
                wanted--;
            }
            AdmitWaiters(limits);
        }
        foreach (var slot in stop)
        {
            slot.Stop?.Invoke();
        }
    }

    /// <summary>Gives a slot back, and hands it to the first waiters whose callers are under their share.</summary>
    private static void Leave(Slot slot)
    {
        lock (Gate)
        {
            Admitted.Remove(slot);
            if (slot.Long)
            {
                _long--;
                slot.Share.Long--;
            }
            else
            {
                _running--;
                slot.Share.Running--;
            }
            Forget(slot.Caller, slot.Share);
            AdmitWaiters(Limits);
        }
    }

    private static void AdmitWaiters(McpScriptAdmissionLimits limits)
    {
        for (var node = Queue.First; node is not null && _running < limits.MaxRunning;)
        {
            var next = node.Next;
            if (node.Value.Share.Running < PerCallerRunning(limits))
            {
                Queue.Remove(node);
                node.Value.Share.Waiting--;
                node.Value.Admitted.TrySetResult(Admit(node.Value.Caller, node.Value.Share));
            }
            node = next;
        }
    }

    private static Slot Admit(string caller, Share share)
    {
        _running++;
        share.Running++;
        var slot = new Slot(caller, share);
        Admitted.Add(slot);
        return slot;
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
        if (share.Running == 0 && share.Waiting == 0 && share.Long == 0)
        {
            Callers.Remove(caller);
        }
    }

    /// <summary>One caller's scripts running (in the first lane and the long one) and waiting.</summary>
    internal sealed class Share
    {
        public int Running;
        public int Long;
        public int Waiting;
    }

    private sealed class Waiter(string caller, Share share)
    {
        public string Caller { get; } = caller;
        public Share Share { get; } = share;
        public LinkedListNode<Waiter> Node { get; set; } = null!;
        public TaskCompletionSource<Slot> Admitted { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }

    /// <summary>A running script's slot; disposing it gives it back.</summary>
    public sealed class Slot : IDisposable
    {
        private int _left;

        internal Slot(string caller, Share share)
        {
            Caller = caller;
            Share = share;
            AdmittedAt = Environment.TickCount64;
        }

        internal string Caller { get; }
        internal Share Share { get; }
        internal long AdmittedAt { get; }
        internal Action? Stop { get; private set; }

        /// <summary>The script has its interpreter and runs.</summary>
        internal bool Running { get; private set; }

        /// <summary>Its place in its caller's share across the deployment, given back with the slot.</summary>
        internal IDisposable? Deployment { get; set; }

        private volatile bool _inLongLane;

        /// <summary>
        /// In the lane of long-running scripts. Set under the admission's lock; read by the pool under its own (an
        /// interpreter that comes ready goes to the first lane first), hence volatile.
        /// </summary>
        internal bool Long
        {
            get => _inLongLane;
            set => _inLongLane = value;
        }

        /// <summary>True when the script was stopped to let another run: it had run long, and the long lane was full.</summary>
        public bool Stopped { get; internal set; }

        /// <summary>From admission: <paramref name="stop"/> ends the script (or its wait for an interpreter), should it be stopped.</summary>
        public void OnStop(Action stop)
        {
            bool stopped;
            lock (Gate)
            {
                Stop = stop;
                stopped = Stopped;
            }
            if (stopped)
            {
                stop();
            }
        }

        /// <summary>The script starts now: it has its interpreter.</summary>
        public void Start()
        {
            lock (Gate)
            {
                Running = true;
            }
        }

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _left, 1) == 0)
            {
                Leave(this);
                Deployment?.Dispose();
            }
        }
    }

    /// <summary>Why a stopped script was stopped, its answer: it had run long, or waited long for an interpreter.</summary>
    public static string StoppedReason(McpScriptAdmissionLimits limits, bool running) => running
        ? StoppedRunning(limits)
        : $"busy: no script interpreter came free within {limits.ShortSeconds:0.###} s (SCRIPT_SHORT_SECONDS) while other scripts waited, and the slots for long-running scripts were taken; the script did not start. Try again in a few seconds";

    private static string StoppedRunning(McpScriptAdmissionLimits limits) =>
        $"busy: the script ran longer than {limits.ShortSeconds:0.###} s (SCRIPT_SHORT_SECONDS) while other scripts waited, and the slots for long-running scripts were taken ({limits.MaxLong} in all, or its caller's share of them); it was stopped so that they could run. Try again in a few seconds, or split the work into shorter scripts";
}

/// <summary>How many scripts run and wait (see README: SCRIPT_MAX_RUNNING, SCRIPT_QUEUE_*, SCRIPT_MAX_RUNNING_PER_CALLER, SCRIPT_SHORT_SECONDS).</summary>
internal sealed record McpScriptAdmissionLimits
{
    /// <summary>The default number of scripts running at once: one per core, at least 2.</summary>
    public static int DefaultMaxRunning => Math.Max(2, Environment.ProcessorCount);

    public int MaxRunning { get; init; } = DefaultMaxRunning;
    public int QueueLength { get; init; } = __QUEUE_PER_RUNNING__ * DefaultMaxRunning;
    public double QueueWaitSeconds { get; init; } = __QUEUE_WAIT_SECONDS__;
    public int MaxRunningPerCaller { get; init; } = Math.Max(1, DefaultMaxRunning / 2);

    /// <summary>How long a script runs before, while others wait, it moves to the long lane (or is stopped where that is full).</summary>
    public double ShortSeconds { get; init; } = __SHORT_SECONDS__;

    /// <summary>Slots for scripts that have run long: as many as the running ones.</summary>
    public int MaxLong => MaxRunning;
}
