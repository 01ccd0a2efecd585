import { decodePointerToken, pointerToken } from '../errors.js';
import { isRef, type RefResolver } from '../load/refs.js';
import type { ObjectType, Primitive, Property, SchemaFacts, TypeOrigin, TypeRef } from './types.js';

type Schema = Record<string, unknown>;

const NO_FACTS: SchemaFacts = Object.freeze({});
const COMPONENT_SCHEMA = /^\/components\/schemas\/([^/]+)$/;

/**
 * Turns schemas into type references. Object schemas become {@link ObjectType}s keyed by their
 * JSON pointer, so a component reached through any number of `$ref`s is one type, named after it.
 */
export class SchemaTypes {
  readonly types = new Map<string, ObjectType>();

  constructor(private readonly refs: RefResolver) {}

  /** The type of the schema `node` found at pointer `at`; `origin` names it if it is an inline object. */
  typeOf(node: unknown, at: string, origin: TypeOrigin): TypeRef {
    if (isRef(node)) {
      const { value, pointer: target } = this.refs.follow(node, at);
      const match = COMPONENT_SCHEMA.exec(target);
      const targetOrigin: TypeOrigin = match?.[1]
        ? { kind: 'component', name: decodePointerToken(match[1]) }
        : origin;
      const type = this.resolved(value, target, targetOrigin);
      return node.nullable === true ? nullable(type) : type;
    }
    return this.resolved(node, at, origin);
  }

  /** Description, enum values, default and format of a schema; `$ref` siblings win over the target. */
  facts(node: unknown, at: string): SchemaFacts {
    if (!isObject(node)) return NO_FACTS;
    return factsOf(node, isRef(node) ? this.refs.follow(node, at).value : node);
  }

  private resolved(node: unknown, at: string, origin: TypeOrigin): TypeRef {
    if (!isObject(node)) return ANY;
    const isNull = isNullable(node);
    const allOf = node.allOf;
    if (Array.isArray(allOf) && allOf.length > 0) {
      if (allOf.length === 1 && !hasOwnProperties(node)) {
        const inner = this.typeOf(allOf[0], `${at}/allOf/0`, origin);
        return isNull ? nullable(inner) : inner;
      }
      return this.declareObject(node, at, origin, isNull);
    }
    const union = (Array.isArray(node.oneOf) ? node.oneOf : Array.isArray(node.anyOf) ? node.anyOf : undefined) as unknown[] | undefined;
    if (union && !hasOwnProperties(node)) {
      const key = Array.isArray(node.oneOf) ? 'oneOf' : 'anyOf';
      const variants = union.map((variant, index) => ({ variant, index })).filter(({ variant }) => !isNullSchema(variant));
      const unionNullable = isNull || variants.length < union.length;
      const only = variants[0];
      if (variants.length === 1 && only) {
        const inner = this.typeOf(only.variant, `${at}/${key}/${only.index}`, origin);
        return unionNullable ? nullable(inner) : inner;
      }
      return ANY;
    }

    const declared = declaredType(node);
    const type = declared === '' ? inferType(node) : declared;
    switch (type) {
      case 'object':
        if (!hasOwnProperties(node)) return this.mapOf(node, at, origin, isNull);
        return this.declareObject(node, at, origin, isNull);
      case 'array': {
        const items = node.items;
        const itemOrigin: TypeOrigin = origin.kind === 'property' ? { kind: 'items', parent: origin.parent, property: origin.property } : origin;
        const itemType = items === undefined || Array.isArray(items) ? ANY : this.typeOf(items, `${at}/items`, itemOrigin);
        return { kind: 'array', items: itemType, nullable: isNull };
      }
      case 'string': return primitive(stringType(text(node.format)), isNull);
      case 'integer': return primitive(node.format === 'int32' ? 'int' : 'long', isNull);
      case 'number': return primitive(numberType(text(node.format)), isNull);
      case 'boolean': return primitive('bool', isNull);
      default: return ANY;
    }
  }

  private mapOf(node: Schema, at: string, origin: TypeOrigin, isNull: boolean): TypeRef {
    const extra = node.additionalProperties;
    const values: TypeRef = isObject(extra) && Object.keys(extra).length > 0
      ? this.typeOf(extra, `${at}/additionalProperties`, origin.kind === 'property' ? { kind: 'items', parent: origin.parent, property: origin.property } : origin)
      : ANY;
    return { kind: 'map', values, nullable: isNull };
  }

  private declareObject(node: Schema, at: string, origin: TypeOrigin, isNull: boolean): TypeRef {
    if (!this.types.has(at)) {
      const properties: SchemaProperty[] = [];
      const description = text(node.description) ?? text(node.title);
      this.types.set(at, { id: at, origin, properties, ...(description !== undefined && { description }) });
      if (Array.isArray(node.allOf)) this.collectComposed(node, at, properties);
      else this.addProperties(node, at, at, properties, Array.isArray(node.required) ? node.required : NOTHING_REQUIRED);
    }
    return { kind: 'object', id: at, nullable: isNull };
  }

  /** `allOf`: the properties of every part and of the node itself; `required` in any of them counts. */
  private collectComposed(node: Schema, at: string, into: SchemaProperty[]): void {
    const required = new Set<unknown>();
    this.collect(node, at, at, into, required, new Map(), new Set());
    for (let i = 0; i < into.length; i++) {
      const property = into[i];
      if (property && required.has(property.jsonName) && !property.required && !property.readOnly) into[i] = property.asRequired();
    }
  }

