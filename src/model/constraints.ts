import type { Constraints, TypeRef } from './types.js';

type Schema = Record<string, unknown>;
type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** Numeric keywords copied as they are (when finite; `multipleOf` only when positive). */
const NUMBER_KEYWORDS = [
  'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minItems', 'maxItems', 'minProperties', 'maxProperties',
] as const;

/** Every keyword {@link constraintsOf} reads. */
const CONSTRAINT_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'format', 'pattern', 'uniqueItems', ...NUMBER_KEYWORDS]);

/**
 * Keywords that decide what kind of value a schema is. An `allOf` part without any of them only describes
 * or constrains (`{ description }`, `{ maxLength: 10 }`) and does not make the schema an object of its own.
 */
const TYPING_KEYWORDS = ['$ref', 'type', 'properties', 'additionalProperties', 'items', 'allOf', 'oneOf', 'anyOf', 'enum', 'const', 'patternProperties'];

export function isUntypedPart(part: unknown): boolean {
  if (part === null || typeof part !== 'object' || Array.isArray(part)) return false;
  for (const key of TYPING_KEYWORDS) if (key in part) return false;
  return true;
}

/** The validation keywords a schema states itself (not through `$ref` or `allOf`: the model follows those). */
export function constraintsOf(node: Schema): Constraints | undefined {
  // Most schemas state none: one pass over their few keys instead of a dozen lookups.
  let any = false;
  for (const key in node) {
    if (CONSTRAINT_KEYWORDS.has(key)) {
      any = true;
      break;
    }
  }
  if (!any) return undefined;
  let found: Writable<Constraints> | undefined;
  const values = Array.isArray(node.enum) ? node.enum.filter((v) => v !== null) : 'const' in node && node.const !== null && node.const !== undefined ? [node.const] : undefined;
  // Each value once: a spec may list one twice (Stripe's api_version), and a schema with duplicate enum items is
  // invalid JSON Schema (draft-07), which strict clients refuse along with the whole tool list.
  if (values && values.length > 0) (found ??= {}).enum = distinct(values);
  if (typeof node.format === 'string' && node.format.trim() !== '') (found ??= {}).format = node.format;
  if (typeof node.pattern === 'string' && node.pattern !== '') (found ??= {}).pattern = node.pattern;
  for (const key of NUMBER_KEYWORDS) {
    const value = node[key];
    if (typeof value === 'number' && Number.isFinite(value) && (key !== 'multipleOf' || value > 0)) (found ??= {})[key] = value;
  }
  // OpenAPI 3.0 spells an exclusive bound as a boolean beside minimum/maximum.
  if (node.exclusiveMinimum === true && typeof node.minimum === 'number') {
    (found ??= {}).exclusiveMinimum = node.minimum;
    delete found.minimum;
  }
  if (node.exclusiveMaximum === true && typeof node.maximum === 'number') {
    (found ??= {}).exclusiveMaximum = node.maximum;
    delete found.maximum;
  }
  if (node.uniqueItems === true) (found ??= {}).uniqueItems = true;
  return found;
}

/** Both sets of constraints; where both state a keyword, `outer` (the schema that wraps the other) wins. */
export function mergeConstraints(inner: Constraints | undefined, outer: Constraints | undefined): Constraints | undefined {
  if (!outer) return inner;
  if (!inner) return outer;
  return { ...inner, ...outer };
}

/** `type` with more constraints. */
export function withConstraints<T extends TypeRef>(type: T, extra: Constraints | undefined): T {
  return extra ? { ...type, constraints: mergeConstraints(type.constraints, extra) } : type;
}

/** The values in their first order, each once (compared as JSON: `1` and `"1"` stay apart). */
function distinct(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A `format: byte` string with numeric bounds (`minimum: 1, maximum: 255`): older Swashbuckle writes a C# `byte` so.
 * The bounds say what the API means, a number; `format` is only an annotation in JSON Schema.
 */
export function isNumberWrittenAsBytes(node: Schema): boolean {
  return node.format === 'byte' && NUMERIC_BOUNDS.some((key) => typeof node[key] === 'number');
}

const NUMERIC_BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'] as const;

/** What of a schema's constraints applies to a number: its bounds, enum and default-like facts, no string keyword. */
export function numberConstraints(constraints: Constraints | undefined): Constraints {
  const { format: _format, pattern: _pattern, minLength: _min, maxLength: _max, ...rest } = constraints ?? {};
  return rest;
}
