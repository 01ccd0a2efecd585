/**
 * Overlays (OpenAPI Overlay Specification 1.0 and 1.1): documents of ordered actions, each a JSONPath (RFC 9535)
 * `target` with an `update` to merge in, a `remove`, or (1.1) a `copy` of another node, applied to the spec as
 * written, before the Swagger 2.0 upgrade and the bundling of external `$ref`s. They fix a third-party spec the
 * user cannot edit: a property typed as a string that is an array, a parameter required that the server does not need.
 * Where 1.0 leaves a case out and 1.1 settles it, 1.1's answer holds for both: merging nested values (objects merged,
 * arrays concatenated, primitives replaced, anything else an error), a primitive target (replaced, or removed).
 */
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GeneratorError, pointer, type Diagnostic } from '../errors.js';
import { locateValue, parseSpecText } from './parse.js';
import { readFileCapped } from './read-capped.js';
import { describeIoError } from './source.js';
import type { JSONPathQuery, JSONPathNode, JSONValue } from 'json-p3';

/** json-p3 (JSONPath, RFC 9535), loaded only when there is an overlay. */
const loadJsonPath = (): typeof import('json-p3') => createRequire(import.meta.url)('json-p3') as typeof import('json-p3');

type Json = unknown;
type JsonObject = Record<string, Json>;

/** An overlay file as read: what errors call it, its absolute path, its text. */
export interface OverlaySource {
  readonly display: string;
  readonly location: string;
  readonly text: string;
}

interface Action {
  readonly index: number;
  readonly target: JSONPathQuery;
  readonly targetText: string;
  readonly remove: boolean;
  readonly update?: { readonly value: Json };
  readonly copy?: { readonly query: JSONPathQuery; readonly text: string };
}

/** A checked overlay document, its JSONPaths compiled, ready to apply. */
export interface Overlay {
  readonly source: OverlaySource;
  /** `1.0` or `1.1`: what an array target does with an array `update` (1.0 appends it as one entry, 1.1 concatenates). */
  readonly version: '1.0' | '1.1';
  readonly extends?: string;
  readonly actions: readonly Action[];
}

const VERSION = /^1\.([01])\.\d+$/;
/** How deep a descendant segment (`..`) goes before the query is refused (a YAML alias can make a document endless). */
const MAX_DEPTH = 1000;
const FIELDS = {
  top: ['overlay', 'info', 'extends', 'actions'],
  info: { '1.0': ['title', 'version'], '1.1': ['title', 'version', 'description'] },
  action: { '1.0': ['target', 'description', 'update', 'remove'], '1.1': ['target', 'description', 'update', 'remove', 'copy'] },
} as const;

const isObject = (value: Json): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const kindOf = (value: Json): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`);
/** `actions[2].update.schema` from a location inside the overlay. */
const fieldName = (path: readonly (string | number)[]): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$-]*$/.test(p) ? `${i === 0 ? '' : '.'}${p}` : `[${JSON.stringify(p)}]`)).join('');
/** One step of a JSONPath normalized path: `['/pets']`, `[0]`. */
const step = (p: string | number): string => (typeof p === 'number' ? `[${p}]` : `['${p.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`);
/** A node of the spec in JSONPath's normalized form, `$['paths']['/pets']['get']`. */
const normalized = (location: readonly (string | number)[]): string => '$' + location.map(step).join('');

/**
 * Where a value of the overlay is, `file:line:column`: the deepest part of `path` that is in the text (an error about
 * `actions[2].update.schema` points at that line), or the whole path as a JSON pointer when none is.
 */
function locate(source: OverlaySource, path: readonly (string | number)[]): string {
  for (let length = path.length; length > 0; length--) {
    const position = locateValue(source.text, path.slice(0, length));
    if (position !== undefined) return `${source.display}:${position.line}:${position.column}`;
  }
  return `${source.display}#${pointer(...path)}`;
}

/** json-p3's message without the query and position it ends with (`… ('$.paths[':8)`): the error says those itself. */
const jsonPathProblem = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/\s*\('(?:[^']|'(?!:\d+\)$))*':\d+\)$/s, '');

