import { GeneratorError, pointer, pointerToken, type Diagnostic } from '../errors.js';
import type { LoadedSpec } from '../load/document.js';
import { RefResolver } from '../load/refs.js';
import { SchemaTypes, isObject, text } from './schemas.js';
import { readRequirement, readSecuritySchemes } from './security.js';
import { referencedSchemas } from './reach.js';
import {
  HTTP_METHODS,
  type ApiModel, type BodyKind, type HttpMethod, type Operation, type Parameter, type ParameterLocation,
  type McpExtension, type RequestBody, type ResponseKind, type SuccessResponse, type TypeRef,
} from './types.js';

const LOCATIONS: readonly ParameterLocation[] = ['path', 'query', 'header', 'cookie'];
const BYTES: TypeRef = { kind: 'primitive', type: 'bytes', nullable: false };
const STRING: TypeRef = { kind: 'primitive', type: 'string', nullable: false };

/** Builds the intermediate model. Operations the spec breaks are skipped with a warning. */
export function buildModel(spec: LoadedSpec): { model: ApiModel; warnings: Diagnostic[] } {
  const display = spec.source.display;
  const refs = new RefResolver(spec.root, display);
  const schemas = new SchemaTypes(refs);
  // Parameters are mostly `$ref`s to a few shared ones (GitHub: 2,230 uses of 118): each is built once.
  const sharedParameters = new Map<string, Parameter>();
  const warnings: Diagnostic[] = [];
  const root = spec.root;

  // Component types first, in document order (they name themselves; inline types are named after them).
  const components = isObject(root.components) && isObject(root.components.schemas) ? root.components.schemas : {};
  const referenced = referencedSchemas(root, refs);
  for (const [name, schema] of Object.entries(components)) {
    if (!referenced.has(name)) continue;
    const at = pointer('components', 'schemas', name);
    try {
      schemas.typeOf(schema, at, { kind: 'component', name });
    } catch (error) {
      warnings.push(asWarning(error, `${display}#${at}`));
    }
  }

  const securitySchemes = readSecuritySchemes(root, refs, display, warnings);
  const globalSecurity = readRequirement(root.security);
  const operations: Operation[] = [];
  const tags = new Set<string>();
  if (Array.isArray(root.tags)) for (const tag of root.tags) if (isObject(tag) && typeof tag.name === 'string') tags.add(tag.name);
  const paths = isObject(root.paths) ? root.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const itemAt = pointer('paths', path);
    let item: Record<string, unknown>;
    try {
      const followed = refs.follow(rawItem, itemAt).value;
      if (!isObject(followed)) throw new GeneratorError('spec', 'a path item must be an object', `${display}#${itemAt}`);
      item = followed;
    } catch (error) {
      warnings.push(asWarning(error, `${display}#${itemAt}`));
      continue;
    }
    for (const key of Object.keys(item)) {
      const method = key.toLowerCase() as HttpMethod;
      if (!HTTP_METHODS.includes(method) || !isObject(item[key])) continue;
      const at = pointer('paths', path, key);
      try {
        const operation = buildOperation(refs, schemas, sharedParameters, path, method, item, item[key] as Record<string, unknown>, at, display, globalSecurity);
        operation.tags.forEach((tag) => tags.add(tag));
        operations.push(operation);
      } catch (error) {
        warnings.push(asWarning(error, `${display}#${at}`, `skipped ${method.toUpperCase()} ${path}: `));
      }
    }
  }

  const chosen = new Set<string>();
  operations.forEach((op, index) => {
    const name = op.mcp?.name;
    if (name === undefined) return;
    if (chosen.has(name)) {
      warnings.push({ location: `${display}#${op.id}/x-mcp/name`, message: `x-mcp name ${name} is already used by another operation; a name is derived instead` });
      operations[index] = { ...op, mcp: { ...op.mcp, name: undefined } };
    }
    chosen.add(name);
  });

  const info = isObject(root.info) ? root.info : {};
  const serverUrl = firstServerUrl(root, spec.source.isUrl ? spec.source.location : undefined);
  return {
    model: {
      title: typeof info.title === 'string' && info.title.trim() !== '' ? info.title : 'API',
      version: typeof info.version === 'string' ? info.version : String(info.version ?? ''),
      ...(serverUrl !== undefined && { serverUrl }),
      operations,
      types: schemas.types,
      tags: [...tags],
      securitySchemes,
    },
    warnings,
  };
}

