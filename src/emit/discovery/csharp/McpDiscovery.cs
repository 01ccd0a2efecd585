#nullable enable

using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.ComponentModel;
using System.Linq;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using ModelContextProtocol;
using ModelContextProtocol.Protocol;
using ModelContextProtocol.Server;
using __CLIENT_NAMESPACE__;

namespace __NAMESPACE__;

/// <summary>
/// Discovery mode: three tools in place of one per operation. The model searches the operations, reads one's
/// input schema, and calls it; the call answers exactly as that operation's own tool would (same checks, same
/// errors, same limits), because it is that tool, made from the same <see cref="McpTools"/> method on first use.
/// What depends on the selected operations (search_operations' description with the map of the API) is in
/// <see cref="McpDiscoveryText"/>, which the generator writes with McpTools.g.cs.
/// </summary>
internal static class McpDiscovery
{
    private static readonly ConcurrentDictionary<string, McpServerTool> Tools = new(StringComparer.Ordinal);

    /// <summary>Code mode: an operation's signature as a script calls it, which detail "full" gives in place of its inputSchema.</summary>
    public static Func<string, string?>? SignatureOf { get; set; }

    /// <summary>The search search_operations answers with, when not the lexical one (the hybrid search, McpSearchFusion).</summary>
    public static Func<string, string?, int, IReadOnlyList<McpSearch.Operation>>? Searcher { get; set; }

    /// <summary>This JSON goes to the model, never into HTML: characters such as ' and &lt; stay as they are.</summary>
    private static readonly JsonSerializerOptions Output = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>
    /// Discovery mode's three tools: search_operations, describe_operation and call_operation, which reaches every
    /// operation of <see cref="McpTools"/>.
    /// </summary>
    public static IMcpServerBuilder WithDiscoveryTools(this IMcpServerBuilder builder) => builder.WithSearchTools([typeof(McpDiscovery)]);

    /// <summary>
    /// The tools of these classes (discovery and code mode), with the input schemas the generator wrote, constraints and
    /// all; arguments read with the client's JSON settings (exact property names: an API may have both xAxis and xaxis).
    /// Every call is audited (<see cref="McpAudit"/>) and its arguments checked before it runs; every Error: answer is
    /// flagged isError; tools/list comes in pages; the search index is read once the server has started.
    /// </summary>
    internal static IMcpServerBuilder WithSearchTools(this IMcpServerBuilder builder, IEnumerable<Type> tools)
    {
        // The search index is read in the background once the server has started: the first search does not wait for
        // it (on all of Microsoft Graph it takes most of a second), and neither does the first tools/list.
        builder.Services.AddMcpStartup(services => services.GetRequiredService<IHostApplicationLifetime>().ApplicationStarted.Register(() => Task.Run(() => McpSearch.Index)));
        // The tools are the same for every server (a stateless HTTP server makes one per request): readied once.
        builder.Services.AddSingleton<IConfigureOptions<McpServerOptions>>(services =>
        {
            var ready = new Lazy<bool>(() =>
            {
                var made = services.GetServices<McpServerTool>().ToList();
                McpToolSupport.PublishInputSchemas(made);
                // A tool that can reach every operation is annotated as the least permissive of them (destructive if any is).
                AnnotateReach(made);
                return true;
            });
            return new ConfigureOptions<McpServerOptions>(options => _ = ready.Value);
        });
        return builder
            .WithRequestFilters(filters => filters.AddCallToolFilter(McpAudit.Calls))
            .WithTools(tools, ApiJson.Options)
            .WithRequestFilters(filters => filters.AddCallToolFilter(McpToolSupport.CheckCalls).AddListToolsFilter(McpToolSupport.PageToolList))
            .WithMessageFilters(filters => filters.AddIncomingFilter(McpToolSupport.CheckMessages));
    }

__SEARCH_TOOL__
    public static string SearchOperations(RequestContext<CallToolRequestParams> context, string query, string? tag = null, int limit = 10, string detail = "summary")
    {
        var full = detail == "full";
        var found = new JsonArray();
        foreach (var operation in Searcher?.Invoke(query, tag, limit) ?? McpSearch.Index.Search(query, tag, limit))
        {
            found.Add(Hit(operation, full, context.Server));
        }
        return found.ToJsonString(Output);
    }

