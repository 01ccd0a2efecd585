import type { ApiModel, Operation, Parameter, ResponseKind, TypeRef } from '../../model/types.js';
import { FIXED_NAMES, HTTP_CLIENT_PARAMETER, CANCELLATION_PARAMETER, clientParameterKey, type NamePlan } from '../../names/plan.js';
import { banner } from '../shared/banner.js';
import { templates } from '../shared/templates.js';
import { valueDescription } from '../shared/describe.js';
import { methodParameters } from '../shared/signature.js';
import { csharpType } from '../shared/csharp-types.js';
import { CSharpWriter, docLines, stringLiteral } from '../shared/writer.js';
import { LONE_SURROGATE, bareName } from '../../names/identifiers.js';
import type { GeneratedFile } from '../shared/file.js';

const template = templates('client');
/** The client's runtime, real C# files in src/emit/client/csharp: results and limits, building, bodies, sending, reading answers, error messages. */
const RUNTIME_FILES = ['ApiRuntime', 'ApiRequest', 'ApiRequestBodies', 'ApiRequestSend', 'ApiResponseRead', 'ApiLongRunning', 'ApiErrorMessages'] as const;

/** The companion REST client: runtime (result, error, request), models, and one extension method per operation. */
export function emitClient(model: ApiModel, plan: NamePlan, namespace: string): GeneratedFile[] {
  const source = `${model.title} ${model.version}`.trim();
  return [
    emitClientClass(model, plan, namespace, source).file(`${FIXED_NAMES.clientClass}.g.cs`),
    ...(model.securitySchemes.length > 0 ? [template('ApiCredentials', 'ApiCredentials.g.cs', namespace, source)] : []),
    ...RUNTIME_FILES.map((name) => template(name, `${name}.g.cs`, namespace, source)),
    emitModels(model, plan, namespace, source).file('Models.g.cs'),
  ];
}

function emitModels(model: ApiModel, plan: NamePlan, namespace: string, source: string): CSharpWriter {
  const w = new CSharpWriter();
  w.line(banner(source).trimEnd()).line('#nullable enable').line();
  for (const using of ['System', 'System.Collections.Generic', 'System.Text.Json', 'System.Text.Json.Serialization']) w.line(`using ${using};`);
  w.line().line(`namespace ${namespace};`);
  for (const type of model.types.values()) {
    const names = plan.types.get(type.id);
    if (!names) continue;
    w.line().doc('summary', type.description);
    w.open(`public sealed partial record ${names.name}`);
    type.properties.forEach((property, index) => {
      if (index > 0) w.line();
      w.doc('summary', valueDescription(property.facts, property.type));
      w.line(`[JsonPropertyName(${stringLiteral(property.jsonName)})]`);
      const required = property.required ? 'required ' : '';
      w.line(`public ${required}${csharpType(property.type, plan, !property.required)} ${names.properties[index]} { get; init; }`);
    });
    w.close();
  }
  return w;
}

function emitClientClass(model: ApiModel, plan: NamePlan, namespace: string, source: string): CSharpWriter {
  const w = new CSharpWriter();
  w.line(banner(source).trimEnd()).line('#nullable enable').line();
  for (const using of ['System', 'System.Collections.Generic', 'System.Net.Http', 'System.Text.Json', 'System.Threading', 'System.Threading.Tasks']) w.line(`using ${using};`);
  w.line().line(`namespace ${namespace};`).line();
  w.doc('summary', `${model.title}: one extension method of HttpClient per operation. The HttpClient's BaseAddress is the API's base URL.`);
  w.open(`public static partial class ${FIXED_NAMES.clientClass}`);
  w.doc('summary', model.serverUrl ? 'The first server URL of the OpenAPI document.' : model.serverPath ? 'The OpenAPI document names its server by a path alone: configure the API\'s origin (see ServerPath).' : 'The OpenAPI document names no server: configure the base URL.');
  w.line(`public const string DefaultBaseUrl = ${stringLiteral(model.serverUrl ?? '')};`);
  if (model.serverPath !== undefined) {
    w.doc('summary', 'The path of the document\'s server, which names no host: a base URL given as an origin alone (no path of its own) gets it.');
    w.line(`public const string ServerPath = ${stringLiteral(model.serverPath)};`);
  }
  for (const op of model.operations) emitOperation(w, op, plan);
  w.close();
  emitClientParameters(w, plan);
  return w;
}

