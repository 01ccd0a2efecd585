#nullable enable

using System;
using Jint;

namespace __NAMESPACE__;

internal static partial class McpScriptRunner
{
    /// <summary>The interpreter's own live heap once warm, in bytes: what a script keeps alive is counted above it.</summary>
    private static long _baseBytes;

    /// <summary>Measures the interpreter's own live heap (after its warm-up, before any script).</summary>
    private static void MeasureBase()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        _baseBytes = GC.GetTotalMemory(true);
    }

    /// <summary>The managed heap of this process, in bytes, as of now; it includes garbage not yet collected.</summary>
    internal static long HeapBytes => GC.GetTotalMemory(false);

    /// <summary>
    /// The script's memory limit on what it keeps alive (SCRIPT_MAX_MEMORY_MB), whatever it allocates and drops, and
    /// whether or not it awaits in between (unlike Jint's LimitMemory, an allocation budget restarted at each entry
    /// into the engine). Each time the script has allocated another step (a 32nd of the limit), after each API answer
    /// and at the end, when the heap is above the base and the limit, a full collection tells live memory from garbage;
    /// still above, the script ends (a script that stays near its limit while it allocates and drops pays a collection
    /// at each look past it). Between two looks a statement can allocate at most what the process's hard heap limit
    /// allows (the limit and the interpreter's room): past it, an out-of-memory error ends the script with the same
    /// message.
    /// </summary>
    private sealed class LiveMemory(long limitBytes) : Constraint
    {
        /// <summary>Bytes the script may allocate between two looks at the heap: a 32nd of the limit, at least 1 MB.</summary>
        private readonly long _step = Math.Max(1024 * 1024, limitBytes / 32);

        /// <summary>What this thread had allocated at the last look.</summary>
        private long _looked = GC.GetAllocatedBytesForCurrentThread();

        /// <summary>The heap size past which a look collects to see what is live.</summary>
        private readonly long _threshold = _baseBytes + limitBytes;

        /// <summary>Before each statement: a look once the script has allocated another step (live memory grows only by allocating).</summary>
        public override void Check()
        {
            var allocated = GC.GetAllocatedBytesForCurrentThread();
            if (allocated - _looked >= _step)
            {
                _looked = allocated;
                Look();
            }
        }

        /// <summary>Also called when the server's answer to an API call has entered the engine.</summary>
        public void Look()
        {
            if (HeapBytes <= _threshold)
            {
                return;
            }
            GC.Collect();
            var live = GC.GetTotalMemory(false);
            if (live - _baseBytes > limitBytes)
            {
                Fail(Exceeded);
            }
        }

        public override void Reset()
        {
        }
    }

    /// <summary>The failure of a script that kept more memory alive than its limit.</summary>
    internal const string Exceeded = "it held more memory than the limit allows (SCRIPT_MAX_MEMORY_MB)";
}
