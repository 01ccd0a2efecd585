#nullable enable

using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.Json.Nodes;
using Jint;
using Jint.Native;
using Jint.Native.Json;
using Jint.Native.Object;
using Jint.Runtime;
using Jint.Runtime.Descriptors;
using Jint.Runtime.Interop;

namespace __NAMESPACE__;

internal static partial class McpScriptRunner
{
    /// <summary>
    /// One script in one fresh realm: <c>api</c> and <c>console</c> are plain script objects whose functions send
    /// messages; each API call is a promise settled when the server answers; the loop runs until the script's own
    /// promise settles.
    /// </summary>
    private sealed class Runner(Engine engine, Budget budget, LiveMemory memory, int maxLength)
    {
        /// <summary>Lines of the wrapper before the script's first line.</summary>
        public const int PreludeLines = 1;

        /// <summary>The script's source name, in the locations of its errors.</summary>
        public const string Source = "script";

        /// <summary>Made before the script runs, so that nothing the script reassigns changes them.</summary>
        private const string Helpers = """
            [
              (message, status) => { const e = new Error(message); if (status !== undefined) e.status = status; return e; },
              () => { let resolve, reject; const promise = new Promise((a, b) => { resolve = a; reject = b; }); return [promise, resolve, reject]; },
              (value) => JSON.stringify(value === undefined ? null : value),
              (value) => typeof value === 'string' ? value : (() => { try { return JSON.stringify(value) ?? String(value); } catch { return String(value); } })(),
              (promise, done) => { promise.then((value) => done(true, value), (reason) => done(false, reason)); },
            ]
            """;

        /// <summary>Call ids, unique in the process: an answer for an earlier script's call is never taken for this one's.</summary>
        private static int _lastId;

        private readonly Dictionary<int, (JsValue Resolve, JsValue Reject)> _pending = new();
        private int _calls;
        private int _logged;
        private bool _logsCut;

        public void Run(string code, IEnumerable<string> tools)
        {
            var helpers = (JsArray)engine.Evaluate(Helpers, "helpers");
            JsValue makeError = helpers[0], makePromise = helpers[1], stringify = helpers[2], show = helpers[3], watch = helpers[4];

            var api = new JsObject(engine);
            foreach (var tool in tools)
            {
                var name = tool;
                Define(api, name, new ClrFunction(engine, name, (_, arguments) => Call(name, arguments.Length > 0 ? arguments[0] : JsValue.Undefined, makePromise, stringify), 1));
            }
            api.PreventExtensions();
            var console = new JsObject(engine);
            var log = new ClrFunction(engine, "log", (_, arguments) => Log(string.Join(" ", arguments.Select(a => engine.Invoke(show, a).ToString()))), 0);
            foreach (var name in new[] { "log", "info", "warn", "error", "debug" })
            {
                Define(console, name, log);
            }
            console.PreventExtensions();
            engine.SetValue("api", api);
            engine.SetValue("console", console);

            bool? fulfilled = null;
            var outcome = JsValue.Undefined;
            var done = new ClrFunction(engine, "done", (_, a) =>
            {
                (fulfilled, outcome) = (a[0].AsBoolean(), a[1]);
                return JsValue.Undefined;
            }, 2);
            engine.Invoke(watch, engine.Evaluate("(async function () {\n" + code + "\n})()", Source), done);
            engine.Advanced.ProcessTasks();
            while (fulfilled is null)
            {
                var line = Console.In.ReadLine();
                if (line is null)
                {
                    return; // the server is gone
                }
                if (JsonNode.Parse(line) is not JsonObject answer || answer["id"] is not { } answerId || !_pending.Remove(answerId.GetValue<int>(), out var settle))
                {
                    continue;
                }
                if (answer["error"] is { } error)
                {
                    var status = answer["status"] is { } s ? JsNumber.Create(s.GetValue<int>()) : JsValue.Undefined;
                    engine.Invoke(settle.Reject, engine.Invoke(makeError, error.GetValue<string>(), status));
                }
                else
                {
                    engine.Invoke(settle.Resolve, new JsonParser(engine).Parse(answer["value"]!.GetValue<string>()));
                }
                engine.Advanced.ProcessTasks();
                memory.Look();
            }
            memory.Look();
            if (fulfilled == false)
            {
                Fail(Located(ErrorText(outcome), LineOf(outcome)));
            }
            var json = engine.Invoke(stringify, outcome).ToString();
            Send(new JsonObject
            {
                ["result"] = json.Length <= maxLength ? json : json[..maxLength],
                ["length"] = json.Length,
                ["logsCut"] = _logsCut,
            });
        }

        private static void Define(ObjectInstance target, string name, JsValue value) =>
            target.DefineOwnProperty(name, new PropertyDescriptor(value, writable: false, enumerable: true, configurable: false));

        /// <summary>api.&lt;name&gt;(args): a promise of the operation's answer; past the calls limit, the end of the script.</summary>
        private JsValue Call(string name, JsValue arguments, JsValue makePromise, JsValue stringify)
        {
            if (++_calls > budget.Calls)
            {
                Fail($"it made more than {budget.Calls} API calls, the limit (SCRIPT_MAX_CALLS)");
            }
            var made = (JsArray)engine.Invoke(makePromise);
            var json = arguments.IsUndefined() ? "{}" : engine.Invoke(stringify, arguments).ToString();
            var id = ++_lastId;
            _pending[id] = (made[1], made[2]);
            Send(new JsonObject { ["call"] = id, ["name"] = name, ["arguments"] = json });
            return made[0];
        }

        private JsValue Log(string line)
        {
            if (_logged + line.Length <= maxLength)
            {
                _logged += line.Length;
                Send(new JsonObject { ["log"] = line });
            }
            else
            {
                _logsCut = true;
            }
            return JsValue.Undefined;
        }

        /// <summary>The line a thrown Error was made on, from its stack ("at … :3:5"), when it has one.</summary>
        private static int LineOf(JsValue reason) =>
            reason is ObjectInstance error && error.Get("stack") is JsString stack
                && System.Text.RegularExpressions.Regex.Match(stack.ToString(), Source + @":(\d+):\d+") is { Success: true } found
                ? int.Parse(found.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture)
                : 0;
    }
}
