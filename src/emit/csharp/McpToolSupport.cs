#nullable enable

using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json;
using System.Text.Json.Nodes;
using ModelContextProtocol;
using ModelContextProtocol.Protocol;
using ModelContextProtocol.Server;
using __CLIENT_NAMESPACE__;

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
        }
    }

    /// <summary>
    /// The call-tool filter: arguments that do not fit the published schema, or that the server cannot bind to
    /// the tool's parameters, are answered with an <c>Error: invalid arguments…</c> that says which and why;
    /// every answer that starts with <c>Error: </c> is flagged <c>isError</c>.
    /// </summary>
    public static McpRequestFilter<CallToolRequestParams, CallToolResult> CheckCalls { get; } = next => async (context, cancellationToken) =>
    {
        if (context.MatchedPrimitive is not McpServerTool tool)
        {
            return await next(context, cancellationToken);
        }
        var name = tool.ProtocolTool.Name;
        var schema = tool.ProtocolTool.InputSchema;
        CallToolResult result;
        try
        {
            if (McpArgumentErrors.Check(name, schema, context.Params?.Arguments) is { } invalid)
            {
                return ErrorResult(ApiSecrets.Redact(invalid));
            }
            result = await next(context, cancellationToken);
        }
        catch (Exception exception) when (exception is not OperationCanceledException)
        {
            return ErrorResult(ApiSecrets.Redact(McpArgumentErrors.Describe(name, schema, context.Params?.Arguments, exception)));
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
        return result;
    };

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

    private static CallToolResult ErrorResult(string message) => new() { IsError = true, Content = [new TextContentBlock { Text = message }] };
}
