import { GeneratorError, decodePointerToken, pointerToken, type Diagnostic } from '../errors.js';
import { isRef, type RefResolver } from '../load/refs.js';
import type { ObjectType, Property, SchemaFacts, TypeOrigin, TypeRef } from './types.js';
import { PolymorphicBases, inheritedDiscriminator, unionDiscriminator } from './discriminators.js';
import { constraintsOf, isNumberWrittenAsBytes, isUntypedPart, numberConstraints, mergeConstraints, withConstraints } from './constraints.js';
import { ANY, clientNameOf, declaredType, declaredTypes, hasOwnProperties, inferType, isNullSchema, isNullable, isObject, msEnumDescriptions, nullable, numberType, primitive, stringType, text, type Schema } from './schema-nodes.js';

const NO_FACTS: SchemaFacts = Object.freeze({});

/** Deeper schemas are refused (their operation is skipped with a warning): no real spec comes near it. */
export const MAX_SCHEMA_DEPTH = 200;
const COMPONENT_SCHEMA = /^\/components\/schemas\/([^/]+)$/;

/**
 * Turns schemas into type references. Object schemas become {@link ObjectType}s keyed by their
 * JSON pointer, so a component reached through any number of `$ref`s is one type, named after it.
 * Every type carries the validation keywords its schema states, also through `$ref` and `allOf` wrappers.
 */
export class SchemaTypes {
  readonly types = new Map<string, ObjectType>();

  private readonly bases: PolymorphicBases;

  constructor(private readonly refs: RefResolver) {
    this.bases = new PolymorphicBases(refs);
  }

  /** The type of the schema `node` found at pointer `at`; `origin` names it if it is an inline object. */
  typeOf(node: unknown, at: string, origin: TypeOrigin): TypeRef {
    if (this.depth >= MAX_SCHEMA_DEPTH) {
      const where = at.length > 200 ? `${at.slice(0, 120)}…${at.slice(-60)}` : at;
      throw new GeneratorError('spec', `the schema is nested more than ${MAX_SCHEMA_DEPTH} levels deep`, `${this.refs.display}#${where}`);
    }
    this.depth++;
    try {
      if (isRef(node)) {
        const { value, pointer: target } = this.refs.follow(node, at);
        // A schema that contains itself other than through an object (`A: {type: array, items: A}`, a map of
        // itself, an allOf of itself) has no type of its own: it is any JSON. Objects refer to their record.
        if (this.resolving.has(target)) {
          const record = this.types.has(target);
          return record ? { kind: 'object', id: target, nullable: node.nullable === true } : ANY;
        }
        // A base that others extend, with a discriminator: a value of it may be any of them.
        const polymorphic = this.bases.unionOf(value, target, (pointer, index) => this.typeOf({ $ref: `#${pointer}` }, index === undefined ? at : `${at}/discriminator/${index}`, origin));
        if (polymorphic) return node.nullable === true ? nullable(polymorphic) : polymorphic;
        // An object type, once declared, is what every later reference to it resolves to (its constraints are its own).
        const declared = this.declaredAt.get(target);
        if (declared) return node.nullable === true ? nullable(declared) : declared;
        const match = COMPONENT_SCHEMA.exec(target);
        const targetOrigin: TypeOrigin = match?.[1]
          ? { kind: 'component', name: decodePointerToken(match[1]) }
          : origin;
        this.resolving.add(target);
        try {
          const type = this.resolved(value, target, targetOrigin);
          if (type.kind === 'object' && type.id === target) this.declaredAt.set(target, type);
          return node.nullable === true ? nullable(type) : type;
        } finally {
          this.resolving.delete(target);
        }
      }
      // A YAML alias is the same node wherever it is used: one type, not a copy per use.
      const known = isObject(node) ? this.byNode.get(node) : undefined;
      if (known) return known;
      const type = this.resolved(node, at, origin);
      if (isObject(node) && type.kind === 'object') this.byNode.set(node, type);
      return type;
    } finally {
      this.depth--;
    }
  }

  private depth = 0;
  private readonly resolving = new Set<string>();
  private readonly byNode = new WeakMap<object, TypeRef>();
  /** The object type a `$ref` target resolved to, by the target's pointer. */
  private readonly declaredAt = new Map<string, TypeRef>();

