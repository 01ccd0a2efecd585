import { GeneratorError, pointerToken, type Diagnostic } from '../errors.js';
import type { RefResolver } from '../load/refs.js';
import { SchemaTypes } from './schemas.js';
import { clientNameOf, isObject, msEnumDescriptions, text } from './schema-nodes.js';
import { templateParameters } from './paths.js';
import type { ClientParameter, Parameter, ParameterContent, ParameterLocation, SecurityScheme, TypeRef } from './types.js';

const LOCATIONS: readonly ParameterLocation[] = ['path', 'query', 'header', 'cookie'];
const STRING: TypeRef = { kind: 'primitive', type: 'string', nullable: false };

/** OpenAPI: header parameters named Accept, Content-Type or Authorization are ignored. */
const IGNORED_HEADERS = /^(accept|content-type|authorization)$/i;

/** AWS Signature Version 4 headers: the signing process writes them, not the caller. */
const AWS_SIGNATURE_HEADERS = /^x-amz-(date|algorithm|content-sha256|credential|security-token|signature|signedheaders)$/i;

/** What building an operation's parameters needs to know. */
export interface ParameterContext {
  readonly refs: RefResolver;
  readonly schemas: SchemaTypes;
  /** Parameters are mostly `$ref`s to a few shared ones (GitHub: 2,230 uses of 118): each is built once. */
  readonly shared: Map<string, Parameter>;
  readonly display: string;
  readonly warnings: Diagnostic[];
  /** `info.version`. */
  readonly documentVersion?: string;
  /** An Azure Resource Manager document (paths under `/subscriptions/{subscriptionId}`). */
  readonly arm: boolean;
}

/**
 * An operation's parameters: path-item ones overridden by operation ones with the same name and location,
 * less those no caller should give (ignored and signature headers, keys the credentials already send,
 * path parameters the template does not have), plus the template's undeclared path parameters.
 */
export function operationParameters(
  context: ParameterContext, path: string, item: Record<string, unknown>, node: Record<string, unknown>, itemAt: string, at: string,
  credentials: readonly SecurityScheme[],
): Parameter[] {
  const merged = mergeParameters(context, item, node, itemAt, at);
  const inTemplate = new Set(templateParameters(path));
  const kept = merged.filter((p) => {
    if (p.location === 'path' && !inTemplate.has(p.name)) {
      context.warnings.push({ location: `${context.display}#${at}`, message: `path parameter ${JSON.stringify(p.name)} is not in the path ${path}: it is left out` });
      return false;
    }
    // A key the credentials send in the same place is sent once, by them.
    return !credentials.some((s) => s.kind === 'apiKey' && s.in === p.location && s.parameter.toLowerCase() === p.name.toLowerCase());
  });
  for (const name of inTemplate) {
    if (!kept.some((p) => p.location === 'path' && p.name === name)) {
      kept.push({ name, location: 'path', required: true, type: STRING, facts: {}, style: 'simple', explode: false, allowEmpty: false });
    }
  }
  return kept;
}

function mergeParameters(context: ParameterContext, item: Record<string, unknown>, node: Record<string, unknown>, itemAt: string, at: string): Parameter[] {
  const { refs, shared, display } = context;
  const merged = new Map<string, Parameter>();
  const add = (list: unknown, listAt: string): void => {
    if (list === undefined) return;
    if (!Array.isArray(list)) throw new GeneratorError('spec', '`parameters` must be an array', `${display}#${listAt}`);
    list.forEach((raw, index) => {
      const { value, pointer: paramAt } = refs.follow(raw, `${listAt}/${index}`);
      const known = shared.get(paramAt);
      if (known) return void merged.set(`${known.location}:${known.name}`, known);
      if (!isObject(value)) throw new GeneratorError('spec', 'a parameter must be an object', `${display}#${paramAt}`);
      const name = value.name;
      const location = value.in as ParameterLocation;
      if (typeof name !== 'string' || name === '') throw new GeneratorError('spec', 'a parameter has no `name`', `${display}#${paramAt}`);
      if (!LOCATIONS.includes(location)) throw new GeneratorError('spec', `parameter ${JSON.stringify(name)} has an unknown location ${JSON.stringify(value.in)}`, `${display}#${paramAt}/in`);
      if (location === 'header' && (IGNORED_HEADERS.test(name) || AWS_SIGNATURE_HEADERS.test(name))) return;
      const parameter = buildParameter(context, value, paramAt, name, location, at);
      if (paramAt !== `${listAt}/${index}`) shared.set(paramAt, parameter);
      merged.set(`${location}:${name}`, parameter);
    });
  };
  add(item.parameters, `${itemAt}/parameters`);
  add(node.parameters, `${at}/parameters`);
  return [...merged.values()];
}

