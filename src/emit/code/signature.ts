import type { ApiModel, Operation, Primitive, TypeRef } from '../../model/types.js';
import type { JsonSchema } from '../tools/input-schema.js';

/** Longest signature: past it, nested objects are `object` and unions `unknown`, so one line stays readable. */
const MAX_LENGTH = 1500;
/** Most literals an enum lists before it is its base type. */
const MAX_LITERALS = 12;

const PRIMITIVES: Record<Primitive, string> = {
  string: 'string', int: 'number', long: 'number', double: 'number', float: 'number', decimal: 'number', bool: 'boolean',
  dateTime: 'string', date: 'string', uuid: 'string', bytes: 'string', file: 'string',
};

/** What a tool answers for a file: its descriptor. */
const FILE = '{ status: number; contentType: string; fileName?: string; length: number; base64?: string; note?: string }';

/** Media types the generated client reads as text (ApiResponseRead's FormOf): text/*, XML, YAML, scripts, forms. */
function isText(mediaType: string | undefined): boolean {
  const type = mediaType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type.startsWith('text/') || type.endsWith('/xml') || type.endsWith('+xml')
    || ['application/javascript', 'application/ecmascript', 'application/x-www-form-urlencoded', 'application/yaml', 'application/x-yaml', 'application/graphql', 'application/sql'].includes(type);
}

/**
 * One line that declares an operation as a code-mode script calls it, TypeScript-style:
 * `get_book(args: { bookId: number; xRequestId?: string }): Promise<{ id: number; title: string }>`.
 * The argument object is the tool's published input schema; the answer is the spec's success type, as the
 * tool returns it (JSON parsed, other text as a string, a file as its descriptor, a file of a text type as its text).
 */
export function signature(model: ApiModel, op: Operation, toolName: string, input: JsonSchema): string {
  for (const depth of [4, 2, 1, 0]) {
    const optional = !Array.isArray(input.required) || input.required.length === 0;
    const args = Object.keys((input.properties ?? {}) as object).length === 0 ? '{}' : schemaType(input, depth);
    const text = `${toolName}(args${optional ? '?' : ''}: ${args}): Promise<${answerType(model, op, depth)}>`;
    if (text.length <= MAX_LENGTH || depth === 0) return text;
  }
  return `${toolName}(args: object): Promise<unknown>`;
}

function answerType(model: ApiModel, op: Operation, depth: number): string {
  switch (op.success.kind) {
    case 'json':
      return op.success.type ? refType(model, op.success.type, depth, new Set()) : 'unknown';
    case 'none':
      return '{ status: number }';
    case 'binary':
      // A file of a text type is answered as its text when its bytes are UTF-8 (ApiResponseRead), else as a file.
      return isText(op.success.mediaType) ? `string | ${FILE}` : FILE;
    default:
      return 'string';
  }
}

/** A TypeScript type for a JSON schema of the published kind (type, properties, required, items, enum, unions). */
function schemaType(schema: JsonSchema, depth: number): string {
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.length <= MAX_LITERALS) {
    return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  }
  const variants = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants)) return depth > 0 ? union(variants.map((v) => schemaType(v, depth - 1))) : 'unknown';
  const types = (Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]) as string[];
  if (types.length === 0) return schema.properties ? objectType(schema, depth) : 'unknown';
  return union(types.map((type) => {
    switch (type) {
      case 'integer':
      case 'number':
        return 'number';
      case 'string':
      case 'boolean':
      case 'null':
        return type;
      case 'array':
        return `${wrap(schema.items && typeof schema.items === 'object' && depth > 0 ? schemaType(schema.items as JsonSchema, depth - 1) : 'unknown')}[]`;
      default:
        return objectType(schema, depth);
    }
  }));
}

function objectType(schema: JsonSchema, depth: number): string {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties || Object.keys(properties).length === 0) {
    const values = schema.additionalProperties;
    return values && typeof values === 'object' && depth > 0 ? `Record<string, ${schemaType(values as JsonSchema, depth - 1)}>` : 'object';
  }
  if (depth === 0) return 'object';
  const required = new Set(Array.isArray(schema.required) ? schema.required as string[] : []);
  return `{ ${Object.entries(properties).map(([name, value]) => `${key(name)}${required.has(name) ? '' : '?'}: ${schemaType(value, depth - 1)}`).join('; ')} }`;
}

/** A TypeScript type for a model type, as the answer's JSON has it (properties under their JSON names). */
function refType(model: ApiModel, type: TypeRef, depth: number, seen: ReadonlySet<string>): string {
  const base = ((): string => {
    switch (type.kind) {
      case 'primitive':
        return PRIMITIVES[type.type];
      case 'array':
        return `${wrap(depth > 0 ? refType(model, type.items, depth - 1, seen) : 'unknown')}[]`;
      case 'map':
        return `Record<string, ${depth > 0 ? refType(model, type.values, depth - 1, seen) : 'unknown'}>`;
      case 'any':
        return type.union && depth > 0 ? union(type.union.variants.map((v) => refType(model, v, depth - 1, seen))) : 'unknown';
      case 'object': {
        const declared = model.types.get(type.id);
        if (!declared || depth === 0 || seen.has(type.id) || declared.properties.length === 0) return 'object';
        const inner = new Set(seen).add(type.id);
        return `{ ${declared.properties.map((p) => `${key(p.jsonName)}${p.required || p.readOnly ? '' : '?'}: ${refType(model, p.type, depth - 1, inner)}`).join('; ')} }`;
      }
    }
  })();
  return type.nullable && base !== 'unknown' ? `${wrap(base)} | null` : base;
}

const union = (types: string[]): string => [...new Set(types)].join(' | ') || 'unknown';

/** A union or function type inside `[]` needs parentheses. */
const wrap = (type: string): string => (/[|]/.test(type.replace(/\{.*\}|"(?:[^"\\]|\\.)*"/g, '')) ? `(${type})` : type);

/** A property name as TypeScript writes it: bare when it is an identifier, else quoted. */
const key = (name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
