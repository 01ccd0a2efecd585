#nullable enable

using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.ComponentModel;
using System.Linq;
using System.Reflection;
using System.Text.Json;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using ModelContextProtocol.Protocol;
using ModelContextProtocol.Server;
using __CLIENT_NAMESPACE__;
// The protocol's types, whatever the API's schemas are named.
using Tool = ModelContextProtocol.Protocol.Tool;
using ToolAnnotations = ModelContextProtocol.Protocol.ToolAnnotations;

namespace __NAMESPACE__;

/// <summary>
/// The tools of an operations-mode server, each made when it is first called rather than all at start: tools/list
/// is read from the attributes the generator wrote on each <see cref="McpTools"/> method (name, title, annotations,
/// description, input and output schema), which are what the SDK makes the tool's definition from, and a tool is
/// made from its method on its first call, once. An API of thousands of operations so starts in a fraction of the
/// time and memory that making every tool takes, and the server holds only the tools it has been asked for.
/// </summary>
internal static class McpToolCatalog
{
    /// <summary>A tool: its method, and for one written by hand, the tool the SDK made of it at start.</summary>
    private sealed record Entry(string Name, MethodInfo Method, McpServerTool? Made);

    /// <summary>The tools, ordered by name (ordinal), as tools/list pages them.</summary>
    private static Entry[] _entries = [];

    private static string[] _names = [];

    private static Dictionary<string, Entry> _byName = new(StringComparer.Ordinal);

    private static IServiceProvider? _services;

    private static readonly ConcurrentDictionary<string, McpServerTool> Made = new(StringComparer.Ordinal);

    /// <summary>
    /// The tools of <see cref="McpTools"/>, one per operation: tools/list in pages read from their attributes, so that a
    /// client can list any number of tools, and each tool made on its first call. Every call is audited
    /// (<see cref="McpAudit"/>) and its arguments checked against the published input schemas; every Error: answer is
    /// flagged isError.
    /// </summary>
    public static IMcpServerBuilder WithToolCatalog(this IMcpServerBuilder builder)
    {
        // When the server is made: the tools read, and the SDK's own tool collection empty. With a collection, the server
        // announces its tools (listChanged) and the SDK calls the tool FindTool matches.
        // (A stateless HTTP server makes a server per request: the tools are read once, for the first.)
        builder.Services.AddSingleton<IConfigureOptions<McpServerOptions>>(services =>
        {
            var loaded = new Lazy<bool>(() =>
            {
                Load(services);
                return true;
            });
            return new ConfigureOptions<McpServerOptions>(options =>
            {
                _ = loaded.Value;
                options.ToolCollection = [];
            });
        });
        return builder
            .WithRequestFilters(filters => filters.AddCallToolFilter(McpAudit.Calls))
            .WithListToolsHandler(ListTools)
            .WithRequestFilters(filters => filters.AddCallToolFilter(FindTool).AddCallToolFilter(McpToolSupport.CheckCalls))
            .WithMessageFilters(filters => filters.AddIncomingFilter(McpToolSupport.CheckMessages));
    }

    /// <summary>
    /// Reads the tools: every method of <see cref="McpTools"/> with <see cref="McpServerToolAttribute"/>, the first of a
    /// name kept. One written by hand in another part of the class (without <see cref="McpTools.InputSchemaAttribute"/>,
    /// which the generator writes on every tool) is made at once, so that tools/list has the SDK's own definition of it.
    /// </summary>
    public static void Load(IServiceProvider services)
    {
        _services = services;
        var entries = new Dictionary<string, Entry>(StringComparer.Ordinal);
        foreach (var method in typeof(McpTools).GetMethods(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static))
        {
            if (method.GetCustomAttribute<McpServerToolAttribute>() is not { } attribute)
            {
                continue;
            }
            var made = attribute.Name is not null && method.IsDefined(typeof(McpTools.InputSchemaAttribute), inherit: false) ? null : Create(method, services);
            var name = made?.ProtocolTool.Name ?? attribute.Name!;
            entries.TryAdd(name, new Entry(name, method, made));
        }
        _entries = entries.Values.OrderBy(e => e.Name, StringComparer.Ordinal).ToArray();
        _names = Array.ConvertAll(_entries, e => e.Name);
        _byName = entries;
    }

    /// <summary>tools/list: the page the cursor asks for, each tool's definition read when its page is served.</summary>
    public static McpRequestHandler<ListToolsRequestParams, ListToolsResult> ListTools { get; } = (context, cancellationToken) =>
        ValueTask.FromResult(McpToolSupport.Page(_names, i => Definition(_entries[i]), context.Params?.Cursor));

    /// <summary>
    /// The call-tool filter, before <see cref="McpToolSupport.CheckCalls"/>: the tool a call names, made on its first
    /// call. A name that is no tool's is left to the SDK, which answers it as an unknown tool.
    /// </summary>
    public static McpRequestFilter<CallToolRequestParams, CallToolResult> FindTool { get; } = next => (context, cancellationToken) =>
    {
        if (context.MatchedPrimitive is null && context.Params?.Name is { } name && _byName.TryGetValue(name, out var entry))
        {
            context.MatchedPrimitive = entry.Made ?? Made.GetOrAdd(entry.Name, _ => Create(entry.Method, _services!));
        }
        return next(context, cancellationToken);
    };

    /// <summary>The tool of a method, as the SDK makes it, with the input (and output) schema the generator wrote.</summary>
    private static McpServerTool Create(MethodInfo method, IServiceProvider services)
    {
        var tool = McpServerTool.Create(method, target: null, new McpServerToolCreateOptions { Services = services, SerializerOptions = ApiJson.Options });
        McpToolSupport.PublishInputSchemas([tool]);
        return tool;
    }

    /// <summary>
    /// A tool's tools/list definition. For a generated tool it is read from its attributes as the SDK reads them: the
    /// title and the three hints of <see cref="McpServerToolAttribute"/> (the generator sets those, never OpenWorld),
    /// the <see cref="DescriptionAttribute"/>, and the schemas <see cref="McpToolSupport.PublishInputSchemas"/> publishes
    /// (the generator's output schemas are objects, which the SDK sends to clients of every protocol version as they are).
    /// </summary>
    private static Tool Definition(Entry entry)
    {
        if (entry.Made is { } made)
        {
            return made.ProtocolTool;
        }
        var method = entry.Method;
        var attribute = method.GetCustomAttribute<McpServerToolAttribute>()!;
        return new Tool
        {
            Name = entry.Name,
            Title = attribute.Title,
            Description = method.GetCustomAttribute<DescriptionAttribute>()?.Description,
            InputSchema = Parse(method.GetCustomAttribute<McpTools.InputSchemaAttribute>()!.Json),
            OutputSchema = method.GetCustomAttribute<McpTools.OutputSchemaAttribute>() is { } output ? Parse(output.Json) : null,
            Annotations = new ToolAnnotations
            {
                Title = attribute.Title,
                ReadOnlyHint = attribute.ReadOnly,
                DestructiveHint = attribute.Destructive,
                IdempotentHint = attribute.Idempotent,
            },
        };
    }

    private static JsonElement Parse(string json)
    {
        using var document = JsonDocument.Parse(json);
        return document.RootElement.Clone();
    }
}