/** The parameters the client sets once (`api-version`, an ARM `subscriptionId`), as properties the host sets from its settings. */
function emitClientParameters(w: CSharpWriter, plan: NamePlan): void {
  if (plan.clientParameters.size === 0) return;
  w.line();
  w.doc('summary', 'The parameters the API takes on every call that the client sets once, as Azure\'s SDKs do: set them before the first call (the MCP server sets them from its settings). Where a method takes one too, the value it is given wins.');
  w.open(`public static class ${FIXED_NAMES.clientParameters}`);
  let first = true;
  for (const client of plan.clientParameters.values()) {
    if (!first) w.line();
    first = false;
    const what = `${client.name} (${client.location})${client.description ? `: ${client.description.trim()}` : ''}`;
    if (client.client.fixed && client.client.value !== undefined) {
      w.doc('summary', `${what} The version the document describes, ${client.client.value}; no method takes another.`);
      w.line(`public static string ${client.property} { get; set; } = ${stringLiteral(client.client.value)};`);
    } else {
      w.doc('summary', `${what} Sent where a call gives none; null: each call must give it.`);
      w.line(`public static string? ${client.property} { get; set; }`);
    }
  }
  w.close();
}

const QUERY_STYLES: Record<string, string> = { spaceDelimited: 'SpaceDelimited', pipeDelimited: 'PipeDelimited', deepObject: 'DeepObject' };

/** The optional arguments of `Query(...)` that differ from the defaults (`form`, exploded). */
function queryOptions(parameter: Parameter): string {
  const style = QUERY_STYLES[parameter.style];
  return (parameter.explode ? '' : ', explode: false') + (style ? `, style: ${FIXED_NAMES.queryStyle}.${style}` : '');
}

/**
 * A parameter's value as the request takes it: the client's own where it sets the parameter once (a method's value
 * first, where it takes one); a parameter declared with `content` is one value, its JSON text.
 */
function written(parameter: Parameter, name: string, plan: NamePlan): string {
  const client = parameter.client ? plan.clientParameters.get(clientParameterKey(parameter)) : undefined;
  const own = !client ? name
    : parameter.client?.fixed ? `${FIXED_NAMES.clientParameters}.${client.property}`
    : `(${FIXED_NAMES.request}.Format(${name}) ?? ${FIXED_NAMES.clientParameters}.${client.property})`;
  return parameter.content ? `${FIXED_NAMES.request}.JsonText(${own})` : own;
}

/** A parameter the client cannot write as the spec says: a call that gives it is not sent. */
function refusal(parameter: Parameter, name: string): string {
  const why = `the ${parameter.location} parameter '${parameter.name}' is written as ${parameter.content?.mediaType ?? 'an unknown media type'}, which this client cannot write`;
  return `.Refuse(${name}, ${stringLiteral(why)})`;
}

function resultType(op: Operation, plan: NamePlan): string {
  if (op.success.kind === 'binary') return FIXED_NAMES.file;
  if (op.success.kind === 'none' || !op.success.type) return 'JsonElement?';
  return csharpType(nonNullable(op.success.type), plan);
}

const nonNullable = (type: TypeRef): TypeRef => (type.nullable ? { ...type, nullable: false } : type);

const RESPONSE_KINDS: Record<ResponseKind, string> = { json: 'Json', text: 'Text', binary: 'Binary', none: 'None' };

