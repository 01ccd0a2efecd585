/** What one schema node declares, read from the node alone (no `$ref` followed): its type, nullability and format. */
import type { Primitive, TypeRef } from './types.js';

export type Schema = Record<string, unknown>;

export function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A string that is not blank, or undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Primitive and `any` references are immutable and few: share them. */
const PRIMITIVES = new Map<Primitive, TypeRef>();
const NULLABLE_PRIMITIVES = new Map<Primitive, TypeRef>();
export const ANY: TypeRef = { kind: 'any', nullable: true };

export function primitive(type: Primitive, isNull: boolean): TypeRef {
  const shared = isNull ? NULLABLE_PRIMITIVES : PRIMITIVES;
  let found = shared.get(type);
  if (!found) {
    found = { kind: 'primitive', type, nullable: isNull };
    shared.set(type, found);
  }
  return found;
}

export function nullable(type: TypeRef): TypeRef {
  return type.nullable ? type : { ...type, nullable: true };
}

/**
 * The one non-null `type` a schema declares: `''` when it declares none, undefined when several. A number that may
 * also be written as a string (`["integer", "string"]`, as ASP.NET Core 10 writes every number, since it reads numbers
 * from strings too) is the number: JSON clients send numbers, and the string form only restates them.
 */
export function declaredType(node: Schema): string | undefined {
  const type = node.type;
  if (typeof type === 'string') return type === 'null' ? '' : type;
  if (!Array.isArray(type)) return '';
  let found = '';
  let other = '';
  for (const t of type) {
    if (typeof t !== 'string' || t === 'null' || t === found || t === other) continue;
    if (found === '') found = t;
    else if (other === '') other = t;
    else return undefined;
  }
  if (other === '') return found;
  if (found === 'string' && NUMBER_TYPES.has(other)) return other;
  if (other === 'string' && NUMBER_TYPES.has(found)) return found;
  return undefined;
}

const NUMBER_TYPES: ReadonlySet<string> = new Set(['integer', 'number']);

/** The non-null types of a schema that declares several (`type: ["string", "boolean"]`), each once, in its order. */
export function declaredTypes(node: Schema): string[] {
  return Array.isArray(node.type) ? [...new Set(node.type.filter((t): t is string => typeof t === 'string' && t !== 'null'))] : [];
}

export function isNullable(node: Schema): boolean {
  return node.nullable === true || node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'));
}

export function isNullSchema(node: unknown): boolean {
  return isObject(node) && (node.type === 'null' || (Array.isArray(node.enum) && node.enum.length === 1 && node.enum[0] === null));
}

export function hasOwnProperties(node: Schema): boolean {
  return isObject(node.properties) && Object.keys(node.properties).length > 0;
}

export function inferType(node: Schema): string | undefined {
  if (isObject(node.properties) || node.additionalProperties !== undefined) return 'object';
  if (node.items !== undefined) return 'array';
  const values = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : undefined;
  if (values && values.length > 0) {
    if (values.every((v) => typeof v === 'string')) return 'string';
    if (values.every((v) => Number.isInteger(v))) return 'integer';
    if (values.every((v) => typeof v === 'number')) return 'number';
    if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  }
  if (typeof node.format === 'string' && ['date-time', 'date', 'uuid', 'byte', 'binary'].includes(node.format)) return 'string';
  return undefined;
}

export function stringType(format: string | undefined): Primitive {
  switch (format) {
    case 'date-time': return 'dateTime';
    case 'date': return 'date';
    case 'uuid': return 'uuid';
    case 'byte': return 'bytes';
    case 'binary': return 'file';
    default: return 'string';
  }
}

export function numberType(format: string | undefined): Primitive {
  switch (format) {
    case 'float': return 'float';
    case 'decimal': return 'decimal';
    // `type: number, format: int32` is a whole number, as the format says.
    case 'int32': return 'int';
    case 'int64': return 'long';
    default: return 'double';
  }
}

/**
 * What each value of an `x-ms-enum` means, where its `values` say (`{value, description, name}`); undefined when none
 * does. Its `name`s, the SDKs' enum members, have no counterpart: the client keeps an enum as its values.
 */
export function msEnumDescriptions(msEnum: unknown): readonly (readonly [string, string])[] | undefined {
  if (!isObject(msEnum) || !Array.isArray(msEnum.values)) return undefined;
  const found: (readonly [string, string])[] = [];
  for (const entry of msEnum.values) {
    if (!isObject(entry) || entry.value === undefined || entry.value === null) continue;
    const meaning = text(entry.description);
    if (meaning !== undefined) found.push([String(entry.value), meaning]);
  }
  return found.length > 0 ? found : undefined;
}

/** The name an SDK gives a parameter or property (`x-ms-client-name`), when the node names one. */
export function clientNameOf(node: unknown): string | undefined {
  const name = isObject(node) ? node['x-ms-client-name'] : undefined;
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : undefined;
}
