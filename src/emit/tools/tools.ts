import type { ApiModel, HttpMethod, Operation } from '../../model/types.js';
import { CANCELLATION_PARAMETER, FIXED_NAMES, HTTP_CLIENT_PARAMETER, PROGRESS_PARAMETER, type NamePlan } from '../../names/plan.js';
import { banner } from '../shared/banner.js';
import { toolDescription } from '../shared/describe.js';
import { methodParameters } from '../shared/signature.js';
import { CSharpWriter, jsonText, rawStringLiteral, stringLiteral } from '../shared/writer.js';
import { PartedFile } from '../shared/file.js';
import { inputSchemaText, SchemaDefinitions } from './input-schema.js';
import { outputSchema } from './output-schema.js';
import { asksConfirmation, isDestructive, type ConfirmPolicy } from '../../model/confirm.js';
import { CONFIRM_CLASS, CONFIRM_CONTEXT_PARAMETER, confirmAttribute, emitConfirmAttribute } from './confirm.js';

/** Default longest tool answer, in characters (about 25,000 tokens). */
export const DEFAULT_MAX_RESULT_LENGTH = 100_000;

/** What a tool's annotations say of its operation. */
export interface ToolHints { readonly readOnly: boolean; readonly destructive: boolean; readonly idempotent: boolean }

/** MCP tool annotations by HTTP method; an operation the spec marks for confirmation is destructive whatever its method. */
export function toolHints(op: Operation): ToolHints {
  if (isDestructive(op)) return { readOnly: false, destructive: true, idempotent: op.method === 'delete' };
  return methodHints(op.method);
}

function methodHints(method: HttpMethod): ToolHints {
  switch (method) {
    case 'get': case 'head': case 'options': case 'trace': return { readOnly: true, destructive: false, idempotent: true };
    case 'delete': return { readOnly: false, destructive: true, idempotent: true };
    case 'put': return { readOnly: false, destructive: false, idempotent: true };
    case 'post': case 'patch': return { readOnly: false, destructive: false, idempotent: false };
  }
}

function annotations(op: Operation): string {
  const hints = toolHints(op);
  return `ReadOnly = ${hints.readOnly}, Destructive = ${hints.destructive}, Idempotent = ${hints.idempotent}`;
}

/** The tools' file, as `init` and `host` name it (`tools` writes it where --output-file says). */
export const TOOLS_FILE = 'McpTools.g.cs';

/** The file of the argument schemas the tools share, embedded in the assembly under this name. */
export const INPUT_SCHEMAS_FILE = 'McpInputSchemas.g.json';

/** Most characters of input schemas McpTools.g.cs holds itself; past it, each tool's schema is in McpInputSchemas.g.json too. */
export const INLINE_SCHEMAS_LIMIT = 256 * 1024;

/**
 * `McpTools.g.cs`: one MCP tool per selected operation, calling the client (SPEC 2.2, 4.5); with
 * `structuredOutput`, tools with a JSON answer also publish its `outputSchema`.
 */
