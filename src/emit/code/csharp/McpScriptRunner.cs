#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using Jint;
using Jint.Native;
using Jint.Native.Json;
using Jint.Runtime;
using Jint.Runtime.Interop;

namespace __NAMESPACE__;

/// <summary>
/// The interpreter process of code mode: the server starts this same program with <see cref="Flag"/> for each
/// script, and it runs that one script in Jint, with no CLR access, no string compilation, no file, network or
/// environment, and no secret (its environment holds none; the answers it receives are redacted). It speaks to the
/// server in JSON lines: the script and its limits come in on stdin, then the answers of its API calls; its calls,
/// log lines and its result or failure go out on stdout. Whatever a script does, it can only end this process.
/// </summary>
internal static partial class McpScriptRunner
{
    /// <summary>The argument that makes the program this interpreter instead of the server.</summary>
    public const string Flag = "--mcp-script-runner";

    private static readonly TextWriter Out = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)) { AutoFlush = true, NewLine = "\n" };
    private static readonly object Writing = new();

    public static int Run()
    {
        // Warm before it counts as ready: an engine like a script's has run a first script (promises, JSON, strings),
        // so that no script pays for loading and compiling the interpreter. Then the base of the live-memory limit
        // is measured, and the server is told.
        var warm = NewEngine(new Budget(1_000_000, TimeSpan.FromSeconds(60), 0), new LiveMemory(long.MaxValue / 2), 100);
        warm.Evaluate("(async () => { const v = JSON.parse(JSON.stringify([1, 'a', { b: null }])); await Promise.resolve(v); return [v, `${v.length}`.padStart(3), [3, 1, 2].sort().map(String).join()]; })()");
        warm.Advanced.ProcessTasks();
        MeasureBase();
        Send(new JsonObject { ["ready"] = true });
        // One script at a time, each in a new engine (a fresh realm); a script that fails or hits a limit ends the
        // process, and the server starts another.
        while (Console.In.ReadLine() is { } line)
        {
            if (JsonNode.Parse(line) is JsonObject request && request["code"] is not null)
            {
                RunOne(request);
            }
        }
        return 0;
    }

    private static void RunOne(JsonObject request)
    {
        var limits = request["limits"]!.AsObject();
        var budget = new Budget(
            (long)limits["statements"]!.GetValue<double>(),
            TimeSpan.FromSeconds(limits["seconds"]!.GetValue<double>()),
            limits["calls"]!.GetValue<int>());
        var maxLength = limits["resultLength"]!.GetValue<int>();
        var memory = new LiveMemory((long)limits["memoryMb"]!.GetValue<double>() * 1024 * 1024);
        try
        {
            var engine = NewEngine(budget, memory, limits["recursion"]!.GetValue<int>());
            new Runner(engine, budget, memory, maxLength).Run(request["code"]!.GetValue<string>(), request["tools"]!.AsArray().Select(t => t!.GetValue<string>()));
        }
        catch (Exception exception)
        {
            Fail(Describe(exception));
        }
    }

    /// <summary>A fresh engine (a new realm) with the sandbox's options and the script's constraints.</summary>
    private static Engine NewEngine(Budget budget, LiveMemory memory, int recursion) => new(options =>
    {
        options.Interop.Enabled = false;
        options.Host.StringCompilationAllowed = false;
        options.Strict = false;
        options.TimeZone = TimeZoneInfo.Utc;
        options.Culture = System.Globalization.CultureInfo.InvariantCulture;
        options.LimitRecursion(recursion);
        options.Constraints.StackOverflowGuard = true;
        options.Json.MaxParseDepth = 256;
        options.Constraint(budget);
        options.Constraint(memory);
    });

    /// <summary>Sends one message to the server.</summary>
    private static void Send(JsonObject message)
    {
        lock (Writing)
        {
            Out.WriteLine(message.ToJsonString());
        }
    }

    /// <summary>Ends the script with <paramref name="message"/>: the process ends, so nothing the script started goes on.</summary>
    public static void Fail(string message)
    {
        Send(new JsonObject { ["failed"] = message });
        Environment.Exit(0);
    }

    /// <summary>What stopped a script, in the words of the limit it hit, or its error and the line it came from.</summary>
    private static string Describe(Exception exception) => exception switch
    {
        RecursionDepthOverflowException => "it nested calls deeper than the limit allows (SCRIPT_MAX_RECURSION)",
        StatementsCountOverflowException => "it ran more statements than the limit allows (SCRIPT_MAX_STATEMENTS)",
        OutOfMemoryException => Exceeded,
        InsufficientExecutionStackException => "it nested values or calls so deep that the interpreter ran out of stack (SCRIPT_MAX_RECURSION)",
        JavaScriptException js => Located(ErrorText(js.Error), js.Location.Start.Line),
        Acornima.ParseErrorException parse => Located("SyntaxError: " + parse.Description, parse.LineNumber),
        _ => exception.Message,
    };

    /// <summary>The text of a thrown value: an Error's "Name: message", anything else as String() gives it.</summary>
    internal static string ErrorText(JsValue error)
    {
        if (error is Jint.Native.Object.ObjectInstance o && o.Get("message") is JsString message)
        {
            var name = o.Get("name") is JsString n ? n.ToString() : "Error";
            var text = Location().Replace(message.ToString(), "");
            // An API call's error already reads "Error: …".
            return name == "Error" && text.StartsWith("Error: ", StringComparison.Ordinal) ? text : $"{name}: {text}";
        }
        return error.ToString();
    }

    /// <summary>The engine's own " (script:2:8)" at the end of a message: the line is given separately, counted from the script's start.</summary>
    [GeneratedRegex(@"\s*\((?:<anonymous>|script):\d+:\d+\)$")]
    private static partial Regex Location();

    /// <summary>A message with the line of the script it points at (line 1 is the script's first).</summary>
    internal static string Located(string message, int wrappedLine) =>
        wrappedLine - Runner.PreludeLines is var line && line >= 1 ? $"{message} (line {line})" : message;

    /// <summary>
    /// The script's budget, counted over its whole run (Jint's own limits restart at every entry into the engine, and
    /// a script is entered again for each answer): statements and wall time. Exceeding either ends the process.
    /// </summary>
    private sealed class Budget(long statements, TimeSpan time, int calls) : Constraint
    {
        private readonly Stopwatch _clock = Stopwatch.StartNew();
        private long _statements;

        public int Calls { get; } = calls;

        public override void Check()
        {
            if (++_statements > statements)
            {
                Fail("it ran more statements than the limit allows (SCRIPT_MAX_STATEMENTS)");
            }
            if ((_statements & 255) == 0 && _clock.Elapsed > time)
            {
                Fail($"it ran longer than the time limit of {time.TotalSeconds:0.###} s (SCRIPT_TIMEOUT_SECONDS)");
            }
        }

        public override void Reset()
        {
        }
    }
}