  /** Description and default of a schema; `$ref` siblings and `allOf` annotations win over the target. */
  facts(node: unknown, at: string): SchemaFacts {
    if (!isObject(node)) return NO_FACTS;
    return factsOf(node, isRef(node) ? this.refs.follow(node, at).value : node);
  }

  private resolved(node: unknown, at: string, origin: TypeOrigin): TypeRef {
    if (!isObject(node)) return ANY;
    const isNull = isNullable(node);
    const allOf = node.allOf;
    if (Array.isArray(allOf) && allOf.length > 0) {
      const composed = this.composed(node, allOf, at, origin, isNull);
      if (composed) return composed;
    }
    const union = (Array.isArray(node.oneOf) ? node.oneOf : Array.isArray(node.anyOf) ? node.anyOf : undefined) as unknown[] | undefined;
    if (union && !hasOwnProperties(node)) {
      const key = Array.isArray(node.oneOf) ? 'oneOf' : 'anyOf';
      const variants = union.map((variant, index) => ({ variant, index })).filter(({ variant }) => !isNullSchema(variant));
      const unionNullable = isNull || variants.length < union.length;
      const only = variants[0];
      if (variants.length === 1 && only) {
        const inner = withConstraints(this.typeOf(only.variant, `${at}/${key}/${only.index}`, origin), constraintsOf(node));
        return unionNullable ? nullable(inner) : inner;
      }
      const types = variants.map(({ variant, index }) => this.typeOf(variant, `${at}/${key}/${index}`, { kind: 'variant', of: origin, index }));
      const discriminator = unionDiscriminator(node, variants.map(({ variant, index }) => this.refs.follow(variant, `${at}/${key}/${index}`)));
      return withConstraints({ kind: 'any', nullable: unionNullable, ...(types.length > 0 && { union: { kind: key, variants: types, ...(discriminator && { discriminator }) } }) }, constraintsOf(node));
    }

    const declared = declaredType(node);
    // Several types (`["string", "boolean"]`): each is an alternative, as if written as anyOf.
    if (declared === undefined) return this.typeUnion(node, at, origin, isNull);
    const type = declared === '' ? inferType(node) : declared;
    switch (type) {
      case 'object':
        if (!hasOwnProperties(node)) return withConstraints(this.mapOf(node, at, origin, isNull), constraintsOf(node));
        return this.declareObject(node, at, origin, isNull);
      case 'array': {
        const items = node.items;
        const itemOrigin: TypeOrigin = origin.kind === 'property' ? { kind: 'items', parent: origin.parent, property: origin.property } : origin;
        let itemType = items === undefined || Array.isArray(items) ? ANY : this.typeOf(items, `${at}/items`, itemOrigin);
        const own = constraintsOf(node);
        // An enum of scalars on an array can only mean the items' values (a frequent slip in specs).
        if (own?.enum && own.enum.every((v) => v === null || typeof v !== 'object')) {
          const { enum: values, ...rest } = own;
          itemType = withConstraints(itemType, { enum: values });
          return withConstraints({ kind: 'array', items: itemType, nullable: isNull }, Object.keys(rest).length > 0 ? rest : undefined);
        }
        return withConstraints({ kind: 'array', items: itemType, nullable: isNull }, own);
      }
      case 'string':
        if (isNumberWrittenAsBytes(node)) return withConstraints(primitive('int', isNull), numberConstraints(constraintsOf(node)));
        // OpenAPI 3.1 says a file by its media type, where bytes inside JSON also name their encoding.
        if (typeof node.contentMediaType === 'string' && node.contentEncoding === undefined && node.format === undefined) return withConstraints(primitive('file', isNull), constraintsOf(node));
        return withConstraints(primitive(stringType(text(node.format)), isNull), constraintsOf(node));
      case 'integer': return withConstraints(primitive(node.format === 'int32' ? 'int' : 'long', isNull), constraintsOf(node));
      case 'number': return withConstraints(primitive(numberType(text(node.format)), isNull), constraintsOf(node));
      case 'boolean': return withConstraints(primitive('bool', isNull), constraintsOf(node));
      default: return withConstraints(ANY, constraintsOf(node));
    }
  }

