#nullable enable

using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Security.Cryptography;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using System.Threading;
using ModelContextProtocol.Protocol;
using ModelContextProtocol.Server;
using __CLIENT_NAMESPACE__;

namespace __NAMESPACE__;

/// <summary>
/// Confirmation before destructive calls (<c>--confirm destructive</c>): a tool marked
/// <see cref="McpTools.ConfirmAttribute"/> asks the user through MCP elicitation and sends its request only when the
/// user accepts. The question is an input request (<see cref="InputRequiredException"/>): a client of MCP 2026-07-28
/// asks its user and calls the tool again with the answer, which needs no session; on a stateful session of an
/// earlier protocol (stdio) the SDK sends <c>elicitation/create</c> and calls the tool again itself. Where no
/// question can reach the user (a client without elicitation, or stateless HTTP with a client of an earlier
/// protocol), the call is refused at once, saying how to allow it.
/// </summary>
internal static class McpConfirm
{
    /// <summary>False when the setting is "off": nothing asks, for trusted automation. The host sets it.</summary>
    public static bool Enabled { get; set; } = true;

    /// <summary>The setting that turns confirmation off, which refusals name. The host sets it.</summary>
    public static string Setting { get; set; } = "CONFIRM";

    /// <summary>The path of the API's base URL (<c>/api</c>), which the question shows before each request's path. The host sets it.</summary>
    public static string BasePath { get; set; } = "";

    /// <summary>The key of the question among the call's input requests.</summary>
    private const string Key = "confirm";

    /// <summary>Longest text of a value in a question: a longer one is shortened in the middle, saying its size.</summary>
    private const int MaxValueLength = 240;

    /// <summary>Longest text of one argument in a question, its long values shortened: past it, it is shortened in the middle too.</summary>
    private const int MaxArgumentLength = 4000;

    /// <summary>Longest script a question shows; one that cannot be shown whole is not run (run_script takes no longer ones).</summary>
    public const int MaxScriptShown = 20_000;

    /// <summary>In code mode, the operations the running script may call: those it named and the user accepted before it ran.</summary>
    private static readonly AsyncLocal<HashSet<string>?> ScriptAccepted = new();

    /// <summary>The tools that ask, by name: the <see cref="McpTools"/> methods the generator marked.</summary>
    private static readonly Lazy<Dictionary<string, McpTools.ConfirmAttribute>> Marked = new(() =>
        typeof(McpTools).GetMethods(BindingFlags.Public | BindingFlags.Static)
            .Select(m => (Tool: m.GetCustomAttribute<McpServerToolAttribute>(), Mark: m.GetCustomAttribute<McpTools.ConfirmAttribute>()))
            .Where(m => m.Tool?.Name is not null && m.Mark is not null)
            .GroupBy(m => m.Tool!.Name!, StringComparer.Ordinal)
            .ToDictionary(g => g.Key, g => g.First().Mark!, StringComparer.Ordinal));

