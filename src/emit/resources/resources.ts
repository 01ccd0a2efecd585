/**
 * `--resources`: the GET operations without side effects as MCP resources, in `McpResources.g.cs`. One that needs
 * no argument is a resource (`library://books`, read with the API's defaults); one whose only required parameters
 * are path parameters is a resource template (`library://books/{bookId}`), which also takes its optional query
 * parameters as an RFC 6570 query expansion (`{?tag,page}`). A read calls the operation's tool method, so that
 * credentials, limits, redaction and error messages are the tool's.
 */
import type { ApiModel, Operation, TypeRef } from '../../model/types.js';
import { CANCELLATION_PARAMETER, FIXED_NAMES, HTTP_CLIENT_PARAMETER, type NamePlan, type OperationNames } from '../../names/plan.js';
import { LONE_SURROGATE, kebabName } from '../../names/identifiers.js';
import { banner } from '../shared/banner.js';
import { isDestructive } from '../../model/confirm.js';
import { toolDescription } from '../shared/describe.js';
import type { GeneratedFile } from '../shared/file.js';
import { methodParameters, type MethodParameter } from '../shared/signature.js';
import { templates } from '../shared/templates.js';
import { CSharpWriter, stringLiteral } from '../shared/writer.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

/** The file of the resources, beside McpTools.g.cs. */
export const RESOURCES_FILE = 'McpResources.g.cs';
const RESOURCES_CLASS = 'McpResources';

/** One operation as a resource: its URI (template), the media type of its answer, and the parameters the URI gives. */
export interface PlannedResource {
  readonly operation: Operation;
  readonly names: OperationNames;
  /** `library://books/{bookId}{?tag}`: a template when it has an expression. */
  readonly uri: string;
  readonly mimeType: string;
  /** The C# parameters the URI fills, in the order the URI has them. */
  readonly parameters: readonly MethodParameter[];
}

/** The URI scheme of a server's resources: its name in lower case, as RFC 3986 allows a scheme (letters, digits, + . -). */
export function resourceScheme(serverName: string): string {
  return kebabName(serverName);
}

/** A value the SDK reads from a URI: a scalar (not bytes), which it parses with the invariant culture. */
const fromUri = (type: TypeRef): boolean => type.kind === 'primitive' && type.type !== 'bytes' && type.type !== 'file';
/** A URI template variable: the C# name, as the SDK's template parser and its regular expression groups take it. */
const variable = (parameter: MethodParameter): string => parameter.name.replace(/^@/, '');
const simpleName = (parameter: MethodParameter): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(variable(parameter));
/** A literal part of a URI template: what RFC 6570 does not allow there percent-encoded. */
const literal = (text: string): string => encodeURI(text);

/**
 * The operations that are resources, of those selected: GET with a 2xx answer that has a JSON or text body, no
 * required parameter but path parameters (each one a scalar in the path), not marked `x-mcp: { resource: false }`.
 * Two whose URIs differ only in case (the SDK matches URIs regardless of case): the first.
 */
export function planResources(plan: NamePlan, operations: readonly Operation[], serverName: string): PlannedResource[] {
  const scheme = resourceScheme(serverName);
  const seen = new Set<string>();
  const planned: PlannedResource[] = [];
  for (const op of operations) {
    const names = plan.operations.get(op.id);
    const resource = names && resourceOf(op, names, plan, scheme);
    if (!resource || seen.has(resource.uri.toLowerCase())) continue;
    seen.add(resource.uri.toLowerCase());
    planned.push(resource);
  }
  return planned;
}