  /** A schema of several types: the union of the schema read once with each type alone. */
  private typeUnion(node: Schema, at: string, origin: TypeOrigin, isNull: boolean): TypeRef {
    const variants = declaredTypes(node).map((type, index) => this.resolved({ ...node, type }, `${at}/type/${index}`, { kind: 'variant', of: origin, index }));
    return { kind: 'any', nullable: isNull, union: { kind: 'anyOf', variants } };
  }

  /**
   * `allOf`. Parts that only describe or constrain (`{ description }`, `{ maxLength: 10 }`) add their
   * constraints to the one part that gives the type: `allOf: [{ $ref: String }, { description }]` is a
   * string. Parts that are all primitives are the first of them. Otherwise the parts are merged into one
   * object type. Undefined when no part gives a type (the node is then read as if it had no `allOf`).
   */
  private composed(node: Schema, allOf: unknown[], at: string, origin: TypeOrigin, isNull: boolean): TypeRef | undefined {
    const typed = allOf.map((part, index) => ({ part, index })).filter(({ part }) => !isUntypedPart(part));
    if (typed.length === 0 && !hasOwnProperties(node)) return undefined;
    const first = typed[0];
    // An inline wrapper of one reference (`{nullable: true, allOf: [{$ref: Assignee}]}`, as OpenAPI 3.0 cannot put
    // `nullable` or a description beside a `$ref`, and NestJS writes every nullable nested DTO) is that type, not a copy.
    if (first && typed.length === 1 && isRef(first.part) && !hasOwnProperties(node) && origin.kind !== 'component') {
      const inner = withConstraints(this.typeOf(first.part, `${at}/allOf/${first.index}`, origin), constraintsOf(node));
      return isNull || allOf.some((part) => isObject(part) && part.nullable === true) ? nullable(inner) : inner;
    }
    const objectLike = hasOwnProperties(node) || typed.some(({ part, index }) => this.isObjectLike(part, `${at}/allOf/${index}`, 0));
    if (objectLike || !first) return this.declareObject(node, at, origin, isNull);
    let extra = constraintsOf(node);
    for (const part of allOf) if (isUntypedPart(part)) extra = mergeConstraints(constraintsOf(part as Schema), extra);
    for (const { part, index } of typed.slice(1)) extra = mergeConstraints(this.typeOf(part, `${at}/allOf/${index}`, origin).constraints, extra);
    const inner = withConstraints(this.typeOf(first.part, `${at}/allOf/${first.index}`, origin), extra);
    return isNull || allOf.some((part) => isObject(part) && part.nullable === true) ? nullable(inner) : inner;
  }

  /** Whether a schema describes an object (through `$ref`s and `allOf` parts, a few levels deep). */
  private isObjectLike(node: unknown, at: string, depth: number): boolean {
    const { value, pointer: valueAt } = this.refs.follow(node, at);
    if (!isObject(value) || depth > 8) return false;
    const declared = declaredType(value);
    if (declared === 'object' || isObject(value.properties) || isObject(value.additionalProperties)) return true;
    if (declared !== '' || !Array.isArray(value.allOf)) return false;
    return value.allOf.some((part, index) => !isUntypedPart(part) && this.isObjectLike(part, `${valueAt}/allOf/${index}`, depth + 1));
  }

  private mapOf(node: Schema, at: string, origin: TypeOrigin, isNull: boolean): TypeRef {
    const extra = node.additionalProperties;
    const values: TypeRef = isObject(extra) && Object.keys(extra).length > 0
      ? this.typeOf(extra, `${at}/additionalProperties`, origin.kind === 'property' ? { kind: 'items', parent: origin.parent, property: origin.property } : origin)
      : ANY;
    return { kind: 'map', values, nullable: isNull };
  }

