import { decodePointerToken } from '../errors.js';
import { refPointer, type RefResolver } from '../load/refs.js';
import type { ApiModel, TypeRef } from './types.js';

/**
 * The object types a request can carry: those of parameters and bodies, and every type inside
 * them. Only these appear in a tool's input schema; the others are only ever read from responses.
 */
export function requestTypes(model: ApiModel): ReadonlySet<string> {
  const found = new Set<string>();
  const pending: TypeRef[] = [];
  for (const op of model.operations) {
    for (const parameter of op.parameters) pending.push(parameter.type);
    if (op.body) pending.push(op.body.type);
  }
  for (let type = pending.pop(); type !== undefined; type = pending.pop()) {
    if (type.kind === 'array') pending.push(type.items);
    else if (type.kind === 'map') pending.push(type.values);
    else if (type.kind === 'object' && !found.has(type.id)) {
      found.add(type.id);
      for (const property of model.types.get(type.id)?.properties ?? []) pending.push(property.type);
    }
  }
  return found;
}

const COMPONENT_SCHEMA = /^\/components\/schemas\/([^/]+)/;

/**
 * Names of the component schemas the operations reference, directly or through other
 * components (in any part: parameters, bodies, responses). Specs often hold many more (GitHub's
 * webhook payloads: three types in four); only these become types.
 */
export function referencedSchemas(root: Record<string, unknown>, refs: RefResolver): ReadonlySet<string> {
  const found = new Set<string>();
  const followed = new Set<string>();
  // A stack rather than recursion: a document may nest thousands of levels deep.
  const pending: unknown[] = [root.paths];
  for (let node = pending.pop(); pending.length > 0 || node !== undefined; node = pending.pop()) {
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const item of node) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    const object = node as Record<string, unknown>;
    for (const key in object) {
      const value = object[key];
      // Examples are data (GitHub's are half of its paths). A schema property so named is skipped too;
      // what it references is then declared with its owner instead of in document order.
      if (key === 'example' || key === 'examples') continue;
      if (key !== '$ref' || typeof value !== 'string') {
        if (value !== null && typeof value === 'object') pending.push(value);
      } else if (!followed.has(value)) {
        followed.add(value);
        const target = targetOf(value);
        if (target === undefined) continue;
        const match = COMPONENT_SCHEMA.exec(target);
        if (match?.[1]) found.add(decodePointerToken(match[1]));
        pending.push(refs.at(target));
      }
    }
  }
  return found;
}

/** The pointer of an internal `$ref`; undefined for a broken one, which the model reports where it meets it. */
function targetOf(ref: string): string | undefined {
  try {
    return refPointer(ref, '');
  } catch {
    return undefined;
  }
}