export function emitTools(model: ApiModel, plan: NamePlan, operations: readonly Operation[], namespace: string, clientNamespace: string, structuredOutput = false, confirm?: ConfirmPolicy): { file: PartedFile; inputSchemas?: PartedFile } {
  const w = new CSharpWriter();
  // Where the tools' schemas are many (MS Graph's come to 70 MB), each argument schema of some size is written once; and
  // where they are still many, each tool's schema is beside them too, so that the compiler does not read them. What
  // tools/list publishes is the same. A small API keeps them all in McpTools.g.cs.
  // The schemas are made with definitions first: the size they would have inline is counted from them, without making
  // Graph's 70 MB of inline text only to learn that it is too much. Those that fit are made again inline (256 KB at most).
  let definitions = new SchemaDefinitions();
  let schemas = new Map(operations.map((op) => [op.id, inputSchemaText(model, plan, op, definitions)]));
  const withMarkers = [...schemas.values()].reduce((total, text) => total + text.length, 0);
  const inline = withMarkers + definitions.expandedExtra <= INLINE_SCHEMAS_LIMIT;
  if (inline) {
    definitions = new SchemaDefinitions();
    schemas = new Map(operations.map((op) => [op.id, inputSchemaText(model, plan, op)]));
  }
  const shared = !inline && withMarkers > INLINE_SCHEMAS_LIMIT;
  const toolSchemas = new Map<string, string>();
  const attributeText = (op: Operation): string => {
    const text = schemas.get(op.id) ?? '{}';
    const name = plan.operations.get(op.id)?.toolName;
    if (!shared || name === undefined) return text;
    toolSchemas.set(name, text);
    return `${TOOL_SCHEMA_PREFIX}${name}`;
  };
  w.line(banner(`${model.title} ${model.version}`.trim()).trimEnd()).line('#nullable enable');
  if (operations.some((op) => op.deprecated)) w.line('#pragma warning disable CS0618 // Tools still call the operations the API deprecates.');
  w.line();
  const usings = ['System', 'System.Collections.Generic', 'System.ComponentModel', 'System.Net.Http', 'System.Text.Json', 'System.Threading', 'System.Threading.Tasks', 'ModelContextProtocol.Server'];
  for (const using of usings) w.line(`using ${using};`);
  w.line().line(`namespace ${namespace};`).line();
  if (clientNamespace !== namespace) {
    // Inside the namespace, so the client's types win over framework types of the same name.
    w.line(`using ${clientNamespace};`).line();
  }
  w.doc('summary', `MCP tools for ${model.title}. Each returns the JSON of the API's answer, or "Error: …" when the call fails.`);
  w.line('[McpServerToolType]');
  w.open(`public static partial class ${FIXED_NAMES.tools}`);
  operations.forEach((op, index) => {
    if (index > 0) w.line();
    emitTool(w, model, op, plan, structuredOutput, asksConfirmation(op, confirm), attributeText(op));
  });
  if (operations.length > 0) w.line();
  emitRunAsync(w, operations.some((op) => op.longRunning));
  w.line();
  w.doc('summary', 'The JSON Schema of a tool\'s arguments, as the host publishes it and checks calls against it: the spec\'s constraints, which the C# parameter types cannot carry.');
  w.line('[AttributeUsage(AttributeTargets.Method)]');
  if (definitions.byName.size === 0 && toolSchemas.size === 0) {
    w.open('public sealed class InputSchemaAttribute(string json) : Attribute');
    w.line('public string Json { get; } = json;');
    w.close();
  } else {
    emitSharedInputSchemas(w);
  }
  w.line();
  w.doc('summary', 'The JSON Schema of a tool\'s answer (--structured-output), which the host publishes as outputSchema and returns as structuredContent; Wrapped: the answer is its "result" property.');
  w.line('[AttributeUsage(AttributeTargets.Method)]');
  w.open('public sealed class OutputSchemaAttribute(string json, bool wrapped) : Attribute');
  w.line('public string Json { get; } = json;');
  w.line('public bool Wrapped { get; } = wrapped;');
  w.close();
  w.line();
  w.doc('summary', 'The OAuth scopes the spec requires for a tool\'s operation, as alternatives (each space-separated): with --auth oauth, a caller\'s token needs all of one.');
  w.line('[AttributeUsage(AttributeTargets.Method)]');
  w.open('public sealed class OAuthScopesAttribute(params string[] alternatives) : Attribute');
  w.line('public IReadOnlyList<string> Alternatives { get; } = alternatives;');
  w.close();
  if (operations.some((op) => asksConfirmation(op, confirm))) emitConfirmAttribute(w);
  w.close();
  return { file: w.file(TOOLS_FILE), ...((definitions.byName.size > 0 || toolSchemas.size > 0) && { inputSchemas: new PartedFile(INPUT_SCHEMAS_FILE, definitions.toJson(toolSchemas)) }) };
}

/**
 * The attribute of a file whose tools share argument schemas: the schemas are written once, in the embedded resource
 * McpInputSchemas.g.json, and a tool's `"$ref":"#/$defs/<name>"` stands for one's members; where the tools' schemas are
 * many, the attribute names its tool's (`#/tools/<name>`) there. Json is the schema in full.
 */
