#nullable enable

using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading.Tasks;
using ModelContextProtocol;
using ModelContextProtocol.Protocol;
using ModelContextProtocol.Server;
using __CLIENT_NAMESPACE__;
// The protocol's Tool, whatever the API's schemas are named.
using Tool = ModelContextProtocol.Protocol.Tool;

namespace __NAMESPACE__;

/// <summary>
/// What the host adds to the generated tools: the input schemas the generator wrote from the spec, argument
/// checks against them before anything is sent, and <c>isError</c> on every answer that is an <c>Error: …</c>.
/// </summary>
internal static class McpToolSupport
{
    /// <summary>
    /// Publishes each tool's <see cref="McpTools.InputSchemaAttribute"/> in place of the schema the SDK derives
    /// from the C# parameters, which cannot carry the spec's patterns, formats, ranges or unions.
    /// </summary>
    public static void PublishInputSchemas(IEnumerable<McpServerTool> tools)
    {
        foreach (var tool in tools)
        {
            if (tool.Metadata.OfType<McpTools.InputSchemaAttribute>().FirstOrDefault() is { } declared)
            {
                using var document = JsonDocument.Parse(declared.Json);
                tool.ProtocolTool.InputSchema = document.RootElement.Clone();
            }
            if (tool.Metadata.OfType<McpTools.OutputSchemaAttribute>().FirstOrDefault() is { } output)
            {
                using var document = JsonDocument.Parse(output.Json);
                tool.ProtocolTool.OutputSchema = document.RootElement.Clone();
            }
        }
    }

    /// <summary>
    /// The call-tool filter: arguments that do not fit the published schema, or that the server cannot bind to
    /// the tool's parameters, are answered with an <c>Error: invalid arguments…</c> that says which and why;
    /// every answer that starts with <c>Error: </c> is flagged <c>isError</c>.
    /// </summary>
    public static McpRequestFilter<CallToolRequestParams, CallToolResult> CheckCalls { get; } = next => async (context, cancellationToken) =>
        context.MatchedPrimitive is McpServerTool tool
            ? await InvokeAsync(tool, context.Params?.Arguments, () => next(context, cancellationToken))
            : await next(context, cancellationToken);

    /// <summary>
    /// Calls <paramref name="tool"/> through <paramref name="invoke"/> as the call filter does: arguments checked
    /// first, failures to bind them described, secrets redacted, <c>Error: …</c> answers flagged. The HTTP status of
    /// the API's answer, when one came, goes to <paramref name="status"/>.
    /// </summary>
    public static async ValueTask<CallToolResult> InvokeAsync(McpServerTool tool, IDictionary<string, JsonElement>? arguments, Func<ValueTask<CallToolResult>> invoke, StrongBox<int>? status = null)
    {
        var name = tool.ProtocolTool.Name;
        var schema = tool.ProtocolTool.InputSchema;
        var output = tool.Metadata.OfType<McpTools.OutputSchemaAttribute>().FirstOrDefault();
        var notes = McpTools.CallNotes.Current.Value = new McpTools.CallNotes();
        CallToolResult result;
        try
        {
            if (McpArgumentErrors.Check(name, schema, arguments) is { } invalid)
            {
                return ErrorResult(ApiSecrets.Redact(invalid));
            }
            result = await invoke();
            if (status is not null)
            {
                status.Value = notes.Status;
            }
        }
        // A question for the user (confirmation before a destructive call) is no failure: the SDK asks it.
        catch (Exception exception) when (exception is not (OperationCanceledException or InputRequiredException))
        {
            return ErrorResult(ApiSecrets.Redact(McpArgumentErrors.Describe(name, schema, arguments, exception)));
        }
        finally
        {
            McpTools.CallNotes.Current.Value = null;
        }
        if (result.IsError != true && result.Content.Count > 0 && result.Content[0] is TextContentBlock answer)
        {
            if (output is not null && notes.Mismatch is { } mismatch)
            {
                // The tool promised a shape (outputSchema) this answer does not have: the answer is given whole, flagged.
                answer.Text = $"Error: the API answered (HTTP {notes.Status}), but {mismatch}, so it is not this tool's structured result; the answer as sent: {answer.Text}";
            }
            if (notes.Headers.Count > 0)
            {
                // Beside the JSON, never inside it: pagination (Link), totals and rate-limit budgets.
                result.Content.Add(new TextContentBlock { Text = "Response headers:\n" + string.Join("\n", notes.Headers.Select(h => $"{h.Key}: {h.Value}")) });
            }
            if (notes.NextPage is { } nextPage)
            {
                result.Content.Add(new TextContentBlock { Text = nextPage });
            }
        }
        foreach (var block in result.Content.OfType<TextContentBlock>())
        {
            // No configured secret (nor a token obtained at run time) leaves the server, whatever the API echoes.
            block.Text = ApiSecrets.Redact(block.Text);
        }
        if (result.IsError != true && result.Content.Count > 0 && result.Content[0] is TextContentBlock { Text: var text } && text.StartsWith("Error: ", StringComparison.Ordinal))
        {
            result.IsError = true;
        }
        result.StructuredContent = result.IsError != true && output is not null ? StructuredContent(result, output.Wrapped) : null;
        return result;
    }

