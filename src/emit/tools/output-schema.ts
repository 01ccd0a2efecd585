import type { ApiModel, Operation, Primitive, TypeRef } from '../../model/types.js';
import type { JsonSchema } from './input-schema.js';

/** Most schema nodes in one output schema; deeper objects are published as any JSON. */
const MAX_NODES = 1000;

const PRIMITIVE_TYPES: Record<Primitive, string> = {
  string: 'string', int: 'integer', long: 'integer', double: 'number', float: 'number', decimal: 'number', bool: 'boolean',
  dateTime: 'string', date: 'string', uuid: 'string', bytes: 'string', file: 'string',
};

/**
 * The `outputSchema` of an operation's tool (`--structured-output`): the shape of the JSON the tool returns
 * for a 2xx answer, which it also returns as `structuredContent`. It describes what the server writes
 * (the client's records serialized), leniently: every value may be null, objects may hold more properties,
 * nothing is required, and no format, pattern, enum or bound is stated, so that any answer the server
 * returns fits it, including an empty one (`{"status": 204}`) or one cut at the result limit (`{}`).
 * A root that is not an object is `{"result": …}`, as MCP requires an object. Undefined when the
 * operation has no JSON answer.
 */
export function outputSchema(model: ApiModel, op: Operation): { schema: JsonSchema; wrapped: boolean } | undefined {
  const type = op.success.kind === 'json' ? op.success.type : undefined;
  if (!type) return undefined;
  const budget = { nodes: 0 };
  if (type.kind === 'object') {
    const schema = lenient(model, type, new Set(), budget);
    return { schema: { ...schema, type: 'object' }, wrapped: false };
  }
  return { schema: { type: 'object', properties: { result: lenient(model, type, new Set(), budget) } }, wrapped: true };
}

function lenient(model: ApiModel, type: TypeRef, seen: ReadonlySet<string>, budget: { nodes: number }): JsonSchema {
  if (++budget.nodes > MAX_NODES) return {};
  switch (type.kind) {
    case 'primitive':
      return { type: [PRIMITIVE_TYPES[type.type], 'null'] };
    case 'array':
      return { type: ['array', 'null'], items: lenient(model, type.items, seen, budget) };
    case 'map':
      return { type: ['object', 'null'], additionalProperties: lenient(model, type.values, seen, budget) };
    case 'object': {
      const declared = model.types.get(type.id);
      if (!declared || seen.has(type.id)) return { type: ['object', 'null'] };
      const inner = new Set(seen).add(type.id);
      const properties: Record<string, JsonSchema> = {};
      for (const p of declared.properties) properties[p.jsonName] = lenient(model, p.type, inner, budget);
      return { type: ['object', 'null'], properties };
    }
    case 'any':
      return {};
  }
}
