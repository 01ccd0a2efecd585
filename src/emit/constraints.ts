import type { SchemaFacts, TypeRef } from '../model/types.js';
import { stringLiteral } from './writer.js';

/** Enums longer than this stay in the description only (they would swell every tools/list). */
export const MAX_SCHEMA_ENUM = 100;

const NONE: readonly string[] = Object.freeze([]);

/**
 * DataAnnotations attributes that the MCP SDK turns into JSON Schema keywords of a tool's input:
 * `[AllowedValues(...)]` → `enum`, `[Range(min, max)]` → `minimum`/`maximum`.
 */
export function constraintAttributes(type: TypeRef, facts: SchemaFacts): readonly string[] {
  if (type.kind !== 'primitive' || (facts.enumValues === undefined && (facts.minimum === undefined || facts.maximum === undefined))) return NONE;
  const attributes: string[] = [];
  const values = allowedValues(type.type, facts.enumValues);
  if (values) attributes.push(`AllowedValues(${values.join(', ')})`);
  if (facts.minimum !== undefined && facts.maximum !== undefined && ['int', 'long', 'double', 'float', 'decimal'].includes(type.type)) {
    const ints = Number.isInteger(facts.minimum) && Number.isInteger(facts.maximum) && Math.abs(facts.minimum) <= 2 ** 31 - 1 && Math.abs(facts.maximum) <= 2 ** 31 - 1;
    attributes.push(ints ? `Range(${facts.minimum}, ${facts.maximum})` : `Range(${double(facts.minimum)}, ${double(facts.maximum)})`);
  }
  return attributes;
}

/** True when the enum goes into the schema (so the description need not list it). */
export function enumInSchema(type: TypeRef, facts: SchemaFacts): boolean {
  return type.kind === 'primitive' && facts.enumValues !== undefined && allowedValues(type.type, facts.enumValues) !== undefined;
}

function allowedValues(type: string, enumValues: readonly unknown[] | undefined): string[] | undefined {
  const values = (enumValues ?? []).filter((v) => v !== null);
  if (values.length === 0 || values.length > MAX_SCHEMA_ENUM) return undefined;
  switch (type) {
    case 'string': return values.every((v) => typeof v === 'string') ? values.map((v) => stringLiteral(v as string)) : undefined;
    case 'int': case 'long':
      return values.every((v) => Number.isSafeInteger(v)) ? values.map((v) => (type === 'long' && Math.abs(v as number) > 2 ** 31 - 1 ? `${v}L` : String(v))) : undefined;
    case 'double': case 'float': return values.every((v) => typeof v === 'number' && Number.isFinite(v)) ? values.map((v) => double(v as number)) : undefined;
    case 'bool': return values.every((v) => typeof v === 'boolean') ? values.map(String) : undefined;
    default: return undefined;
  }
}

const double = (value: number): string => `${value}D`;