function emitSharedInputSchemas(w: CSharpWriter): void {
  w.open('public sealed class InputSchemaAttribute(string json) : Attribute');
  w.line('public string Json => Expanded ??= SharedInputSchemas.Expand(json);');
  w.line();
  w.line('private string? Expanded { get; set; }');
  w.close();
  w.line();
  w.doc('summary', `The argument schemas the tools share, read once from the embedded resource ${INPUT_SCHEMAS_FILE} (the host's project embeds it; a project of its own needs <EmbeddedResource Include="${INPUT_SCHEMAS_FILE}" LogicalName="${INPUT_SCHEMAS_FILE}" />).`);
  w.open('private static class SharedInputSchemas');
  w.line(`private const string Marker = ${stringLiteral('"$ref":"#/$defs/')};`);
  w.line();
  w.line('private static readonly Lazy<Dictionary<string, string>> Definitions = new(() =>');
  w.line('{');
  w.line(`    using var stream = typeof(${FIXED_NAMES.tools}).Assembly.GetManifestResourceStream(${stringLiteral(INPUT_SCHEMAS_FILE)})`);
  w.line(`        ?? throw new InvalidOperationException(${stringLiteral(`${INPUT_SCHEMAS_FILE} is not embedded in the assembly: add <EmbeddedResource Include="${INPUT_SCHEMAS_FILE}" LogicalName="${INPUT_SCHEMAS_FILE}" /> to the project.`)});`);
  w.line('    using var document = JsonDocument.Parse(stream);');
  w.line('    var definitions = new Dictionary<string, string>(StringComparer.Ordinal);');
  w.line('    foreach (var definition in document.RootElement.GetProperty("$defs").EnumerateObject())');
  w.line('    {');
  w.line('        // The members of the schema object, as the tools\' schemas had them in place of their marker.');
  w.line('        definitions[definition.Name] = definition.Value.GetRawText()[1..^1];');
  w.line('    }');
  w.line('    if (document.RootElement.TryGetProperty("tools", out var tools))');
  w.line('    {');
  w.line('        foreach (var tool in tools.EnumerateObject())');
  w.line('        {');
  w.line(`            definitions[${stringLiteral(TOOL_SCHEMA_PREFIX)} + tool.Name] = tool.Value.GetRawText();`);
  w.line('        }');
  w.line('    }');
  w.line('    return definitions;');
  w.line('});');
  w.line();
  w.doc('summary', 'A tool\'s schema with each marker replaced by the members it stands for (the markers occur nowhere else: no schema the generator writes has a $ref of its own, and a " inside a string is escaped).');
  w.open('public static string Expand(string json)');
  w.open(`if (json.StartsWith(${stringLiteral(TOOL_SCHEMA_PREFIX)}, StringComparison.Ordinal))`);
  w.line('json = Definitions.Value[json];');
  w.close();
  w.line('var at = json.IndexOf(Marker, StringComparison.Ordinal);');
  w.open('if (at < 0)');
  w.line('return json;');
  w.close();
  w.line('var expanded = new System.Text.StringBuilder(json.Length * 4);');
  w.line('var from = 0;');
  w.open('for (; at >= 0; at = json.IndexOf(Marker, from, StringComparison.Ordinal))');
  w.line("var end = json.IndexOf('\"', at + Marker.Length);");
  w.line('expanded.Append(json, from, at - from).Append(Definitions.Value[json[(at + Marker.Length)..end]]);');
  w.line('from = end + 1;');
  w.close();
  w.line('return expanded.Append(json, from, json.Length - from).ToString();');
  w.close();
  w.close();
}

/** An InputSchema attribute that names its tool's schema in McpInputSchemas.g.json rather than holding it: `#/tools/<name>`. */
const TOOL_SCHEMA_PREFIX = '#/tools/';