    /// <summary>
    /// The answer's JSON as structuredContent: as it is, or as {"result": …} when the schema wraps it; an answer
    /// cut at the result limit is not whole JSON and gives {} (the text says where it was cut).
    /// </summary>
    private static JsonElement StructuredContent(CallToolResult result, bool wrapped)
    {
        var text = result.Content.Count > 0 && result.Content[0] is TextContentBlock block ? block.Text : "";
        JsonNode? value;
        try
        {
            value = JsonNode.Parse(text);
        }
        catch (JsonException)
        {
            value = new JsonObject();
            wrapped = false;
        }
        var structured = wrapped ? new JsonObject { ["result"] = value } : value as JsonObject ?? new JsonObject();
        return JsonSerializer.SerializeToElement(structured, McpJsonUtilities.DefaultOptions);
    }

    /// <summary>Most tools in one tools/list page, and most bytes of their definitions (a page holds at least one).</summary>
    public const int PageSize = 200;
    public const int PageBytes = 256 * 1024;

    private static readonly ConditionalWeakTable<Tool, StrongBox<int>> Sizes = new();

    /// <summary>
    /// The list-tools filter: tools/list in pages of at most <see cref="PageSize"/> tools and <see cref="PageBytes"/>
    /// bytes, ordered by name, each with an opaque cursor to the next, so that any client can list any API.
    /// </summary>
    public static McpRequestFilter<ListToolsRequestParams, ListToolsResult> PageToolList { get; } = next => async (context, cancellationToken) =>
    {
        var cursor = context.Params?.Cursor;
        if (context.Params is { } parameters)
        {
            parameters.Cursor = null; // the whole list, which this filter pages
        }
        var all = (await next(context, cancellationToken)).Tools.OrderBy(t => t.Name, StringComparer.Ordinal).ToList();
        return Page(all.ConvertAll(t => t.Name), i => all[i], cursor);
    };

    /// <summary>
    /// The tools/list page <paramref name="cursor"/> asks for (the first when null), of the tools named
    /// <paramref name="names"/> in ordinal order: <paramref name="tool"/> gives the definition of the tool at an index,
    /// and is asked only for those the page may hold.
    /// </summary>
    public static ListToolsResult Page(IReadOnlyList<string> names, Func<int, Tool> tool, string? cursor)
    {
        var start = 0;
        if (cursor is not null)
        {
            var after = AfterName(cursor) ?? throw new McpProtocolException($"Invalid cursor \"{cursor}\": use the nextCursor of the previous tools/list page.", McpErrorCode.InvalidParams);
            while (start < names.Count && string.CompareOrdinal(names[start], after) <= 0) start++;
        }
        var page = new List<Tool>();
        var bytes = 0;
        for (var i = start; i < names.Count && page.Count < PageSize; i++)
        {
            var next = tool(i);
            var size = Sizes.GetValue(next, t => new StrongBox<int>(JsonSerializer.SerializeToUtf8Bytes(t, McpJsonUtilities.DefaultOptions).Length)).Value;
            if (page.Count > 0 && bytes + size > PageBytes) break;
            page.Add(next);
            bytes += size;
        }
        var more = start + page.Count < names.Count;
        return new ListToolsResult { Tools = page, NextCursor = more ? Convert.ToBase64String(Encoding.UTF8.GetBytes(page[^1].Name)) : null };
    }

    /// <summary>The tool name a cursor continues after, or null when it is not a cursor this server gave.</summary>
    private static string? AfterName(string cursor)
    {
        var buffer = new byte[cursor.Length];
        return Convert.TryFromBase64String(cursor, buffer, out var length) && length > 0 ? Encoding.UTF8.GetString(buffer, 0, length) : null;
    }

    /// <summary>
    /// The message filter: a tools/call whose arguments the SDK cannot even read (a string holding half of a UTF-16
    /// surrogate pair) is answered as invalid arguments, as any other, instead of with a protocol error.
    /// </summary>
    public static McpMessageFilter CheckMessages { get; } = next => async (context, cancellationToken) =>
    {
        if (context.JsonRpcMessage is JsonRpcRequest { Method: RequestMethods.ToolsCall, Params: JsonObject parameters } request
            && parameters["arguments"] is JsonObject arguments && arguments.Where(a => !Readable(a.Value)).Select(a => a.Key).ToList() is { Count: > 0 } unreadable)
        {
            var name = Readable(parameters["name"]) ? parameters["name"]?.GetValue<string>() : null;
            var problems = string.Join("; ", unreadable.Select(a => $"'{a}' is not valid text (it holds half of a UTF-16 surrogate pair)"));
            var result = ErrorResult($"Error: invalid arguments for {name}: {problems}");
            await context.Server.SendMessageAsync(new JsonRpcResponse { Id = request.Id, Result = JsonSerializer.SerializeToNode(result, McpJsonUtilities.DefaultOptions) }, cancellationToken);
            return;
        }
        await next(context, cancellationToken);
    };

    private static bool Readable(JsonNode? node)
    {
        try
        {
            node?.ToJsonString();
            return true;
        }
        catch (InvalidOperationException)
        {
            return false;
        }
    }

    public static CallToolResult ErrorResult(string message) => new() { IsError = true, Content = [new TextContentBlock { Text = message }] };
}
