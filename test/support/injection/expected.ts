/**
 * What one spec's generated code must declare, taken from the generator's own naming plan, compared with
 * what the compiled assembly really declares (read by reflection). Everything else is a problem: an
 * injected `class Evil`, a field, a method, an overload, a missing or renamed member, a changed text.
 */
import type { PreparedApi } from '../../../src/index.js';
import { FIXED_NAMES, type NamePlan } from '../../../src/names/plan.js';
import { bareName } from '../../../src/names/identifiers.js';
import { toolDescription } from '../../../src/emit/shared/describe.js';
import { inputSchema } from '../../../src/emit/tools/input-schema.js';
import { methodParameters } from '../../../src/emit/shared/signature.js';
import { DISCOVERY_TEXT_CLASS, discoveryTools, reachHints } from '../../../src/emit/discovery/discovery.js';
import { searchMap } from '../../../src/emit/discovery/search-map.js';
import type { AttributeInfo, MemberInfo, TypeInfo } from './batch.js';

const DESCRIPTION = 'System.ComponentModel.DescriptionAttribute';
const ALLOWED_VALUES = 'System.ComponentModel.DataAnnotations.AllowedValuesAttribute';
const RANGE = 'System.ComponentModel.DataAnnotations.RangeAttribute';
const JSON_PROPERTY_NAME = 'System.Text.Json.Serialization.JsonPropertyNameAttribute';
const MCP_SERVER_TOOL = 'ModelContextProtocol.Server.McpServerToolAttribute';
const MCP_SERVER_TOOL_TYPE = 'ModelContextProtocol.Server.McpServerToolTypeAttribute';
const INPUT_SCHEMA = 'InputSchemaAttribute';
const OUTPUT_SCHEMA = 'OutputSchemaAttribute';
const CALL_NOTES = 'CallNotes';
const OAUTH_SCOPES = 'OAuthScopesAttribute';
/** What the discovery tools say of the selected operations (McpDiscoveryText.g.cs): the descriptions with the map of the API. */
const DISCOVERY = DISCOVERY_TEXT_CLASS;

/** Types declared by the runtime files (the templates copied into the client), as reflection names them. */
export interface RuntimeTypes {
  /** Top-level types (`ApiResult\`1`, `ApiError`, …); a partial class spread over several files counts once. */
  readonly topLevel: string[];
  /** Types declared inside them, as `Outer+Inner`. */
  readonly nested: string[];
}

const DECLARATION = /^(\s*)(?:(?:public|private|internal|static|sealed|abstract|partial|readonly)\s+)+(?:class|record|struct|enum|interface)\s+(\w+)(<[^>]*>)?/gm;

/** The types the runtime files declare: unindented declarations are top-level, indented ones nested in the last. */
export function runtimeTypeNames(runtimeFiles: readonly string[]): RuntimeTypes {
  const topLevel = new Set<string>();
  const nested = new Set<string>();
  for (const content of runtimeFiles) {
    let outer = '';
    for (const m of content.matchAll(DECLARATION)) {
      const name = m[3] ? `${m[2]}\`${m[3].split(',').length}` : m[2] ?? '';
      if ((m[1] ?? '') === '') topLevel.add(outer = name);
      else nested.add(`${outer}+${name}`);
    }
  }
  return { topLevel: [...topLevel], nested: [...nested] };
}

/** Members the compiler writes (backing fields, closures, `<Clone>$`): an injected name cannot contain `<`. */
const isCompilerGenerated = (name: string): boolean => name.includes('<');

/** Members every sealed record declares on its own. */
const RECORD_METHODS = new Set(['ToString', 'PrintMembers', 'GetHashCode', 'Equals', 'op_Equality', 'op_Inequality', 'get_EqualityContract']);

/** `extra` and `missing` between two multisets of names, or nothing when they are equal. */
export function diffNames(what: string, actual: readonly string[], expected: readonly string[]): string[] {
  const remaining = [...expected];
  const extra: string[] = [];
  for (const name of actual) {
    const index = remaining.indexOf(name);
    if (index === -1) extra.push(name);
    else remaining.splice(index, 1);
  }
  if (extra.length === 0 && remaining.length === 0) return [];
  return [`${what}: extra ${show(extra)}, missing ${show(remaining)}`];
}

/** Names for messages: JSON-quoted, long ones cut. */
export function show(values: readonly unknown[]): string {
  return `[${values.map((v) => cut(JSON.stringify(v) ?? String(v))).join(', ')}]`;
}