function asWarning(error: unknown, location: string, prefix = ''): Diagnostic {
  if (error instanceof GeneratorError) return { location: error.location ?? location, message: prefix + error.detail };
  return { location, message: prefix + (error instanceof Error ? error.message : String(error)) };
}

function buildOperation(
  refs: RefResolver, schemas: SchemaTypes, sharedParameters: Map<string, Parameter>, path: string, method: HttpMethod,
  item: Record<string, unknown>, node: Record<string, unknown>, at: string, display: string, globalSecurity: string[][] | undefined,
): Operation {
  const parameters = mergeParameters(refs, schemas, sharedParameters, item, node, pointer('paths', path), at, display);
  for (const name of path.match(/\{[^}]+\}/g) ?? []) {
    const bare = name.slice(1, -1);
    if (!parameters.some((p) => p.location === 'path' && p.name === bare)) {
      parameters.push({ name: bare, location: 'path', required: true, type: STRING, facts: {}, style: 'simple', explode: false });
    }
  }
  const body = requestBody(refs, schemas, node.requestBody, `${at}/requestBody`, at);
  const summary = text(node.summary);
  const description = text(node.description);
  const operationId = text(node.operationId);
  const security = readRequirement(node.security) ?? globalSecurity;
  const mcp = readMcpExtension(node['x-mcp'] ?? item['x-mcp'], `${display}#${at}/x-mcp`);
  return {
    id: at,
    method,
    path,
    ...(operationId !== undefined && { operationId }),
    ...(summary !== undefined && { summary }),
    ...(description !== undefined && { description }),
    tags: Array.isArray(node.tags) ? node.tags.filter((t): t is string => typeof t === 'string') : [],
    deprecated: node.deprecated === true,
    parameters,
    ...(body !== undefined && { body }),
    success: successResponse(refs, schemas, node.responses, `${at}/responses`, at),
    ...(security !== undefined && security.length > 0 && { security }),
    ...(mcp !== undefined && { mcp }),
  };
}

/** `x-mcp: false`, or `x-mcp: { name, description, exclude }`. */
function readMcpExtension(node: unknown, where: string): McpExtension | undefined {
  if (node === undefined) return undefined;
  if (node === false) return { exclude: true };
  if (!isObject(node)) throw new GeneratorError('spec', 'x-mcp must be false or an object with name, description or exclude', where);
  const name = text(node.name);
  if (name !== undefined && !/^[a-z0-9_]{1,64}$/.test(name)) throw new GeneratorError('spec', `x-mcp name ${JSON.stringify(name)} must match ^[a-z0-9_]{1,64}$`, `${where}/name`);
  const description = text(node.description);
  return { ...(name !== undefined && { name }), ...(description !== undefined && { description }), ...(node.exclude === true && { exclude: true }) };
}

/** Path-item parameters, overridden by operation parameters with the same name and location. */
function mergeParameters(
  refs: RefResolver, schemas: SchemaTypes, shared: Map<string, Parameter>, item: Record<string, unknown>, node: Record<string, unknown>,
  itemAt: string, at: string, display: string,
): Parameter[] {
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
      // OpenAPI: header parameters named Accept, Content-Type or Authorization are ignored.
      if (location === 'header' && /^(accept|content-type|authorization)$/i.test(name)) return;
      const parameter = buildParameter(schemas, value, paramAt, name, location, at);
      if (paramAt !== `${listAt}/${index}`) shared.set(paramAt, parameter);
      merged.set(`${location}:${name}`, parameter);
    });
  };
  add(item.parameters, `${itemAt}/parameters`);
  add(node.parameters, `${at}/parameters`);
  return [...merged.values()];
}

function buildParameter(
  schemas: SchemaTypes, node: Record<string, unknown>, at: string, name: string, location: ParameterLocation, operationAt: string,
): Parameter {
  let schema: unknown = node.schema;
  let schemaAt = `${at}/schema`;
  if (schema === undefined && isObject(node.content)) {
    const [mediaType, media] = Object.entries(node.content)[0] ?? [];
    if (mediaType !== undefined && isObject(media)) {
      schema = media.schema;
      schemaAt = `${at}/content/${pointerToken(mediaType)}/schema`;
    }
  }
  const origin = { kind: 'parameter', operation: operationAt, parameter: name } as const;
  const type = schema === undefined ? STRING : schemas.typeOf(schema, schemaAt, origin);
  const facts = schemas.facts(schema, schemaAt);
  const description = text(node.description) ?? facts.description;
  const style = typeof node.style === 'string' ? node.style : location === 'query' || location === 'cookie' ? 'form' : 'simple';
  return {
    name,
    location,
    required: location === 'path' || node.required === true,
    type,
    facts: { ...facts, ...(description !== undefined && { description }) },
    style,
    explode: typeof node.explode === 'boolean' ? node.explode : style === 'form',
  };
}

