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
