/**
 * The JSON Schema keywords of a tool's input schema, as input-schema.ts puts them together: the schema of each
 * primitive (files as objects with their name and media type in a multipart body), the constraints a type states,
 * `null` as one more value, discriminator values pinned, and whether a default fits.
 */
import type { Constraints, Primitive } from '../../model/types.js';
import { MAX_SCHEMA_ENUM } from '../shared/describe.js';

export type JsonSchema = Record<string, unknown>;

/** Formats that say how a string holds bytes, or how a number is stored: not JSON Schema formats. */
const UNPUBLISHED_FORMATS = new Set(['byte', 'binary', 'password', 'int32', 'int64', 'float', 'double', 'decimal']);

const PRIMITIVES: Record<Primitive, JsonSchema> = {
  string: { type: 'string' }, int: { type: 'integer', format: 'int32' }, long: { type: 'integer' },
  double: { type: 'number' }, float: { type: 'number' }, decimal: { type: 'number' }, bool: { type: 'boolean' },
  dateTime: { type: 'string', format: 'date-time' }, date: { type: 'string', format: 'date' }, uuid: { type: 'string', format: 'uuid' },
  bytes: { type: 'string', contentEncoding: 'base64' }, file: { type: 'string', contentEncoding: 'base64' },
};

/** A file of a multipart body: its bytes, and the name and media type the API receives with them (ApiFile reads this). */
const FILE: JsonSchema = {
  type: 'object',
  properties: {
    content: { description: "The file's bytes, base64-encoded.", type: 'string', contentEncoding: 'base64' },
    fileName: { description: 'Its name, as the API receives it (default: the field name).', type: 'string', minLength: 1 },
    contentType: { description: 'Its media type, e.g. application/pdf (default: application/octet-stream).', type: 'string', pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(\\s*;.*)?$' },
  },
  required: ['content'],
  additionalProperties: false,
};

/** The keys of a primitive's schema, added to `schema`: its type and format, and the constraints that apply to it. */
export function primitiveSchema(type: Primitive, c: Constraints, files: boolean, schema: JsonSchema): void {
  const base = type === 'file' && files ? FILE : PRIMITIVES[type];
  for (const key in base) schema[key] = base[key];
  if (type === 'string' && c.format !== undefined && !UNPUBLISHED_FORMATS.has(c.format)) schema.format = c.format;
  enumKeyword(c, schema);
  if (STRINGS.has(type)) pick(c, STRING_KEYWORDS, schema);
  else if (NUMBERS.has(type)) pick(c, NUMBER_KEYWORDS, schema);
}

/**
 * An alternative of a discriminated union, or a type that extends a base with a discriminator: its discriminator
 * property takes only its own values and is required (OpenAPI requires it), so that a value fits one alternative
 * alone (a `oneOf` whose alternatives all take any `kind` refuses a valid value as fitting two). In place.
 */
export function pin(schema: JsonSchema, property: string, values: readonly string[]): void {
  if (schema.type !== 'object' && !(Array.isArray(schema.type) && schema.type.includes('object'))) return;
  const properties = (schema.properties ??= {}) as Record<string, JsonSchema>;
  const current = properties[property];
  const type = current?.type;
  // Discriminator values are strings: a property of another type is left as the spec has it.
  if (type !== undefined && type !== 'string' && !(Array.isArray(type) && type.includes('string'))) return;
  // Where the alternative already takes only some values (`const: circle`), those are its own: the schema's names
  // are only the implicit mapping's guess.
  if (!Array.isArray(current?.enum)) properties[property] = { ...current, type: 'string', enum: [...values] };
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  if (!required.includes(property)) schema.required = [...required, property];
}

/** `null` as one more allowed value: in `type`, in `enum`, or as one more alternative (in place). */
export function allowNull(schema: JsonSchema): void {
  if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  else if (Array.isArray(schema.oneOf)) schema.oneOf = [...schema.oneOf, { type: 'null' }];
  else if (Array.isArray(schema.anyOf)) schema.anyOf = [...schema.anyOf, { type: 'null' }];
}

export function enumKeyword(c: Constraints, schema: JsonSchema): void {
  if (c.enum && c.enum.length <= MAX_SCHEMA_ENUM) schema.enum = c.enum;
}

const STRINGS: ReadonlySet<Primitive> = new Set(['string', 'dateTime', 'date', 'uuid']);
const NUMBERS: ReadonlySet<Primitive> = new Set(['int', 'long', 'double', 'float', 'decimal']);

const STRING_KEYWORDS: readonly (keyof Constraints)[] = ['pattern', 'minLength', 'maxLength'];
const NUMBER_KEYWORDS: readonly (keyof Constraints)[] = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

/** The constraints named by `keys` that `c` has, added to `schema`. */
export function pick(c: Constraints, keys: readonly (keyof Constraints)[], schema: JsonSchema): void {
  for (const key of keys) if (c[key] !== undefined) schema[key] = c[key];
}

/** A default is published only where the schema itself accepts it (a spec's default can contradict its enum). */
export function fits(schema: JsonSchema, value: unknown): boolean {
  if (Array.isArray(schema.enum) && !schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))) return false;
  const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0) return true;
  return types.some((t) => {
    switch (t) {
      case 'string': return typeof value === 'string';
      case 'integer': return Number.isInteger(value);
      case 'number': return typeof value === 'number';
      case 'boolean': return typeof value === 'boolean';
      case 'array': return Array.isArray(value);
      case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value);
      case 'null': return value === null;
      default: return false;
    }
  });
}