interface Media { mediaType: string; schema: unknown; schemaAt: string; kind: BodyKind }

/** The media type to use from a `content` map: JSON first, then forms, text, binary. */
function pickMedia(content: unknown, at: string): Media | undefined {
  if (!isObject(content)) return undefined;
  const entries = Object.entries(content).map(([mediaType, media]) => ({
    mediaType,
    schema: isObject(media) ? media.schema : undefined,
    schemaAt: `${at}/content/${pointerToken(mediaType)}/schema`,
    kind: mediaKind(mediaType),
  }));
  const rank: Record<BodyKind, number> = { json: 0, form: 1, multipart: 2, text: 3, binary: 4 };
  return entries.sort((a, b) => rank[a.kind] - rank[b.kind])[0];
}

function mediaKind(mediaType: string): BodyKind {
  const type = mediaType.toLowerCase().split(';')[0]?.trim() ?? '';
  if (type === 'application/json' || type.endsWith('+json') || type === '*/*' || type === 'application/*' || type.includes('/json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type.startsWith('multipart/')) return 'multipart';
  if (type.startsWith('text/') || type === 'application/xml' || type.endsWith('+xml')) return 'text';
  return 'binary';
}

function requestBody(refs: RefResolver, schemas: SchemaTypes, raw: unknown, rawAt: string, operationAt: string): RequestBody | undefined {
  if (raw === undefined) return undefined;
  const { value, pointer: at } = refs.follow(raw, rawAt);
  if (!isObject(value)) return undefined;
  const media = pickMedia(value.content, at);
  if (!media) return undefined;
  const origin = { kind: 'requestBody', operation: operationAt } as const;
  const type = media.kind === 'text' ? STRING
    : media.kind === 'binary' ? BYTES
    : media.schema === undefined ? ({ kind: 'any', nullable: false } as const)
    : schemas.typeOf(media.schema, media.schemaAt, origin);
  const description = text(value.description);
  return { kind: media.kind, mediaType: media.mediaType, type, required: value.required === true, ...(description !== undefined && { description }) };
}

/** The first 2xx response (or `default` when there is none) decides the success value. */
function successResponse(refs: RefResolver, schemas: SchemaTypes, raw: unknown, at: string, operationAt: string): SuccessResponse {
  const responses = isObject(raw) ? raw : {};
  const codes = Object.keys(responses);
  const status = codes.filter((code) => /^2(\d\d|XX)$/i.test(code)).sort()[0] ?? (codes.includes('default') ? 'default' : undefined);
  if (status === undefined) return { kind: 'none', status: '200' };
  const { value, pointer: responseAt } = refs.follow(responses[status], `${at}/${status}`);
  const media = isObject(value) ? pickMedia(value.content, responseAt) : undefined;
  if (!media || status === '204') return { kind: 'none', status };
  const kind: ResponseKind = media.kind === 'json' ? 'json' : media.kind === 'text' ? 'text' : media.kind === 'binary' ? 'binary' : 'json';
  if (kind === 'text') return { kind, status, type: STRING };
  if (kind === 'binary') return { kind, status, type: BYTES };
  const type = media.schema === undefined ? ({ kind: 'any', nullable: true } as const) : schemas.typeOf(media.schema, media.schemaAt, { kind: 'response', operation: operationAt });
  return { kind, status, type };
}

function firstServerUrl(root: Record<string, unknown>, specUrl: string | undefined): string | undefined {
  const server = Array.isArray(root.servers) ? root.servers[0] : undefined;
  if (!isObject(server) || typeof server.url !== 'string') return specUrl ? new URL('/', specUrl).toString() : undefined;
  const variables = isObject(server.variables) ? server.variables : {};
  const url = server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isObject(variable) && variable.default !== undefined ? String(variable.default) : whole;
  });
  if (specUrl && !/^[a-z][a-z0-9+.-]*:/i.test(url)) return new URL(url, specUrl).toString();
  return url;
}