function buildParameter(
  context: ParameterContext, node: Record<string, unknown>, at: string, name: string, location: ParameterLocation, operationAt: string,
): Parameter {
  const { schemas } = context;
  let schema: unknown = node.schema;
  let schemaAt = `${at}/schema`;
  let content: ParameterContent | undefined;
  if (schema === undefined && isObject(node.content)) {
    // OpenAPI: the map has exactly one entry, the media type the whole value is written in.
    const [mediaType, media] = Object.entries(node.content)[0] ?? [];
    if (mediaType !== undefined) {
      content = { mediaType, writer: parameterWriter(mediaType) };
      if (isObject(media)) {
        schema = media.schema;
        schemaAt = `${at}/content/${pointerToken(mediaType)}/schema`;
      }
      if (content.writer === 'none') {
        context.warnings.push({
          location: `${context.display}#${at}/content`,
          message: `${location} parameter ${JSON.stringify(name)} is written as ${mediaType}, which the client cannot write: its tool refuses a call that gives it`,
        });
      }
    }
  }
  const origin = { kind: 'parameter', operation: operationAt, parameter: name } as const;
  const type = schema === undefined ? STRING : schemas.typeOf(schema, schemaAt, origin);
  const facts = schemas.facts(schema, schemaAt);
  const description = text(node.description) ?? facts.description;
  const style = typeof node.style === 'string' ? node.style : location === 'query' || location === 'cookie' ? 'form' : 'simple';
  // A converted Swagger 2.0 parameter keeps its x-ms-enum beside its schema.
  const valueDescriptions = msEnumDescriptions(node['x-ms-enum']);
  const clientName = clientNameOf(node);
  return {
    name,
    ...(clientName !== undefined && { clientName }),
    location,
    required: location === 'path' || node.required === true,
    type,
    facts: { ...facts, ...(description !== undefined && { description }), ...(facts.valueDescriptions === undefined && valueDescriptions !== undefined && { valueDescriptions }) },
    style,
    explode: typeof node.explode === 'boolean' ? node.explode : style === 'form',
    allowEmpty: location === 'query' && node.allowEmptyValue === true,
    ...(content !== undefined && { content }),
    ...clientParameter(context, node, name, location, schema),
  };
}

/**
 * Whether the client sets this parameter once: `api-version` (or a required `apiVersion`) when the document says which version it describes (its
 * default or only value, else `info.version` when that reads as one, else the value its examples give most), a
 * parameter marked `x-ms-parameter-location: client`, and an ARM document's `subscriptionId` (the mark is often lost
 * where a converter inlined the shared parameters, and some documents mark it `method`).
 */
function clientParameter(context: ParameterContext, node: Record<string, unknown>, name: string, location: ParameterLocation, schema: unknown): { client?: ClientParameter } {
  if (isApiVersion(name, node) && (location === 'query' || location === 'header')) {
    const value = documentValue(context, node, schema);
    return value === undefined ? {} : { client: { value, fixed: true } };
  }
  if (node['x-ms-parameter-location'] === 'client' || (context.arm && location === 'path' && name === 'subscriptionId')) return { client: { fixed: false } };
  return {};
}

/**
 * `api-version`, or a required parameter named so under another spelling (`apiVersion`, `api_version`: Application
 * Insights' data-plane document takes `apiVersion`, required, and states its value in every example).
 */
function isApiVersion(name: string, node: Record<string, unknown>): boolean {
  const lower = name.toLowerCase();
  return lower === 'api-version' || (node.required === true && /^api[-_]?version$/.test(lower));
}

/** An API version as Azure dates them: `2024-05-01`, `2017-12-01-preview`, `2019-08-01.10.0`. */
const DATED_VERSION = /^\d{4}-\d{2}-\d{2}(?:[-.][A-Za-z0-9.-]+)?$/;
/** Any text that reads as a version: dated, or numbered (`7.0`, `v2`, `7.1-preview`); not a timestamp or a date in words. */
const READS_AS_VERSION = /^(?:\d{4}-\d{2}-\d{2}(?:[-.][A-Za-z0-9.-]+)?|v?\d+(?:\.\d+)*(?:-[A-Za-z0-9.]+)?)$/;

/** The version a document's `api-version` parameter takes: its default or only value, `info.version`, or its examples' most frequent. */
function documentValue(context: ParameterContext, node: Record<string, unknown>, schema: unknown): string | undefined {
  const target = isObject(schema) ? context.refs.follow(schema, '').value : undefined;
  const declared = isObject(target) ? target : {};
  if (typeof declared.default === 'string' && declared.default !== '') return declared.default;
  if (Array.isArray(declared.enum) && declared.enum.length === 1 && typeof declared.enum[0] === 'string') return declared.enum[0];
  // Beyond what the document declares, only a value that reads as a version is taken: a damaged document's examples
  // can hold a timestamp (2025-10-15T13:50:41.539Z), which would be sent on every call; the model then gives it.
  const examples = [node.example, declared.example, ...(isObject(node.examples) ? Object.values(node.examples).map((e) => (isObject(e) ? e.value : undefined)) : [])]
    .filter((v): v is string => typeof v === 'string' && READS_AS_VERSION.test(v));
  // info.version is the API's version where it is dated as Azure dates them, the parameter is the client's, or an example has it.
  const version = context.documentVersion;
  if (version !== undefined && READS_AS_VERSION.test(version) && (DATED_VERSION.test(version) || node['x-ms-parameter-location'] === 'client' || examples.includes(version))) return version;
  const counts = new Map<string, number>();
  for (const value of examples) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** How a parameter declared with `content` is written: JSON (and any media type, which JSON is one of), text, or not at all. */
function parameterWriter(mediaType: string): ParameterContent['writer'] {
  const type = mediaType.toLowerCase().split(';')[0]?.trim() ?? '';
  if (type === 'application/json' || type.endsWith('+json') || type.endsWith('/json') || type === '*/*' || type === 'application/*') return 'json';
  if (type === 'text/plain' || type === 'text/*') return 'text';
  return 'none';
}