/** Reads and checks an overlay file: every error names the file and the line (or JSON pointer) and the action. */
export async function readOverlay(input: string): Promise<Overlay> {
  if (input.trim() === '') throw new GeneratorError('usage', '--overlay: no file given');
  if (/^[a-z][a-z\d+.-]+:\/\//i.test(input) && !/^file:/i.test(input)) throw new GeneratorError('usage', `--overlay ${input}: an overlay is read from a file (download it first)`);
  const location = resolve(/^file:/i.test(input) ? fileURLToPath(input) : input);
  let text: string;
  try {
    text = (await readFileCapped(location, input, undefined, 'overlay')).toString('utf8');
  } catch (error) {
    if (error instanceof GeneratorError) throw error;
    throw new GeneratorError('spec', `cannot read the overlay: ${describeIoError(error)}`, input);
  }
  return checkOverlay({ display: input, location, text });
}

/** Checks a parsed overlay document against the Overlay Specification and compiles its JSONPaths. */
export function checkOverlay(source: OverlaySource): Overlay {
  const value = parseSpecText(source.text, source.display, 'the overlay');
  const fail = (path: readonly (string | number)[], message: string): never => {
    throw new GeneratorError('spec', `${fieldName(path)}: ${message}`, locate(source, path));
  };
  const missing = (field: string, path: readonly (string | number)[] = []): never => {
    throw new GeneratorError('spec', `not an Overlay document: \`${field}\` is missing`, `${source.display}#${pointer(...path, field)}`);
  };
  if (!isObject(value)) throw new GeneratorError('spec', 'not an Overlay document: the top level is not an object', `${source.display}#`);
  if (value.overlay === undefined) {
    if (value.openapi !== undefined || value.swagger !== undefined) {
      throw new GeneratorError('spec', 'not an Overlay document but an OpenAPI document (give that with --openapi-url): `overlay` is missing', `${source.display}#/overlay`);
    }
    missing('overlay');
  }
  const versionMatch = typeof value.overlay === 'string' ? VERSION.exec(value.overlay) : null;
  if (versionMatch === null) fail(['overlay'], `unsupported Overlay version ${JSON.stringify(value.overlay)}: 1.0.x and 1.1.x are supported`);
  const version = versionMatch?.[1] === '1' ? '1.1' : '1.0';
  const unknownFields = (object: JsonObject, known: readonly string[], path: readonly (string | number)[]): void => {
    const unknown = Object.keys(object).find((key) => !known.includes(key) && !key.startsWith('x-'));
    if (unknown !== undefined) fail([...path, unknown], `is not a field of ${path.length === 0 ? 'an Overlay document' : 'this object'} (the fields are ${known.join(', ')}, and extensions x-…)`);
  };
  unknownFields(value, FIELDS.top, []);
  if (value.info === undefined) missing('info');
  if (!isObject(value.info)) return fail(['info'], `must be an object with title and version, not ${kindOf(value.info)}`);
  unknownFields(value.info, FIELDS.info[version], ['info']);
  for (const field of ['title', 'version'] as const) {
    if (value.info[field] === undefined) missing(field, ['info']);
    if (typeof value.info[field] !== 'string') fail(['info', field], `must be a string, not ${kindOf(value.info[field])}`);
  }
  if (value.extends !== undefined && typeof value.extends !== 'string') fail(['extends'], `must be a URI reference (a string), not ${kindOf(value.extends)}`);
  if (value.actions === undefined) missing('actions');
  if (!Array.isArray(value.actions)) return fail(['actions'], `must be a list of actions, not ${kindOf(value.actions)}`);
  if (value.actions.length === 0) fail(['actions'], 'must have at least one action');

  // `..` may go as deep as a spec nests (json-p3 stops at 50 levels by default).
  const environment = new (loadJsonPath().JSONPathEnvironment)({ maxRecursionDepth: MAX_DEPTH });
  const jsonPath = (text: Json, path: readonly (string | number)[]): JSONPathQuery => {
    if (typeof text !== 'string') return fail(path, `must be a JSONPath (a string), not ${kindOf(text)}`);
    try {
      return environment.compile(text);
    } catch (error) {
      const index = (error as { token?: { index?: number } }).token?.index;
      return fail(path, `invalid JSONPath ${JSON.stringify(text)}: ${jsonPathProblem(error)}${typeof index === 'number' ? ` (at character ${index + 1})` : ''}`);
    }
  };
  const actions = value.actions.map((action: Json, index): Action => {
    const path = ['actions', index];
    if (!isObject(action)) return fail(path, `must be an action (an object with target, and update or remove), not ${kindOf(action)}`);
    unknownFields(action, FIELDS.action[version], path);
    if (action.target === undefined) missing('target', path);
    const target = jsonPath(action.target, [...path, 'target']);
    if (action.description !== undefined && typeof action.description !== 'string') fail([...path, 'description'], `must be a string, not ${kindOf(action.description)}`);
    if (action.remove !== undefined && typeof action.remove !== 'boolean') fail([...path, 'remove'], `must be true or false, not ${kindOf(action.remove)}`);
    const remove = action.remove === true;
    const hasUpdate = Object.hasOwn(action, 'update');
    const hasCopy = action.copy !== undefined;
    if (!remove && hasUpdate && hasCopy) fail(path, 'has both update and copy: give one of them');
    if (!remove && !hasUpdate && !hasCopy) fail(path, `does nothing: give update${version === '1.1' ? ', copy' : ''} or remove: true`);
    return {
      index, target, targetText: action.target as string, remove,
      ...(hasUpdate && { update: { value: action.update } }),
      ...(hasCopy && { copy: { query: jsonPath(action.copy, [...path, 'copy']), text: action.copy as string } }),
    };
  });
  return { source, version, ...(typeof value.extends === 'string' && { extends: value.extends }), actions };
}

/**
 * Applies an overlay's actions in order to `root` (changed in place; the result is returned as the whole document
 * could not be replaced otherwise). An action whose target selects nothing changes nothing and is a warning, as is an
 * `extends` that names another document than the spec it is applied to.
 */
export function applyOverlay(root: JsonObject, overlay: Overlay, spec: { location: string; isUrl: boolean; display: string }, warnings: Diagnostic[]): JsonObject {
  const { source } = overlay;
  const at = (path: readonly (string | number)[]): string => locate(source, path);
  if (overlay.extends !== undefined && !extendsSpec(overlay.extends, source.location, spec)) {
    warnings.push({ location: at(['extends']), message: `extends: names ${JSON.stringify(overlay.extends)}, and it is applied to ${spec.display}` });
  }
  for (const action of overlay.actions) {
    const path = ['actions', action.index];
    const fail = (field: readonly (string | number)[], message: string): never => {
      throw new GeneratorError('spec', `${fieldName([...path, ...field])}: ${message}`, at([...path, ...field]));
    };
    const select = (query: JSONPathQuery, field: string, text: string): JSONPathNode[] => {
      try {
        return query.query(root as JSONValue).nodes;
      } catch (error) {
        return fail([field], `${JSON.stringify(text)} cannot be evaluated on ${spec.display}: ${jsonPathProblem(error)}`);
      }
    };
    const nodes = select(action.target, 'target', action.targetText);
    if (nodes.length === 0) {
      warnings.push({ location: at([...path, 'target']), message: `${fieldName([...path, 'target'])}: ${JSON.stringify(action.targetText)} selects nothing in ${spec.display}: the action changes nothing` });
      continue;
    }
    if (action.remove) {
      if (nodes.some((n) => n.location.length === 0)) fail(['target'], `${JSON.stringify(action.targetText)} selects the whole document, which cannot be removed`);
      removeNodes(root, nodes);
      continue;
    }
    let value: Json;
    let valueField: string;
    if (action.copy !== undefined) {
      const copied = select(action.copy.query, 'copy', action.copy.text);
      if (copied.length !== 1) fail(['copy'], `${JSON.stringify(action.copy.text)} selects ${copied.length === 0 ? 'nothing' : `${copied.length} nodes`} in ${spec.display}: a copy needs exactly one`);
      // A copy of the node as it is now: the target may lie inside it, or it inside the target.
      value = structuredClone(copied[0]?.value);
      valueField = 'copy';
    } else {
      value = action.update?.value;
      valueField = 'update';
    }
    const kinds = new Set(nodes.map((n) => (isObject(n.value) ? 'object' : Array.isArray(n.value) ? 'array' : 'primitive')));
    if (kinds.size > 1) fail(['target'], `${JSON.stringify(action.targetText)} selects ${[...kinds].join(' and ')} nodes together: an update needs them all objects, all arrays or all primitives`);
    const seen = new Set<Json>();
    for (const node of nodes) {
      // A YAML alias makes one value reachable at two places: it is changed once.
      if (typeof node.value === 'object' && node.value !== null) {
        if (seen.has(node.value)) continue;
        seen.add(node.value);
      }
      const where = normalized(node.location);
      if (isObject(node.value)) {
        if (!isObject(value)) fail([valueField], `must be an object to merge into the object at ${where}, not ${kindOf(value)}`);
        merge(node.value as JsonObject, value as JsonObject, [valueField], where, fail);
      } else if (Array.isArray(node.value)) {
        const array = node.value as Json[];
        if (Array.isArray(value) && overlay.version === '1.1') array.push(...structuredClone(value));
        else array.push(structuredClone(value));
      } else {
        if (isObject(value) || Array.isArray(value)) fail([valueField], `must be a primitive value to replace the ${kindOf(node.value).replace(/^an? /, '')} at ${where}, not ${kindOf(value)}`);
        const parent = parentOf(root, node.location);
        (parent.container as Record<string | number, Json>)[parent.key] = value;
      }
    }
  }
  return root;
}

/**
 * Merges `update` into `target` as the Overlay Specification says: a property only in `update` is added, an object
 * merged with an object, an array appended to an array, a primitive replacing a primitive; any other pair is an error.
 */
function merge(target: JsonObject, update: JsonObject, field: readonly (string | number)[], where: string, fail: (field: readonly (string | number)[], message: string) => never): void {
  for (const key of Object.keys(update)) {
    const incoming = update[key];
    const here = where + step(key);
    if (!Object.hasOwn(target, key)) {
      // defineProperty: a `__proto__` key in JSON or YAML is a property like any other, not the object's prototype.
      Object.defineProperty(target, key, { value: structuredClone(incoming), writable: true, enumerable: true, configurable: true });
      continue;
    }
    const existing = target[key];
    if (isObject(existing) && isObject(incoming)) merge(existing, incoming, [...field, key], here, fail);
    else if (Array.isArray(existing) && Array.isArray(incoming)) existing.push(...structuredClone(incoming));
    else if (!(typeof existing === 'object' && existing !== null) && !(typeof incoming === 'object' && incoming !== null)) target[key] = incoming;
    else fail([...field, key], `cannot merge ${kindOf(incoming)} into ${kindOf(existing)} (at ${here}): remove it in an earlier action, then add it`);
  }
}

function parentOf(root: Json, location: readonly (string | number)[]): { container: JsonObject | Json[]; key: string | number } {
  let container = root as JsonObject | Json[];
  for (const key of location.slice(0, -1)) container = (container as Record<string | number, Json>)[key] as JsonObject | Json[];
  return { container, key: location[location.length - 1] as string | number };
}

/** Removes every selected node from its object or array (array items last to first, so the indexes hold). */
function removeNodes(root: Json, nodes: readonly JSONPathNode[]): void {
  const fromArrays = new Map<Json[], number[]>();
  const fromObjects: { container: JsonObject; key: string }[] = [];
  for (const node of nodes) {
    const { container, key } = parentOf(root, node.location);
    if (Array.isArray(container)) fromArrays.set(container, [...(fromArrays.get(container) ?? []), key as number]);
    else fromObjects.push({ container, key: String(key) });
  }
  for (const [array, indexes] of fromArrays) {
    for (const index of [...new Set(indexes)].sort((a, b) => b - a)) array.splice(index, 1);
  }
  for (const { container, key } of fromObjects) delete container[key];
}

/** Whether an overlay's `extends` (relative to the overlay) names the spec it is applied to. */
function extendsSpec(reference: string, overlayLocation: string, spec: { location: string; isUrl: boolean }): boolean {
  try {
    if (/^[a-z][a-z\d+.-]+:/i.test(reference) && !/^file:/i.test(reference)) return spec.isUrl && new URL(reference).href === new URL(spec.location).href;
  } catch {
    return false;
  }
  if (spec.isUrl) return false;
  const path = /^file:/i.test(reference) ? fileURLToPath(reference) : resolve(dirname(overlayLocation), decodeURIComponent(reference));
  return path === resolve(spec.location);
}
