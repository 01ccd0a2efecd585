import { FIXED_NAMES, type NamePlan } from '../../names/plan.js';
import type { Primitive, TypeRef } from '../../model/types.js';

/**
 * A `date-time` is its text: the tool's input schema says `format: date-time` and the server checks it before a call,
 * then sends it as written (`2027-04-30T18:00:00.000Z` stays that; a DateTimeOffset would come back as
 * `2027-04-30T18:00:00+00:00`, or with seven fractional digits in a query, which some APIs refuse).
 */
const PRIMITIVES: Record<Primitive, string> = {
  string: 'string', int: 'int', long: 'long', double: 'double', float: 'float', decimal: 'decimal', bool: 'bool',
  dateTime: 'string', date: 'DateOnly', uuid: 'Guid', bytes: 'byte[]', file: FIXED_NAMES.file,
};

/**
 * The C# type for a type reference. `optional` values (not required) are nullable so they can be
 * left out; `JsonElement` holds JSON null itself and is nullable only when optional.
 */
export function csharpType(type: TypeRef, plan: NamePlan, optional = false): string {
  const nullable = optional || (type.nullable && type.kind !== 'any');
  return bare(type, plan) + (nullable ? '?' : '');
}

function bare(type: TypeRef, plan: NamePlan): string {
  switch (type.kind) {
    case 'primitive': return PRIMITIVES[type.type];
    case 'object': return plan.types.get(type.id)?.name ?? 'JsonElement';
    case 'array': return `IReadOnlyList<${csharpType(type.items, plan)}>`;
    case 'map': return `IReadOnlyDictionary<string, ${csharpType(type.values, plan)}>`;
    case 'any': return 'JsonElement';
  }
}