    /// <summary>This JSON goes to a person, never into HTML: characters such as ' and &lt; stay as they are.</summary>
    private static readonly JsonSerializerOptions Shown = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, WriteIndented = true };

    /// <summary>
    /// Null when the tool's request may be sent: confirmation is off, the user accepted these arguments, or (in a
    /// script) the user accepted the operation before the script ran. Otherwise the tool's answer, <c>Error: not sent: …</c>.
    /// Asking throws <see cref="InputRequiredException"/>, which the SDK turns into the question.
    /// </summary>
    public static string? Refusal(RequestContext<CallToolRequestParams> context)
    {
        if (!Enabled)
        {
            return null;
        }
        var name = context.Params?.Name ?? "";
        var mark = Marked.Value.TryGetValue(name, out var found) ? found : new McpTools.ConfirmAttribute("", name, name, "");
        if (ScriptAccepted.Value is { } accepted)
        {
            // A script cannot stop halfway for a question: what it may do was asked before it started.
            return accepted.Contains(name)
                ? null
                : $"Error: not sent: {mark.Method} {mark.Path} needs the user's confirmation, which a script gets before it runs for the operations its text names; call it as api.{name}(…)";
        }
        var arguments = context.Params?.Arguments ?? new Dictionary<string, JsonElement>();
        var question = $"{mark.Title}\n{mark.Method} {Request(mark, arguments)}\n\nArguments:\n{Shows(mark, arguments)}\n\nSend this request? Nothing is sent unless you accept.";
        return Ask(context, $"{mark.Method} {mark.Path}", question, State(name, JsonSerializer.Serialize(new SortedDictionary<string, JsonElement>(arguments, StringComparer.Ordinal))));
    }

    /// <summary>
    /// Code mode, before a script runs: when its text names operations that ask, the user is asked once, with the
    /// operations and the script; on accept the script may call those, and no other that asks. Null when it may run.
    /// </summary>
    public static string? ScriptRefusal(RequestContext<CallToolRequestParams> context, string code)
    {
        if (!Enabled)
        {
            return null;
        }
        var named = Marked.Value.Where(m => Regex.IsMatch(code, $@"(?<![\w$]){Regex.Escape(m.Key)}(?![\w$])")).OrderBy(m => m.Key, StringComparer.Ordinal).ToList();
        if (named.Count > 0)
        {
            if (code.Length > MaxScriptShown)
            {
                // The user would accept what they were not shown: not asked, not run.
                return $"Error: not run: the script is {Count(code.Length)} characters, longer than the {Count(MaxScriptShown)} a confirmation shows whole, and it calls operations that need the user's confirmation; split it";
            }
            var operations = string.Join("\n", named.Select(m => $"- {m.Value.Title}: {m.Value.Method} {m.Value.Path} ({m.Key})"));
            var question = $"A script asks to call operations that change or delete data:\n{operations}\n\nThe script, whole:\n{ApiSecrets.Redact(code)}\n\nRun it? Nothing is sent unless you accept.";
            var what = named.Count == 1 ? $"{named[0].Value.Method} {named[0].Value.Path}" : $"{named.Count} operations in this script";
            if (Ask(context, what, question, State("run_script", code)) is { } refusal)
            {
                return refusal;
            }
        }
        // Set here, in the caller's flow (this method is not async), for the calls the script makes.
        ScriptAccepted.Value = named.Select(m => m.Key).ToHashSet(StringComparer.Ordinal);
        return null;
    }

    /// <summary>The user's answer to the question of <paramref name="state"/>, or the question, or why it cannot be asked.</summary>
    private static string? Ask(RequestContext<CallToolRequestParams> context, string what, string question, string state)
    {
        var request = context.Params;
        // The answer counts only for the call it was given for: the same operation and arguments (or script).
        if (request?.InputResponses is { } responses && request.RequestState == state && responses.TryGetValue(Key, out var response))
        {
            return response.Deserialize(InputResponse.ElicitResultJsonTypeInfo)?.Action switch
            {
                "accept" => null,
                "decline" => "Error: not sent: the user declined",
                _ => "Error: not sent: the user cancelled",
            };
        }
        var server = context.Server;
        if (!server.IsMrtrSupported)
        {
            return $"Error: not sent: {what} needs the user's confirmation, and this server cannot ask: it serves stateless HTTP and the client speaks an MCP version before 2026-07-28, so no question can reach the user. Connect with a client of MCP 2026-07-28, or set {Setting}=off on the server to send such calls without asking (trusted automation only)";
        }
        if (server.ClientCapabilities is { Elicitation: null })
        {
            return $"Error: not sent: {what} needs the user's confirmation, and this client cannot ask the user (it declares no elicitation capability). Use a client that can, or set {Setting}=off on the server to send such calls without asking (trusted automation only)";
        }
        throw new InputRequiredException(
            new Dictionary<string, InputRequest>
            {
                [Key] = InputRequest.ForElicitation(new ElicitRequestParams { Message = question, RequestedSchema = new() }),
            },
            state);
    }

    /// <summary>
    /// The request as it will be sent: the base path, then the path with the arguments that pick the target in place
    /// (and a DELETE's query), each shortened in the middle where long.
    /// </summary>
    private static string Request(McpTools.ConfirmAttribute mark, IDictionary<string, JsonElement> arguments)
    {
        // An argument not given: a path one is the client's own value, shown by its name ({subscriptionId}); a query
        // one is not sent, and neither is its pair shown.
        string? Given(string name) => arguments.TryGetValue(name, out var value) && value.ValueKind is not (JsonValueKind.Null or JsonValueKind.Undefined)
            ? (IsCredential(name) ? "[redacted]" : Middle(value.ValueKind == JsonValueKind.String ? value.GetString() ?? "" : value.GetRawText(), MaxValueLength))
            : null;
        string Fill(string template) => Regex.Replace(template, @"\{([^}]*)\}", m => Given(m.Groups[1].Value) ?? m.Value);
        var parts = mark.Request.Split('?', 2);
        var query = parts.Length > 1
            ? string.Join("&", parts[1].Split('&').Where(pair => Regex.Match(pair, @"=\{([^}]*)\}$") is not { Success: true } placeholder || Given(placeholder.Groups[1].Value) is not null).Select(Fill))
            : "";
        return ApiSecrets.Redact(BasePath + Fill(parts[0]) + (query.Length > 0 ? "?" + query : ""));
    }

    /// <summary>
    /// Every argument, as the user reads it: those that pick the target first, then the others in the tool's order, each
    /// on its own; long values shortened in the middle with their size (so that nothing after them is hidden);
    /// credential-like names and configured secrets redacted.
    /// </summary>
    private static string Shows(McpTools.ConfirmAttribute mark, IDictionary<string, JsonElement> arguments)
    {
        var order = mark.Arguments.Where(arguments.ContainsKey).Concat(arguments.Keys.Where(key => !mark.Arguments.Contains(key)).OrderBy(key => key, StringComparer.Ordinal));
        var lines = order.Select(key =>
        {
            var text = IsCredential(key) ? "\"[redacted]\"" : JsonSerializer.Serialize(Shortened(arguments[key]), Shown);
            return $"{key}: {Middle(text, MaxArgumentLength)}";
        });
        return arguments.Count == 0 ? "(none)" : ApiSecrets.Redact(string.Join("\n", lines));
    }

    /// <summary>A JSON value with its long strings, arrays and objects shortened in the middle, each saying its size.</summary>
    private static JsonNode? Shortened(JsonElement value)
    {
        switch (value.ValueKind)
        {
            case JsonValueKind.String:
                return JsonValue.Create(Middle(value.GetString() ?? "", MaxValueLength));
            case JsonValueKind.Array:
                var items = value.EnumerateArray().ToList();
                var array = new JsonArray();
                for (var i = 0; i < items.Count; i++)
                {
                    if (items.Count > 20 && i == 10)
                    {
                        array.Add(JsonValue.Create($"… [{Count(items.Count)} items in all, {Count(items.Count - 15)} not shown] …"));
                        i = items.Count - 6;
                        continue;
                    }
                    array.Add(Shortened(items[i]));
                }
                return array;
            case JsonValueKind.Object:
                var properties = value.EnumerateObject().ToList();
                var shown = new JsonObject();
                for (var i = 0; i < properties.Count; i++)
                {
                    if (properties.Count > 40 && i == 30)
                    {
                        shown["…"] = JsonValue.Create($"[{Count(properties.Count)} properties in all, {Count(properties.Count - 35)} not shown]");
                        i = properties.Count - 6;
                        continue;
                    }
                    shown[properties[i].Name] = IsCredential(properties[i].Name) ? JsonValue.Create("[redacted]") : Shortened(properties[i].Value);
                }
                return shown;
            default:
                return JsonNode.Parse(value.GetRawText());
        }
    }

    /// <summary>A count as people read it: 3,600.</summary>
    private static string Count(int count) => count.ToString("N0", System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>Text longer than <paramref name="max"/> with its middle left out, saying how long it is; never half a surrogate pair.</summary>
    private static string Middle(string text, int max)
    {
        if (text.Length <= max)
        {
            return text;
        }
        var head = max / 2;
        var tail = max / 3;
        if (char.IsHighSurrogate(text[head - 1]))
        {
            head--;
        }
        if (char.IsLowSurrogate(text[^tail]))
        {
            tail--;
        }
        return $"{text[..head]} … [{Count(text.Length)} characters, {Count(text.Length - head - tail)} not shown] … {text[^tail..]}";
    }

    /// <summary>An argument that carries a credential by its name: a word of it (apiKey, access_token, X-Password) says so.</summary>
    private static bool IsCredential(string name) =>
        Regex.Matches(name, "[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+").Any(w => CredentialWords.Contains(w.Value.ToLowerInvariant()));

    private static readonly HashSet<string> CredentialWords = ["authorization", "auth", "cookie", "key", "apikey", "password", "passwd", "secret", "session", "signature", "token"];

    /// <summary>The question's state, which the client echoes with the answer: what was asked about, as a digest.</summary>
    private static string State(string name, string content) =>
        "confirm:" + Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(name + "\n" + content)))[..32];
}