  private collect(node: Schema, at: string, owner: string, into: SchemaProperty[], required: Set<unknown>, seen: Map<string, number>, visiting: Set<string>): void {
    if (visiting.has(at)) return;
    visiting.add(at);
    if (Array.isArray(node.allOf)) {
      node.allOf.forEach((part, index) => {
        const { value, pointer: partAt } = this.refs.follow(part, `${at}/allOf/${index}`);
        if (isObject(value)) this.collect(value, partAt, owner, into, required, seen, visiting);
      });
    }
    if (Array.isArray(node.required)) for (const name of node.required) required.add(name);
    this.addProperties(node, at, owner, into, NOTHING_REQUIRED, seen);
  }

  /** Adds the properties of `node`; with `seen` (allOf), a later declaration of a name replaces the earlier one. */
  private addProperties(node: Schema, at: string, owner: string, into: SchemaProperty[], required: readonly unknown[], seen?: Map<string, number>): void {
    const properties = node.properties;
    if (!isObject(properties)) return;
    for (const name of Object.keys(properties)) {
      const schema = properties[name];
      const propertyAt = `${at}/properties/${pointerToken(name)}`;
      const target = isRef(schema) ? this.refs.follow(schema, propertyAt).value : schema;
      // readOnly on the property or its target: the server sets it, so a request never requires it.
      const readOnly = isObject(schema) && (schema.readOnly === true || (isObject(target) && target.readOnly === true));
      const type = this.typeOf(schema, propertyAt, { kind: 'property', parent: owner, property: name });
      const property = new SchemaProperty(name, type, !readOnly && required.includes(name), readOnly, schema, target);
      const index = seen?.get(name);
      if (index === undefined) {
        seen?.set(name, into.length);
        into.push(property);
      } else {
        into[index] = property;
      }
    }
  }
}

const NOTHING_REQUIRED: readonly unknown[] = Object.freeze([]);

/**
 * A property of an object type. Its facts (description, enum, default…) are read from the schema
 * when first asked for: the client's models show them, the tools never need them.
 */
class SchemaProperty implements Property {
  #facts: SchemaFacts | undefined;
  readonly #schema: unknown;
  readonly #target: unknown;

  constructor(
    readonly jsonName: string,
    readonly type: TypeRef,
    readonly required: boolean,
    readonly readOnly: boolean,
    schema: unknown,
    target: unknown,
  ) {
    this.#schema = schema;
    this.#target = target;
  }

  get facts(): SchemaFacts {
    return (this.#facts ??= isObject(this.#schema) ? factsOf(this.#schema, this.#target) : NO_FACTS);
  }

  asRequired(): SchemaProperty {
    return new SchemaProperty(this.jsonName, this.type, true, this.readOnly, this.#schema, this.#target);
  }
}

/** Facts of `own`, whose `$ref` (if any) leads to `target`. */
function factsOf(own: Schema, target: unknown): SchemaFacts {
  const resolved = isObject(target) ? target : {};
  const description = text(own.description) ?? text(resolved.description) ?? text(own.title) ?? text(resolved.title);
  const enumValues = Array.isArray(resolved.enum) ? resolved.enum : undefined;
  const defaultValue = own.default ?? resolved.default;
  const format = text(resolved.format);
  const minimum = typeof resolved.minimum === 'number' ? resolved.minimum : undefined;
  const maximum = typeof resolved.maximum === 'number' ? resolved.maximum : undefined;
  if (description === undefined && enumValues === undefined && defaultValue === undefined && format === undefined && minimum === undefined && maximum === undefined) return NO_FACTS;
  // Built field by field: this runs once per property of every schema, and spreads allocate.
  const facts: { -readonly [K in keyof SchemaFacts]: SchemaFacts[K] } = {};
  if (description !== undefined) facts.description = description;
  if (enumValues !== undefined) facts.enumValues = enumValues;
  if (defaultValue !== undefined) facts.defaultValue = defaultValue;
  if (format !== undefined) facts.format = format;
  if (minimum !== undefined) facts.minimum = minimum;
  if (maximum !== undefined) facts.maximum = maximum;
  return facts;
}


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
const ANY: TypeRef = { kind: 'any', nullable: true };

function primitive(type: Primitive, isNull: boolean): TypeRef {
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

/** The one non-null `type` a schema declares: `''` when it declares none, undefined when several. */
function declaredType(node: Schema): string | undefined {
  const type = node.type;
  if (typeof type === 'string') return type === 'null' ? '' : type;
  if (!Array.isArray(type)) return '';
  let found = '';
  for (const t of type) {
    if (typeof t !== 'string' || t === 'null') continue;
    if (found !== '') return undefined;
    found = t;
  }
  return found;
}

function isNullable(node: Schema): boolean {
  return node.nullable === true || node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'));
}

function isNullSchema(node: unknown): boolean {
  return isObject(node) && (node.type === 'null' || (Array.isArray(node.enum) && node.enum.length === 1 && node.enum[0] === null));
}

function hasOwnProperties(node: Schema): boolean {
  return isObject(node.properties) && Object.keys(node.properties).length > 0 || Array.isArray(node.allOf) && node.allOf.length > 1;
}

function inferType(node: Schema): string | undefined {
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

function stringType(format: string | undefined): Primitive {
  switch (format) {
    case 'date-time': return 'dateTime';
    case 'date': return 'date';
    case 'uuid': return 'uuid';
    case 'byte': case 'binary': return 'bytes';
    default: return 'string';
  }
}

function numberType(format: string | undefined): Primitive {
  switch (format) {
    case 'float': return 'float';
    case 'decimal': return 'decimal';
    default: return 'double';
  }
}