function resourceOf(op: Operation, names: OperationNames, plan: NamePlan, scheme: string): PlannedResource | undefined {
  // A GET the spec marks for confirmation (x-mcp confirm: true) has effects: never read as context.
  if (op.method !== 'get' || op.mcp?.resource === false || isDestructive(op) || !/^2/.test(op.success.status)) return undefined;
  // Half of a surrogate pair cannot be written in a URI (encodeURI refuses it).
  if (op.requestPath.search(LONE_SURROGATE) >= 0) return undefined;
  if (op.success.kind !== 'json' && op.success.kind !== 'text') return undefined;
  const parameters = methodParameters(op, names, plan);
  const required = parameters.filter((p) => !p.optional);
  const inPath = (p: MethodParameter): boolean => p.source.kind === 'parameter' && p.source.parameter.location === 'path';
  if (!required.every((p) => inPath(p) && p.source.kind === 'parameter' && fromUri(p.source.parameter.type) && simpleName(p))) return undefined;
  // The path, its parameters as template expressions.
  const used: MethodParameter[] = [];
  let path = '';
  let last = 0;
  for (const match of op.requestPath.matchAll(/\{([^{}]*)\}/g)) {
    const parameter = required.find((p) => p.source.kind === 'parameter' && p.source.parameter.name === match[1]);
    if (!parameter || used.includes(parameter)) return undefined;
    path += literal(op.requestPath.slice(last, match.index)) + `{${variable(parameter)}}`;
    last = match.index + match[0].length;
    used.push(parameter);
  }
  path += literal(op.requestPath.slice(last));
  if (used.length !== required.length) return undefined;
  path = path.replace(/^\/+/, '');
  // A template also takes the optional query parameters the SDK can read from a URI; a plain resource stays plain.
  const query = used.length === 0 ? [] : parameters.filter((p) => p.optional && p.source.kind === 'parameter' && p.source.parameter.location === 'query' && fromUri(p.source.parameter.type) && simpleName(p));
  const uri = `${scheme}://${path === '' ? names.toolName : path}${query.length > 0 ? `{?${query.map(variable).join(',')}}` : ''}`;
  return { operation: op, names, uri, mimeType: mimeType(op), parameters: [...used, ...query] };
}

/** The answer's media type without parameters; application/json for JSON the spec gives no exact type for. */
function mimeType(op: Operation): string {
  const media = op.success.mediaType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(media)) return media;
  return op.success.kind === 'text' ? 'text/plain' : 'application/json';
}

/** `McpResources.g.cs`: one method per resource, which reads it through the operation's tool method. */
export function emitResources(model: ApiModel, resources: readonly PlannedResource[], namespace: string): GeneratedFile {
  const w = new CSharpWriter();
  w.line(banner(`${model.title} ${model.version}`.trim()).trimEnd()).line('#nullable enable').line();
  for (const using of ['System', 'System.ComponentModel', 'System.Net.Http', 'System.Threading', 'System.Threading.Tasks', 'ModelContextProtocol.Server']) w.line(`using ${using};`);
  w.line().line(`namespace ${namespace};`).line();
  w.doc('summary', `MCP resources for ${model.title}: its GET operations that need no argument but path parameters. Each is read through its operation's tool; an answer the tool gives as "Error: …" is an MCP error.`);
  w.line('[McpServerResourceType]');
  w.open(`public static class ${RESOURCES_CLASS}`);
  resources.forEach((resource, index) => {
    if (index > 0) w.line();
    emitResource(w, resource);
  });
  w.close();
  return { path: RESOURCES_FILE, content: w.toString() };
}

function emitResource(w: CSharpWriter, resource: PlannedResource): void {
  const { names, operation } = resource;
  const method = names.toolMethod === RESOURCES_CLASS ? `${names.toolMethod}Resource` : names.toolMethod;
  w.line(`[McpServerResource(UriTemplate = ${stringLiteral(resource.uri)}, Name = ${stringLiteral(names.toolName)}, Title = ${stringLiteral(names.title)}, MimeType = ${stringLiteral(resource.mimeType)})]`);
  w.line(`[Description(${stringLiteral(toolDescription(operation))})]`);
  w.line(`public static Task<string> ${method}(`);
  const declared = [
    ...resource.parameters.filter((p) => !p.optional).map((p) => `${p.type} ${p.name}`),
    `HttpClient ${HTTP_CLIENT_PARAMETER}`,
    ...resource.parameters.filter((p) => p.optional).map((p) => `${p.type} ${p.name} = null`),
    `CancellationToken ${CANCELLATION_PARAMETER} = default`,
  ];
  declared.forEach((d, i) => w.line(`    ${d}${i < declared.length - 1 ? ',' : ')'}`));
  const args = [...resource.parameters.map((p) => p.name), HTTP_CLIENT_PARAMETER, CANCELLATION_PARAMETER].map((name) => `${name}: ${name}`).join(', ');
  w.line(`    => McpResourceSupport.ReadAsync(${FIXED_NAMES.tools}.${names.toolMethod}(${args}));`);
}

const template = templates('resources');

/** The host's part: how a read's answer becomes the resource's text or an MCP error, and the URIs that do not fit. */
export const operationResources: HostFeature = {
  applies: (options) => options.resources === true,
  files: (options, source) => [template('McpResourceSupport', supportPath('McpResourceSupport.cs'), options.namespace, source, options.clientNamespace)],
  program: () => ({ server: ['// GET operations as resources (--resources), read through their tools.', '.WithOperationResources()'] }),
};
