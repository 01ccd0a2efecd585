#nullable enable

using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json;
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

    private static CallToolResult ErrorResult(string message) => new() { IsError = true, Content = [new TextContentBlock { Text = message }] };
}