function emitTool(w: CSharpWriter, model: ApiModel, op: Operation, plan: NamePlan, structuredOutput: boolean, confirm: boolean, schema: string): void {
  const names = plan.operations.get(op.id);
  if (!names) return;
  const parameters = methodParameters(op, names, plan);
  const anyOptional = parameters.some((p) => p.optional);
  w.line(`[McpServerTool(Name = ${stringLiteral(names.toolName)}, Title = ${stringLiteral(names.title)}, ${annotations(op)})]`);
  w.line(`[Description(${stringLiteral(toolDescription(op))})]`);
  w.line(`[InputSchema(${rawStringLiteral(schema)})]`);
  const output = structuredOutput ? outputSchema(model, op) : undefined;
  if (output) w.line(`[OutputSchema(${rawStringLiteral(jsonText(output.schema))}, ${output.wrapped})]`);
  if (op.scopes) w.line(`[OAuthScopes(${op.scopes.map((alternative) => stringLiteral(alternative.join(' '))).join(', ')})]`);
  if (confirm) w.line(confirmAttribute(op, names, plan));
  w.line(`public static async Task<string> ${names.toolMethod}(`);
  const declared = [
    // No [Description] on the parameters: the InputSchema above is what the tool publishes, descriptions and all.
    ...parameters.map((p) => `${p.type} ${p.name}${p.optional ? ' = null' : ''}`),
    ...(confirm ? [`global::ModelContextProtocol.Server.RequestContext<global::ModelContextProtocol.Protocol.CallToolRequestParams> ${CONFIRM_CONTEXT_PARAMETER}${anyOptional ? ' = null!' : ''}`] : []),
    ...(op.longRunning ? [`IProgress<global::ModelContextProtocol.ProgressNotificationValue>? ${PROGRESS_PARAMETER} = null`] : []),
    `HttpClient ${HTTP_CLIENT_PARAMETER}${anyOptional ? ' = null!' : ''}`,
    `CancellationToken ${CANCELLATION_PARAMETER} = default`,
  ];
  declared.forEach((d, i) => w.line(`    ${d}${i < declared.length - 1 ? ',' : ')'}`));
  const args = [HTTP_CLIENT_PARAMETER, ...parameters.map((p) => p.name), CANCELLATION_PARAMETER].join(', ');
  // A paged operation's answer says where its next page is, and which tool fetches it.
  const nextTool = op.paging ? plan.operations.get(op.paging.nextOperation ?? op.id) : undefined;
  const paging = op.paging && nextTool?.nextLink ? `, ${stringLiteral(op.paging.nextLinkName)}, ${stringLiteral(nextTool.toolName)}, ${stringLiteral(nextTool.nextLink)}` : '';
  const clientCall = `${FIXED_NAMES.clientClass}.${names.clientMethod}(${args})`;
  // The client's task itself, not a lambda that starts it: a closure class per tool is a sixth of a large API's build.
  // A long-running operation is started by RunAsync, after it has set where progress goes. Either way a client method
  // that throws before its task exists (an argument it cannot write) fails the call, which the call filter answers.
  const started = op.longRunning ? `${PROGRESS_PARAMETER}, () => ${clientCall}` : clientCall;
  const call = `await RunAsync(${started}${paging}).ConfigureAwait(false)`;
  // Asked first: nothing is sent unless the user accepted (or confirmation is off).
  w.line(confirm ? `    => ${CONFIRM_CLASS}.Refusal(${CONFIRM_CONTEXT_PARAMETER}) ?? ${call};` : `    => ${call};`);
}