    /// <summary>
    /// One search result: what names and places the operation; with detail "full", also what calling it takes, as
    /// describe_operation gives it (its inputSchema), so that the search saves that round trip.
    /// </summary>
    private static JsonObject Hit(McpSearch.Operation operation, bool full, McpServer server)
    {
        var hit = new JsonObject
        {
            ["name"] = operation.Name,
            ["title"] = operation.Title,
            ["method"] = operation.Method,
            ["path"] = operation.Path,
            ["tags"] = new JsonArray(operation.Tags.Select(t => (JsonNode?)JsonValue.Create(t)).ToArray()),
            ["summary"] = operation.Summary,
        };
        if (full && SignatureOf?.Invoke(operation.Name) is { } signature)
        {
            hit["signature"] = signature;
        }
        else if (full)
        {
            hit["inputSchema"] = InputSchema(ToolFor(operation, server).ProtocolTool);
        }
        return hit;
    }

__DESCRIBE_TOOL__
    public static string DescribeOperation(RequestContext<CallToolRequestParams> context, string name)
    {
        if (McpSearch.Index.Find(name) is not { } operation)
        {
            return McpSearch.Index.Unknown(name);
        }
        var tool = ToolFor(operation, context.Server).ProtocolTool;
        return new JsonObject
        {
            ["name"] = tool.Name,
            ["title"] = tool.Title,
            ["method"] = operation.Method,
            ["path"] = operation.Path,
            ["description"] = tool.Description,
            ["inputSchema"] = InputSchema(tool),
            ["annotations"] = JsonSerializer.SerializeToNode(tool.Annotations, McpJsonUtilities.DefaultOptions),
        }.ToJsonString(Output);
    }

__CALL_TOOL__
    public static async Task<CallToolResult> CallOperation(RequestContext<CallToolRequestParams> context, string name, JsonElement? arguments = null, CancellationToken cancellationToken = default) =>
        (await CallAsync(context, name, arguments, cancellationToken).ConfigureAwait(false)).Result;

    /// <summary>
    /// Calls the operation <paramref name="name"/> as its own tools/call would (same checks, errors and limits):
    /// the answer, and the HTTP status of the API's answer (0 when none came).
    /// </summary>
    public static async Task<(CallToolResult Result, int Status)> CallAsync(RequestContext<CallToolRequestParams> context, string name, JsonElement? arguments, CancellationToken cancellationToken)
    {
        if (McpSearch.Index.Find(name) is not { } operation)
        {
            return (McpToolSupport.ErrorResult(McpSearch.Index.Unknown(name)), 0);
        }
        var tool = ToolFor(operation, context.Server);
        var values = new Dictionary<string, JsonElement>(StringComparer.Ordinal);
        if (arguments is { ValueKind: JsonValueKind.Object } given)
        {
            foreach (var property in given.EnumerateObject())
            {
                values[property.Name] = property.Value.Clone();
            }
        }
        // The operation's own tools/call, as its tool would receive it, with the user's answers to a question it asked.
        var request = new CallToolRequestParams { Name = tool.ProtocolTool.Name, Arguments = values, InputResponses = context.Params?.InputResponses, RequestState = context.Params?.RequestState };
        var call = new RequestContext<CallToolRequestParams>(context.Server, context.JsonRpcRequest, request)
        {
            Services = context.Services,
            MatchedPrimitive = tool,
        };
        var status = new StrongBox<int>();
        var result = await McpToolSupport.InvokeAsync(tool, values, () => tool.InvokeAsync(call, cancellationToken), status).ConfigureAwait(false);
        return (result, status.Value);
    }

    /// <summary>
    /// Annotates call_operation and run_script, which can reach every operation, as the least permissive of those
    /// operations' tools: read-only and idempotent only if all are, destructive if any is (worked out by the generator).
    /// </summary>
    public static void AnnotateReach(IEnumerable<McpServerTool> tools)
    {
        foreach (var tool in tools.Where(t => t.ProtocolTool.Name is "call_operation" or "run_script"))
        {
            tool.ProtocolTool.Annotations = new ToolAnnotations
            {
                Title = tool.ProtocolTool.Title,
                ReadOnlyHint = McpDiscoveryText.ReachReadOnly,
                DestructiveHint = McpDiscoveryText.ReachDestructive,
                IdempotentHint = McpDiscoveryText.ReachIdempotent,
                OpenWorldHint = true,
            };
        }
    }

    /// <summary>The input schema an operation's tool publishes: what call_operation checks its arguments against.</summary>
    private static JsonNode? InputSchema(global::ModelContextProtocol.Protocol.Tool tool) => JsonNode.Parse(tool.InputSchema.GetRawText());

    /// <summary>The tool of an operation, made as the operations-mode server makes it, once.</summary>
    private static McpServerTool ToolFor(McpSearch.Operation operation, McpServer server) => Tools.GetOrAdd(operation.Name, _ =>
    {
        var method = typeof(McpTools).GetMethod(operation.Member, BindingFlags.Public | BindingFlags.Static)
            ?? throw new InvalidOperationException($"McpTools has no method {operation.Member} for the operation {operation.Name}.");
        var tool = McpServerTool.Create(method, target: null, new McpServerToolCreateOptions { Services = server.Services, SerializerOptions = ApiJson.Options });
        McpToolSupport.PublishInputSchemas([tool]);
        return tool;
    });
}
