import type { ApiModel, Operation, SchemaFacts, TypeRef } from '../model/types.js';
import { constraintAttributes, enumInSchema } from './constraints.js';
import type { NamePlan } from '../names/plan.js';
import { bareName } from '../names/identifiers.js';
import { toolDescription, valueDescription } from './describe.js';
import { methodParameters } from './signature.js';

type JsonSchema = Record<string, unknown>;

const PRIMITIVE_SCHEMAS: Record<string, JsonSchema> = {
  string: { type: 'string' }, int: { type: 'integer' }, long: { type: 'integer' }, double: { type: 'number' }, float: { type: 'number' },
  decimal: { type: 'number' }, bool: { type: 'boolean' }, dateTime: { type: 'string', format: 'date-time' }, date: { type: 'string', format: 'date' },
  uuid: { type: 'string', format: 'uuid' }, bytes: { type: 'string' },
};

/**
 * The tools/list entry the MCP C# SDK will publish for an operation, as close as the generator can
 * tell without building (used to size a selection: `report`).
 */
export function toolListing(model: ApiModel, plan: NamePlan, op: Operation): Record<string, unknown> {
  const names = plan.operations.get(op.id);
  const parameters = names ? methodParameters(op, names, plan) : [];
  const properties: Record<string, JsonSchema> = {};
  for (const p of parameters) {
    const type = p.source.kind === 'parameter' ? p.source.parameter.type : p.source.body.type;
    const facts = p.source.kind === 'parameter' ? p.source.parameter.facts : {};
    properties[bareName(p.name)] = { description: p.schemaDescription, ...schema(model, plan, type, p.optional, new Set()), ...(p.optional && { default: null }), ...constraints(type, facts) };
  }
  const required = parameters.filter((p) => !p.optional).map((p) => bareName(p.name));
  const readOnly = op.method === 'get' || op.method === 'head';
  return {
    name: names?.toolName,
    title: names?.title,
    description: toolDescription(op),
    inputSchema: { type: 'object', properties, ...(required.length > 0 && { required }) },
    annotations: { title: names?.title, readOnlyHint: readOnly, destructiveHint: op.method === 'delete', idempotentHint: readOnly || op.method === 'put' || op.method === 'delete' },
  };
}

function schema(model: ApiModel, plan: NamePlan, type: TypeRef, optional: boolean, seen: Set<string>): JsonSchema {
  const nullable = optional || type.nullable;
  const typed = (base: JsonSchema): JsonSchema => (nullable && typeof base.type === 'string' ? { ...base, type: [base.type, 'null'] } : base);
  switch (type.kind) {
    case 'primitive': return typed(PRIMITIVE_SCHEMAS[type.type] ?? {});
    case 'any': return {};
    case 'array': return typed({ type: 'array', items: schema(model, plan, type.items, false, seen) });
    case 'map': return typed({ type: 'object', additionalProperties: schema(model, plan, type.values, false, seen) });
    case 'object': {
      const declared = model.types.get(type.id);
      if (!declared || seen.has(type.id)) return typed({ type: 'object' });
      const inner = new Set(seen).add(type.id);
      const properties: Record<string, JsonSchema> = {};
      for (const p of declared.properties) {
        const description = valueDescription(p.facts, undefined, enumInSchema(p.type, p.facts));
        properties[p.jsonName] = { ...(description && { description }), ...schema(model, plan, p.type, !p.required, inner), ...constraints(p.type, p.facts) };
      }
      const required = declared.properties.filter((p) => p.required).map((p) => p.jsonName);
      return typed({ type: 'object', properties, ...(required.length > 0 && { required }) });
    }
  }
}

/** The `enum`, `minimum` and `maximum` keywords the SDK derives from the constraint attributes. */
function constraints(type: TypeRef, facts: SchemaFacts): JsonSchema {
  const attributes = constraintAttributes(type, facts);
  return {
    ...(attributes.some((a) => a.startsWith('AllowedValues(')) && { enum: (facts.enumValues ?? []).filter((v) => v !== null) }),
    ...(attributes.some((a) => a.startsWith('Range(')) && { minimum: facts.minimum, maximum: facts.maximum }),
  };
}
