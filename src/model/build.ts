import { GeneratorError, pointer, type Diagnostic } from '../errors.js';
import type { LoadedSpec } from '../load/document.js';
import { RefResolver } from '../load/refs.js';
import { SchemaTypes } from './schemas.js';
import { isObject, text } from './schema-nodes.js';
import { authorizationClashes, readRequirement, readScopes, readSecuritySchemes } from './security.js';
import { referencedSchemas } from './reach.js';
import { operationParameters, type ParameterContext } from './parameters.js';
import { requestBody, successResponse } from './media.js';
import { splitPathTemplate } from './paths.js';
import { HTTP_METHODS, type ApiModel, type HttpMethod, type Operation, type McpExtension, type Paging, type SecurityScheme } from './types.js';
import { iconOf } from './icon.js';

/** Builds the intermediate model. Operations the spec breaks are skipped with a warning. */
export function buildModel(spec: LoadedSpec): { model: ApiModel; warnings: Diagnostic[] } {
  const display = spec.source.display;
  const refs = new RefResolver(spec.root, display);
  const schemas = new SchemaTypes(refs);
  const warnings: Diagnostic[] = [];
  const root = spec.root;
  const info = isObject(root.info) ? root.info : {};
  const documentVersion = typeof info.version === 'string' && info.version.trim() !== '' ? info.version.trim() : undefined;
  const arm = isObject(root.paths) && Object.keys(root.paths).some((path) => path.startsWith('/subscriptions/{subscriptionId}'));
  const context: ParameterContext = { refs, schemas, shared: new Map(), display, warnings, arm, ...(documentVersion !== undefined && { documentVersion }) };

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
        const operation = buildOperation(context, securitySchemes, path, method, item, item[key] as Record<string, unknown>, at, { requirement: globalSecurity, node: root.security });
        operation.tags.forEach((tag) => tags.add(tag));
        operations.push(operation);
      } catch (error) {
        warnings.push(asWarning(error, `${display}#${at}`, `skipped ${method.toUpperCase()} ${path}: `));
      }
    }
  }

  // `x-ms-pageable`'s operationName: the operation that fetches the next pages, where the document has it.
  const byOperationId = new Map(operations.filter((op) => op.operationId !== undefined).map((op) => [op.operationId, op.id]));
  operations.forEach((op, index) => {
    const next = op.paging?.nextOperation;
    if (next === undefined) return;
    const found = byOperationId.get(next);
    operations[index] = { ...op, paging: { nextLinkName: op.paging!.nextLinkName, ...(found !== undefined && found !== op.id && { nextOperation: found }) } };
  });

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

  const firstUrl = firstServerUrl(root, spec.source.isUrl ? spec.source.location : undefined);
  // Only an absolute http(s) URL can be the API's base: a relative one would be read as a file path.
  const serverUrl = firstUrl !== undefined && /^https?:\/\/[^/?#]/i.test(firstUrl) ? firstUrl : undefined;
  const serverPath = firstUrl !== undefined && serverUrl === undefined ? pathOnly(firstUrl) : undefined;
  const icon = iconOf(info, display, warnings);
  for (const warning of authorizationClashes(operations, securitySchemes, display)) warnings.push(warning);
  warnings.push(...schemas.warnings);
  return {
    model: {
      title: typeof info.title === 'string' && info.title.trim() !== '' ? info.title : 'API',
      version: typeof info.version === 'string' ? info.version : String(info.version ?? ''),
      ...(icon !== undefined && { icon }),
      ...(serverUrl !== undefined && { serverUrl }),
      ...(serverPath !== undefined && { serverPath }),
      ...(firstUrl !== undefined && serverUrl === undefined && serverPath === undefined && { unusableServerUrl: firstUrl }),
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
  context: ParameterContext, schemes: readonly SecurityScheme[], path: string, method: HttpMethod,
  item: Record<string, unknown>, node: Record<string, unknown>, at: string, global: { requirement: string[][] | undefined; node: unknown },
): Operation {
  const { refs, schemas, display } = context;
  const security = readRequirement(node.security) ?? global.requirement;
  const scopes = readScopes(Array.isArray(node.security) ? node.security : global.node, schemes);
  const used = new Set(security?.flat() ?? []);
  const parameters = operationParameters(context, path, item, node, pointer('paths', path), at, schemes.filter((s) => used.has(s.name)));
  const body = requestBody(refs, schemas, node.requestBody, `${at}/requestBody`, at);
  const summary = text(node.summary);
  const description = text(node.description);
  const operationId = text(node.operationId);
  const mcp = readMcpExtension(node['x-mcp'] ?? item['x-mcp'], `${display}#${at}/x-mcp`);
  return {
    id: at,
    method,
    path,
    ...splitPathTemplate(path),
    ...(operationId !== undefined && { operationId }),
    ...(summary !== undefined && { summary }),
    ...(description !== undefined && { description }),
    tags: Array.isArray(node.tags) ? node.tags.filter((t): t is string => typeof t === 'string') : [],
    deprecated: node.deprecated === true,
    parameters,
    ...(body !== undefined && { body }),
    success: successResponse(refs, schemas, node.responses, `${at}/responses`, at),
    ...(security !== undefined && security.length > 0 && { security }),
    ...(scopes !== undefined && { scopes }),
    ...(mcp !== undefined && { mcp }),
    ...pagingOf(node['x-ms-pageable']),
    ...longRunningOf(node),
  };
}

/** `x-ms-long-running-operation: true`, with `x-ms-long-running-operation-options.final-state-via`. */
function longRunningOf(node: Record<string, unknown>): { longRunning?: { finalStateVia?: string } } {
  if (node['x-ms-long-running-operation'] !== true) return {};
  const options = node['x-ms-long-running-operation-options'];
  const via = isObject(options) && typeof options['final-state-via'] === 'string' ? options['final-state-via'].toLowerCase() : undefined;
  return { longRunning: via !== undefined ? { finalStateVia: via } : {} };
}

/** `x-ms-pageable: {nextLinkName, operationName}`; `nextLinkName: null` is a list in one page. (operationName is resolved later.) */
function pagingOf(node: unknown): { paging?: Paging } {
  if (!isObject(node) || typeof node.nextLinkName !== 'string' || node.nextLinkName.trim() === '') return {};
  return { paging: { nextLinkName: node.nextLinkName, ...(typeof node.operationName === 'string' && { nextOperation: node.operationName }) } };
}

/** `x-mcp: false`, or `x-mcp: { name, description, exclude, confirm, resource }`. */
function readMcpExtension(node: unknown, where: string): McpExtension | undefined {
  if (node === undefined) return undefined;
  if (node === false) return { exclude: true };
  if (!isObject(node)) throw new GeneratorError('spec', 'x-mcp must be false or an object with name, description, exclude, confirm or resource', where);
  const name = text(node.name);
  if (name !== undefined && !/^[a-z0-9_]{1,64}$/.test(name)) throw new GeneratorError('spec', `x-mcp name ${JSON.stringify(name)} must match ^[a-z0-9_]{1,64}$`, `${where}/name`);
  const description = text(node.description);
  if (node.confirm !== undefined && typeof node.confirm !== 'boolean') throw new GeneratorError('spec', 'x-mcp confirm must be true or false', `${where}/confirm`);
  return {
    ...(name !== undefined && { name }), ...(description !== undefined && { description }), ...(node.exclude === true && { exclude: true }),
    ...(typeof node.confirm === 'boolean' && { confirm: node.confirm }), ...(node.resource === false && { resource: false as const }),
  };
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

/**
 * The path a relative server URL names (`/api/v2`, `api/v2`), without a trailing slash; undefined for one with a scheme
 * or host, with a variable left unresolved, or naming the root alone. (From a URL, the URL was resolved before this.)
 */
function pathOnly(url: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^\/\/|[{}?#]/i.test(url)) return undefined;
  const path = new URL(url, 'http://host/').pathname.replace(/\/+$/, '');
  return path === '' ? undefined : path;
}