const cut = (text: string, max = 120): string => (text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text);

function attribute(attributes: readonly AttributeInfo[], type: string): AttributeInfo | undefined {
  return attributes.find((a) => a.type === type);
}

function expectText(problems: string[], what: string, actual: unknown, expected: string | undefined): void {
  if (actual !== expected) problems.push(`${what}: ${cut(JSON.stringify(actual) ?? 'absent', 300)} instead of ${cut(JSON.stringify(expected) ?? 'absent', 300)}`);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Attribute arguments are stored as UTF-8 in metadata, so a lone surrogate (not text, and not
 * encodable) comes back as U+FFFD replacement characters: both are left out of the comparison.
 */
const attributeText = (text: unknown): unknown => (typeof text === 'string' ? text.replace(LONE_SURROGATE, '').replace(/\ufffd/g, '') : text);

/** An attribute argument equals the text the emitter meant, lone surrogates aside. */
function expectAttributeText(problems: string[], what: string, actual: unknown, expected: string | undefined): void {
  if (attributeText(actual) !== attributeText(expected)) expectText(problems, what, actual, expected);
}

/**
 * The spec's own text must survive inside the description the emitter writes, when it is short enough not
 * to be cut. The check is independent of the emitter's wording ("Allowed values", "Default", added periods).
 */
function expectContains(problems: string[], what: string, actual: unknown, original: string | undefined): void {
  const text = attributeText(original?.trim()) as string | undefined;
  if (!text || text.length > 800) return;
  const found = attributeText(actual);
  if (typeof found !== 'string' || !found.includes(text)) problems.push(`${what}: the spec's text ${cut(JSON.stringify(text))} is missing from ${cut(JSON.stringify(actual) ?? 'absent')}`);
}

const names = (members: readonly MemberInfo[], kind: MemberInfo['kind']): string[] =>
  members.filter((m) => m.kind === kind && !isCompilerGenerated(m.name)).map((m) => m.name);

/** Problems with the declarations of spec `index` (namespaces `S<index>` and `S<index>.Client`). */
export function declarationProblems(index: number, api: PreparedApi, plan: NamePlan, runtimeTypes: RuntimeTypes, doc: Record<string, unknown>, all: readonly TypeInfo[]): string[] {
  const problems: string[] = [];
  const namespace = `S${index}`;
  const clientNamespace = `${namespace}.Client`;
  const mine = all.filter((t) => t.namespace === namespace || t.namespace === clientNamespace || t.namespace?.startsWith(`${namespace}.`));

  // Types: exactly the planned records, the runtime and the two classes; no nested type but the compiler's and the runtime's.
  const topLevel = mine.filter((t) => t.declaringType === null && !isCompilerGenerated(t.name));
  const records = [...plan.types.values()].map((t) => bareName(t.name));
  problems.push(...diffNames(`types of ${clientNamespace}`, topLevel.filter((t) => t.namespace === clientNamespace).map((t) => t.name), [...runtimeTypes.topLevel, FIXED_NAMES.clientClass, ...records]));
  problems.push(...diffNames(`types of ${namespace}`, topLevel.filter((t) => t.namespace === namespace).map((t) => t.name), [FIXED_NAMES.tools, DISCOVERY]));
  problems.push(...diffNames(`other namespaces under ${namespace}`, topLevel.filter((t) => t.namespace !== namespace && t.namespace !== clientNamespace).map((t) => t.fullName), []));
  problems.push(...diffNames(`nested types in ${namespace}`, mine.filter((t) => t.declaringType !== null && !isCompilerGenerated(t.name)).map((t) => t.fullName), [`${namespace}.${FIXED_NAMES.tools}+${INPUT_SCHEMA}`, `${namespace}.${FIXED_NAMES.tools}+${OUTPUT_SCHEMA}`, `${namespace}.${FIXED_NAMES.tools}+${CALL_NOTES}`, `${namespace}.${FIXED_NAMES.tools}+${OAUTH_SCOPES}`, ...runtimeTypes.nested.map((n) => `${clientNamespace}.${n}`)]));
  const find = (ns: string, name: string): TypeInfo | undefined => topLevel.find((t) => t.namespace === ns && t.name === name);

  // Records: exactly the planned properties and their JSON names; no schema attributes (the tools publish their own schemas).
  for (const type of api.model.types.values()) {
    const planned = plan.types.get(type.id);
    if (!planned) {
      problems.push(`no planned name for the type at ${type.id}`);
      continue;
    }
    const name = bareName(planned.name);
    const record = find(clientNamespace, name);
    if (!record) continue; // already reported as missing
    if (record.kind !== 'record' || !record.isPublic) problems.push(`${name} is a ${record.isPublic ? 'public' : 'non-public'} ${record.kind}, not a public record`);
    const properties = planned.properties.map(bareName);
    problems.push(...diffNames(`properties of ${name}`, names(record.members, 'Property'), [...properties, 'EqualityContract']));
    const accessors = properties.flatMap((p) => [`get_${p}`, `set_${p}`]);
    problems.push(...diffNames(`methods of ${name}`, names(record.members, 'Method').filter((m) => !RECORD_METHODS.has(m)), accessors));
    problems.push(...diffNames(`fields, events and nested types of ${name}`, record.members.filter((m) => ['Field', 'Event', 'NestedType'].includes(m.kind) && !isCompilerGenerated(m.name)).map((m) => m.name), []));
    type.properties.forEach((property, i) => {
      const member = record.members.find((m) => m.kind === 'Property' && m.name === properties[i]);
      if (!member) return;
      const what = `${name}.${properties[i]}`;
      expectAttributeText(problems, `${what} [JsonPropertyName]`, attribute(member.attributes, JSON_PROPERTY_NAME)?.args[0], property.jsonName);
      const present = member.attributes.filter((a) => [DESCRIPTION, ALLOWED_VALUES, RANGE].includes(a.type)).map((a) => a.type);
      if (present.length > 0) problems.push(`${what} has ${present.join(', ')}: tools publish their own input schemas`);
    });
  }

  // The client: one extension method per operation, the server URL as given.
  const client = find(clientNamespace, FIXED_NAMES.clientClass);
  if (client) {
    if (!client.isStatic) problems.push(`${FIXED_NAMES.clientClass} is not a static class`);
    const operations = api.model.operations.map((op) => ({ op, names: plan.operations.get(op.id) }));
    problems.push(...diffNames(`methods of ${FIXED_NAMES.clientClass}`, names(client.members, 'Method'), operations.map((o) => o.names?.clientMethod ?? '?')));
    problems.push(...diffNames(`fields of ${FIXED_NAMES.clientClass}`, names(client.members, 'Field'), ['DefaultBaseUrl']));
    problems.push(...diffNames(`other members of ${FIXED_NAMES.clientClass}`, client.members.filter((m) => !['Method', 'Field'].includes(m.kind) && !isCompilerGenerated(m.name)).map((m) => `${m.kind} ${m.name}`), []));
    const url = client.members.find((m) => m.kind === 'Field' && m.name === 'DefaultBaseUrl')?.constant;
    expectText(problems, `${FIXED_NAMES.clientClass}.DefaultBaseUrl`, url, api.model.serverUrl ?? '');
    const servers = doc.servers as { url?: unknown }[] | undefined;
    expectText(problems, `${FIXED_NAMES.clientClass}.DefaultBaseUrl (the spec's servers[0].url)`, url, typeof servers?.[0]?.url === 'string' ? servers[0].url : '');
    for (const { op, names: opNames } of operations) {
      if (!opNames) continue;
      const method = client.members.find((m) => m.kind === 'Method' && m.name === opNames.clientMethod);
      if (!method) continue;
      const expected = ['httpClient', ...methodParameters(op, opNames, plan).map((p) => bareName(p.name)), 'cancellationToken'];
      expectText(problems, `parameters of ${opNames.clientMethod}`, JSON.stringify(method.parameters?.map((p) => p.name)), JSON.stringify(expected));
    }
  }

  // The tools: one method per operation with the planned tool name, title and the emitter's descriptions.
  const tools = find(namespace, FIXED_NAMES.tools);
  if (tools) {
    if (!tools.isStatic) problems.push(`${FIXED_NAMES.tools} is not a static class`);
    if (!attribute(tools.attributes, MCP_SERVER_TOOL_TYPE)) problems.push(`${FIXED_NAMES.tools} has no [McpServerToolType]`);
    const operations = api.model.operations.map((op) => ({ op, names: plan.operations.get(op.id) }));
    problems.push(...diffNames(`methods of ${FIXED_NAMES.tools}`, names(tools.members, 'Method'), [...operations.map((o) => o.names?.toolMethod ?? '?'), 'RunAsync', 'get_MaxResultLength', 'set_MaxResultLength']));
    problems.push(...diffNames(`properties of ${FIXED_NAMES.tools}`, names(tools.members, 'Property'), ['MaxResultLength']));
    problems.push(...diffNames(`fields, events and nested types of ${FIXED_NAMES.tools}`, tools.members.filter((m) => ['Field', 'Event', 'NestedType'].includes(m.kind) && !isCompilerGenerated(m.name)).map((m) => m.name), [INPUT_SCHEMA, OUTPUT_SCHEMA, CALL_NOTES, OAUTH_SCOPES]));
    problems.push(...diffNames(`constructors of ${FIXED_NAMES.tools}`, names(tools.members, 'Constructor'), ['.cctor']));
    const toolNames: string[] = [];
    for (const { op, names: opNames } of operations) {
      if (!opNames) continue;
      const method = tools.members.find((m) => m.kind === 'Method' && m.name === bareName(opNames.toolMethod));
      if (!method) continue;
      const what = `${FIXED_NAMES.tools}.${method.name}`;
      const tool = attribute(method.attributes, MCP_SERVER_TOOL);
      if (!tool) {
        problems.push(`${what} has no [McpServerTool]`);
        continue;
      }
      toolNames.push(String(tool.named.Name));
      expectText(problems, `${what} [McpServerTool] Name`, tool.named.Name, opNames.toolName);
      expectText(problems, `${what} [McpServerTool] Title`, tool.named.Title, opNames.title);
      if (!/^[a-z0-9_]{1,64}$/.test(String(tool.named.Name))) problems.push(`${what}: tool name ${JSON.stringify(tool.named.Name)} does not match ^[a-z0-9_]{1,64}$`);
      const description = attribute(method.attributes, DESCRIPTION)?.args[0];
      expectAttributeText(problems, `${what} [Description]`, description, toolDescription(op));
      expectContains(problems, `${what} [Description]`, description, (op.summary ?? '').length + (op.description ?? '').length < 900 ? op.summary ?? op.description : undefined);
      // The input schema is JSON that parses to exactly what the generator planned, whatever the spec's strings.
      const schemaJson = attribute(method.attributes, `${namespace}.${FIXED_NAMES.tools}+${INPUT_SCHEMA}`)?.args[0];
      let published: unknown;
      try {
        published = JSON.parse(String(schemaJson));
      } catch {
        published = `not JSON: ${cut(String(schemaJson))}`;
      }
      expectAttributeText(problems, `${what} [InputSchema]`, JSON.stringify(published), JSON.stringify(inputSchema(api.model, plan, op)));
      const parameters = methodParameters(op, opNames, plan);
      expectText(problems, `parameters of ${what}`, JSON.stringify(method.parameters?.map((p) => p.name)), JSON.stringify([...parameters.map((p) => bareName(p.name)), 'httpClient', 'cancellationToken']));
      // The parameters carry no [Description]: the input schema above publishes each one's, checked there.
      parameters.forEach((parameter, i) => {
        const actual = method.parameters?.[i];
        if (actual && attribute(actual.attributes, DESCRIPTION)) problems.push(`${what}(${actual.name}) has a [Description]: the input schema holds it`);
        const property = (published as { properties?: Record<string, { description?: string }> })?.properties?.[bareName(parameter.name)];
        if (parameter.source.kind === 'parameter') expectContains(problems, `${what}(${parameter.name}) schema description`, property?.description, parameter.source.parameter.facts.description);
        else if (parameter.source.kind === 'body') expectContains(problems, `${what}(body) schema description`, property?.description, parameter.source.body.description);
      });
    }
    problems.push(...diffNames(`tool names of ${namespace}`, toolNames, [...new Set(toolNames)]));
  }

  // The discovery tools' descriptions: constants, exactly the texts with the map of the spec's tags.
  const discovery = find(namespace, DISCOVERY);
  if (discovery) {
    const described = discoveryTools('discovery', searchMap(api.model.operations)).flatMap((t) => (t.describedBy === undefined ? [] : [[t.describedBy, t.description] as const]));
    const reach = Object.keys(reachHints(api.model.operations));
    problems.push(...diffNames(`members of ${DISCOVERY}`, discovery.members.filter((m) => !isCompilerGenerated(m.name)).map((m) => `${m.kind} ${m.name}`), [...described.map(([name]) => `Field ${name}`), ...reach.map((name) => `Field ${name}`)]));
    for (const [name, text] of described) expectAttributeText(problems, `${DISCOVERY}.${name}`, discovery.members.find((m) => m.name === name)?.constant, text);
  }
  return problems;
}