  private declareObject(node: Schema, at: string, origin: TypeOrigin, isNull: boolean): TypeRef {
    const constraints = constraintsOf(node);
    if (!this.types.has(at)) {
      const properties: SchemaProperty[] = [];
      const description = text(node.description) ?? text(node.title);
      const type: { -readonly [K in keyof ObjectType]: ObjectType[K] } = { id: at, origin, properties, ...(description !== undefined && { description }) };
      this.types.set(at, type);
      const required = Array.isArray(node.allOf) ? this.collectComposed(node, at, properties) : Array.isArray(node.required) ? node.required : NOTHING_REQUIRED;
      if (!Array.isArray(node.allOf)) this.addProperties(node, at, at, properties, required);
      this.addUndeclared(at, properties, required);
      const inherited = Array.isArray(node.allOf) ? inheritedDiscriminator(this.refs, node, at) : undefined;
      if (inherited) type.discriminator = inherited;
    }
    return { kind: 'object', id: at, nullable: isNull, ...(constraints && { constraints }) };
  }

  /** `allOf`: the properties of every part and of the node itself; `required` in any of them counts. Returns the required names. */
  private collectComposed(node: Schema, at: string, into: SchemaProperty[]): unknown[] {
    const required = new Set<unknown>();
    this.collect(node, at, at, into, required, new Map(), new Set());
    for (let i = 0; i < into.length; i++) {
      const property = into[i];
      if (property && required.has(property.jsonName) && !property.required && !property.readOnly) into[i] = property.asRequired();
    }
    return [...required];
  }

  /**
   * Names the schema requires but does not describe (a slip real specs make): the API still requires them,
   * so they are properties of any JSON type, described as such, and the spec gets a warning.
   */
  private addUndeclared(at: string, into: SchemaProperty[], required: readonly unknown[]): void {
    if (required.length === 0) return;
    const declared = new Set(into.map((p) => p.jsonName));
    const missing = [...new Set(required)].filter((name): name is string => typeof name === 'string' && name !== '' && !declared.has(name));
    if (missing.length === 0) return;
    for (const name of missing) into.push(new SchemaProperty(name, ANY, true, false, UNDECLARED, UNDECLARED));
    const names = missing.map((name) => JSON.stringify(name)).join(', ');
    this.warnings.push({ location: `${this.refs.display}#${at}/required`, message: `required ${missing.length === 1 ? 'property' : 'properties'} ${names} ${missing.length === 1 ? 'is' : 'are'} not described: sent as any JSON value` });
  }

  /** What the schemas say that the generated code cannot follow exactly. */
  readonly warnings: Diagnostic[] = [];

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
const UNDECLARED: Schema = Object.freeze({ description: 'Required by the API; the spec does not describe it.' });

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

  get clientName(): string | undefined {
    return clientNameOf(this.#schema);
  }

  asRequired(): SchemaProperty {
    return new SchemaProperty(this.jsonName, this.type, true, this.readOnly, this.#schema, this.#target);
  }
}

/**
 * Facts of `own`, whose `$ref` (if any) leads to `target`: the first description (or title) and default
 * found on `own`, on `target`, or on the parts of `target`'s `allOf` that only annotate.
 */
function factsOf(own: Schema, target: unknown): SchemaFacts {
  const resolved = isObject(target) ? target : {};
  const parts = Array.isArray(resolved.allOf) ? resolved.allOf.filter((part): part is Schema => isUntypedPart(part)) : NO_PARTS;
  // Undefined is "not said here"; null is a value (`default: null`).
  const first = (read: (node: Schema) => unknown): unknown => {
    let found = read(own);
    if (found === undefined) found = read(resolved);
    if (found !== undefined) return found;
    for (const part of parts) {
      const value = read(part);
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const description = (first((n) => text(n.description)) ?? first((n) => text(n.title))) as string | undefined;
  const defaultValue = first((n) => n.default);
  const valueDescriptions = first((n) => msEnumDescriptions(n['x-ms-enum'])) as SchemaFacts['valueDescriptions'];
  if (description === undefined && defaultValue === undefined && valueDescriptions === undefined) return NO_FACTS;
  // Built field by field: this runs once per property of every schema, and spreads allocate.
  const facts: { -readonly [K in keyof SchemaFacts]: SchemaFacts[K] } = {};
  if (description !== undefined) facts.description = description;
  if (defaultValue !== undefined) facts.defaultValue = defaultValue;
  if (valueDescriptions !== undefined) facts.valueDescriptions = valueDescriptions;
  return facts;
}

const NO_PARTS: readonly Schema[] = Object.freeze([]);