function emitOperation(w: CSharpWriter, op: Operation, plan: NamePlan): void {
  const names = plan.operations.get(op.id);
  if (!names) return;
  const parameters = methodParameters(op, names, plan);
  const declared = [`this HttpClient ${HTTP_CLIENT_PARAMETER}`, ...parameters.map((p) => `${p.type} ${p.name}${p.optional ? ' = null' : ''}`), `CancellationToken ${CANCELLATION_PARAMETER} = default`];
  const result = resultType(op, plan);
  w.line().doc('summary', op.summary ?? op.description ?? `${op.method.toUpperCase()} ${op.path}`);
  w.doc('remarks', `${op.method.toUpperCase()} ${op.path}`);
  for (const p of parameters) if (p.description) w.line(`/// <param name="${bareName(p.name)}">${docLines(p.description).join(' ')}</param>`);
  if (op.deprecated) w.line('[Obsolete("Deprecated by the API.")]');
  w.line(`public static Task<${FIXED_NAMES.result}<${result}>> ${names.clientMethod}(${declared.join(', ')})`);
  w.line(`    => new ${FIXED_NAMES.request}(HttpMethod.${httpMethod(op.method)}, ${stringLiteral(names.subject)})`);
  const chain: string[] = [];
  const nameOf = (location: string, name: string): string | undefined => names.parameters[op.parameters.findIndex((p) => p.location === location && p.name === name)];
  for (const piece of pathPieces(op.requestPath)) {
    if (piece.kind === 'literal') chain.push(`.Path(${stringLiteral(piece.text)})`);
    else {
      const index = op.parameters.findIndex((p) => p.location === 'path' && p.name === piece.name);
      const parameter = op.parameters[index];
      const name = names.parameters[index];
      if (!parameter || !name) chain.push(`.Path(${stringLiteral(encodeURIComponent(`{${piece.name}}`))})`);
      else if (parameter.content?.writer === 'none') chain.push(refusal(parameter, name));
      else chain.push(`.PathValue(${stringLiteral(piece.name)}, ${written(parameter, name, plan)})`);
    }
  }
  // Query pairs the path template fixes (`/items?v=2`, `/search?q={q}`).
  for (const pair of op.pathQuery) {
    const name = pair.parameter === undefined ? undefined : nameOf('path', pair.parameter);
    chain.push(`.Query(${stringLiteral(pair.name)}, ${name ?? stringLiteral(pair.value)})`);
  }
  op.parameters.forEach((parameter, index) => {
    const name = names.parameters[index];
    if (!name || parameter.location === 'path') return;
    if (parameter.content?.writer === 'none') return void chain.push(refusal(parameter, name));
    const value = written(parameter, name, plan);
    if (parameter.location === 'query') chain.push(`.Query(${stringLiteral(parameter.name)}, ${value}${parameter.content ? '' : queryOptions(parameter)})`);
    if (parameter.location === 'header') chain.push(`.Header(${stringLiteral(parameter.name)}, ${value})`);
    if (parameter.location === 'cookie') chain.push(`.Cookie(${stringLiteral(parameter.name)}, ${value})`);
  });
  if (op.paging && names.nextLink) chain.push(`.NextLink(${names.nextLink}, ${stringLiteral(pathPattern(op.requestPath))})`);
  if (op.longRunning && names.operation) chain.push(`.LongRunning(${op.longRunning.finalStateVia === undefined ? 'null' : stringLiteral(op.longRunning.finalStateVia)}, ${names.operation})`);
  if (op.success.mediaType) chain.push(`.Accept(${stringLiteral(op.success.mediaType)})`);
  if (op.success.headers) chain.push(`.KeepHeaders(${op.success.headers.map((name) => stringLiteral(name)).join(', ')})`);
  if (op.security) chain.push(`.Security(${op.security.map((alternative) => stringLiteral(alternative.join(' '))).join(', ')})`);
  if (op.body) {
    const media = stringLiteral(op.body.mediaType);
    const call = { json: `.JsonBody(body, ${media})`, form: '.FormBody(body)', multipart: '.MultipartBody(body)', text: `.TextBody(body, ${media})`, binary: `.BinaryBody(body, ${media})` }[op.body.kind];
    chain.push(call);
  }
  chain.push(`.SendAsync<${result}>(${HTTP_CLIENT_PARAMETER}, ${FIXED_NAMES.responseKind}.${RESPONSE_KINDS[op.success.kind]}, ${CANCELLATION_PARAMETER});`);
  for (const link of chain) w.line(`        ${link}`);
}

/** The operation's path (after the base URL's) as a regular expression: its text escaped as sent, each parameter one segment. */
function pathPattern(path: string): string {
  const regex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `^${pathPieces(path).map((piece) => (piece.kind === 'literal' ? regex(piece.text) : '[^/?#]+')).join('')}$`;
}

function httpMethod(method: Operation['method']): string {
  return method[0]?.toUpperCase() + method.slice(1);
}

/** Text that {@link escapeLiteral} gives back as it is: what encodeURI leaves alone, less `?` and `#`. */
const URI_PLAIN = /^[A-Za-z0-9;,/:@&=+$\-_.!~*'()]*$/;

type PathPiece = { kind: 'literal'; text: string } | { kind: 'param'; name: string };

/** The path without its leading `/`, split into escaped literal text and parameters. */
export function pathPieces(path: string): PathPiece[] {
  const pieces: PathPiece[] = [];
  const trimmed = path.replace(/^\/+/, '');
  let last = 0;
  for (const match of trimmed.matchAll(/\{([^}]*)\}/g)) {
    if (match.index > last) pieces.push({ kind: 'literal', text: escapeLiteral(trimmed.slice(last, match.index)) });
    pieces.push({ kind: 'param', name: match[1] ?? '' });
    last = match.index + match[0].length;
  }
  if (last < trimmed.length) pieces.push({ kind: 'literal', text: escapeLiteral(trimmed.slice(last)) });
  return pieces;
}

function escapeLiteral(text: string): string {
  if (URI_PLAIN.test(text)) return text;
  const wellFormed = text.replace(LONE_SURROGATE, '\ufffd');
  return encodeURI(wellFormed).replace(/[?#]/g, (c) => encodeURIComponent(c)).replace(/%25([0-9A-Fa-f]{2})/g, '%$1');
}