function emitRunAsync(w: CSharpWriter, longRunning: boolean): void {
  w.doc('summary', 'Longest answer a tool returns, in characters; longer JSON is cut and marked. The host sets it from configuration.');
  w.line(`public static int MaxResultLength { get; set; } = ${DEFAULT_MAX_RESULT_LENGTH};`);
  w.line();
  if (longRunning) emitRunLongRunning(w);
  w.doc('summary', 'Turns a client call\'s result into the tool\'s answer; a paged operation\'s answer (with nextLinkName) also notes where the next page is. Only cancellation escapes.');
  w.open(`private static async Task<string> RunAsync<T>(Task<${FIXED_NAMES.result}<T>> call, string? nextLinkName = null, string? nextTool = null, string? nextArgument = null)`);
  w.line(`${FIXED_NAMES.result}<T> result;`);
  w.open('try');
  w.line('result = await call.ConfigureAwait(false);');
  w.close();
  w.open('catch (OperationCanceledException)');
  w.line('throw;');
  w.close();
  w.open('catch (Exception exception)');
  w.line('return "Error: " + exception.Message;');
  w.close();
  w.line();
  w.line('var notes = CallNotes.Current.Value;');
  w.open('if (notes is not null)');
  w.line('notes.Status = result.StatusCode;');
  w.close();
  w.open('if (!result.IsSuccess)');
  w.line('return "Error: " + result.Error;');
  w.close();
  w.open('if (notes is not null)');
  w.line('notes.Headers = result.Headers;');
  w.line('notes.Mismatch = result.Mismatch;');
  w.line('// Said apart from the answer, which may be cut before the link.');
  w.line('if (nextLinkName is not null && result.Body is JsonElement { ValueKind: JsonValueKind.Object } page && page.TryGetProperty(nextLinkName, out var link) && link.ValueKind == JsonValueKind.String && link.GetString() is { Length: > 0 } next)');
  w.line('{');
  w.line('    notes.NextPage = $"There is a next page: call {nextTool} with the same arguments and {nextArgument} = {JsonSerializer.Serialize(next, ' + `${FIXED_NAMES.json}.Options)}."`+';');
  w.line('}');
  w.close();
  w.open('if (result.CutText is { } start)');
  w.line('// Too large to read whole: its start, not parsed, and where it was cut.');
  w.line('return Limit(start) + $"\\n[truncated: the response was cut at {result.CutAtBytes} bytes and not read further; ask for less, e.g. with filters or paging]";');
  w.close();
  w.line();
  w.line('// The answer as the API sent it (JSON as JSON, text as it is), whatever the spec said its shape was.');
  w.line('var json = (result.Body ?? result.Value) switch');
  w.line('{');
  w.line('    null => JsonSerializer.Serialize(new { status = result.StatusCode }),');
  w.line('    // Text itself, not a JSON string of it (no escaped newline or quote); one that reads like an error answer stays');
  w.line('    // a JSON string, so that a success is never taken for a failure.');
  w.line(`    string text => text.StartsWith("Error: ", StringComparison.Ordinal) ? JsonSerializer.Serialize(text, ${FIXED_NAMES.json}.Options) : text,`);
  w.line(`    ${FIXED_NAMES.file} file => JsonSerializer.Serialize(new`);
  w.line('    {');
  w.line('        status = result.StatusCode,');
  w.line('        contentType = file.ContentType,');
  w.line('        fileName = file.FileName,');
  w.line('        length = file.Length,');
  w.line('        base64 = file.IsComplete ? Convert.ToBase64String(file.Content) : null,');
  w.line(`        note = file.IsComplete ? null : $"The content is over {file.Content.Length} bytes and is not returned.",`);
  w.line(`    }, ${FIXED_NAMES.json}.Options),`);
  w.line(`    var value => JsonSerializer.Serialize(value, ${FIXED_NAMES.json}.Options),`);
  w.line('};');
  w.line('return json.Length <= MaxResultLength');
  w.line('    ? json');
  w.line('    : Limit(json) + $"\\n[truncated: the result has {json.Length} characters and the limit is {MaxResultLength}; ask for less, e.g. with filters or paging]";');
  w.line();
  w.line('// The first MaxResultLength characters, never half of a surrogate pair.');
  w.line('static string Limit(string text) => text.Length <= MaxResultLength');
  w.line('    ? text');
  w.line('    : text[..(char.IsHighSurrogate(text[MaxResultLength - 1]) ? MaxResultLength - 1 : MaxResultLength)];');
  w.close();
  w.line();
  w.doc('summary', 'What a call learned beside its answer, for the host that serves it: the answer\'s status, the response headers the spec declares (and Link and Location), and why a successful answer does not fit the type the spec declares. The host sets Current around each call; without a host nothing is noted.');
  w.open('public sealed class CallNotes');
  w.line('public static readonly AsyncLocal<CallNotes?> Current = new();');
  w.line();
  w.line('public int Status { get; set; }');
  w.line();
  w.line('public IReadOnlyList<KeyValuePair<string, string>> Headers { get; set; } = [];');
  w.line();
  w.line('public string? Mismatch { get; set; }');
  w.line();
  w.line('public string? NextPage { get; set; }');
  w.close();
}

/** A long-running operation's RunAsync: where its progress goes is set before the call starts (the client reads it as the call runs). */
function emitRunLongRunning(w: CSharpWriter): void {
  w.doc('summary', 'Starts a long-running operation\'s call once its progress is reported to the client (as MCP progress notifications, when the client asked for them), then answers as the other RunAsync.');
  w.open(`private static async Task<string> RunAsync<T>(IProgress<global::ModelContextProtocol.ProgressNotificationValue>? progress, Func<Task<${FIXED_NAMES.result}<T>>> start, string? nextLinkName = null, string? nextTool = null, string? nextArgument = null)`);
  w.open('if (progress is not null)');
  w.line('var reports = 0;');
  w.line(`${FIXED_NAMES.request}.Progress.Value = message => progress.Report(new global::ModelContextProtocol.ProgressNotificationValue { Progress = ++reports, Message = message });`);
  w.close();
  w.line('return await RunAsync(start(), nextLinkName, nextTool, nextArgument).ConfigureAwait(false);');
  w.close();
  w.line();
}
