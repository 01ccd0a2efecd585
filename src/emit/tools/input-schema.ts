import type { ApiModel, Operation, Property, TypeRef } from '../../model/types.js';
import type { NamePlan } from '../../names/plan.js';
import { bareName } from '../../names/identifiers.js';
import { valueDescription } from '../shared/describe.js';
import { methodParameters, type MethodParameter } from '../shared/signature.js';
import { jsonText } from '../shared/writer.js';
import { DEFINED_LENGTH, argumentTypeName, type SchemaDefinitions } from './schema-definitions.js';
import { allowNull, enumKeyword, fits, pick, pin, primitiveSchema, type JsonSchema } from './schema-keywords.js';

export type { JsonSchema } from './schema-keywords.js';
export { DEFINED_LENGTH, SchemaDefinitions } from './schema-definitions.js';

/** Nested objects deeper than this are published as plain objects. */
const MAX_DEPTH = 12;
/**
 * Most schema nodes in one argument's schema. Types that refer to several others grow exponentially with
 * depth when inlined; past this, the argument is published to the deepest level that fits (objects below
 * it as plain objects), so that every level shown is shown whole.
 */
const MAX_NODES = 1000;

/**
 * Thrown when an argument's schema grows past {@link MAX_NODES} at every depth, or while it is made (a check on the
 * depth found).
 */
class TooLarge extends Error {}

interface Expansion {
  readonly maxDepth: number;
  nodes: number;
  /** Inside a union (`oneOf`/`anyOf`): the value is a `JsonElement`, sent as given, properties and all. */
  inUnion: boolean;
  /** In a multipart body, whose files are sent with their names and media types. */
  readonly files: boolean;
}

/**
 * The JSON Schema of a tool's arguments, as the generated server publishes it in tools/list and checks
 * arguments against it before a request is sent: every constraint the spec states (enum, pattern, lengths,
 * formats, ranges, multipleOf, item and property counts, unions), and defaults as the spec gives them.
 */
export function inputSchema(model: ApiModel, plan: NamePlan, op: Operation): JsonSchema {
  const names = plan.operations.get(op.id);
  const parameters = names ? methodParameters(op, names, plan) : [];
  const properties: Record<string, JsonSchema> = {};
  for (const p of parameters) properties[bareName(p.name)] = argumentSchema(model, p);
  const required = parameters.filter((p) => !p.optional).map((p) => bareName(p.name));
  return { type: 'object', properties, ...(required.length > 0 && { required }) };
}

/** One argument: its description, its type with constraints, and the spec's default where it is valid. */
function argumentSchema(model: ApiModel, p: MethodParameter): JsonSchema {
  const { schema, defaultValue } = argumentParts(model, p);
  return { description: p.schemaDescription, ...schema, ...(defaultValue !== undefined && { default: defaultValue }) };
}

/**
 * {@link inputSchema} as compact JSON text, as `jsonText` writes it: each distinct type's schema is turned into
 * text once (operations share bodies), and an argument's text is put together around it. With `definitions`, an
 * argument's schema of {@link DEFINED_LENGTH} characters or more is written once there, by name, and the argument says
 * `"$ref":"#/$defs/<name>"` in its place, which the generated server expands back to the same text.
 */
export function inputSchemaText(model: ApiModel, plan: NamePlan, op: Operation, definitions?: SchemaDefinitions): string {
  const names = plan.operations.get(op.id);
  const parameters = names ? methodParameters(op, names, plan) : [];
  const keys = parameters.map((p) => bareName(p.name));
  // A name given twice keeps its first place in an object: rare enough to leave to the object itself.
  if (new Set(keys).size !== keys.length) return jsonText(inputSchema(model, plan, op));
  const properties = parameters.map((p, i) => `${keyText(keys[i] as string)}:${argumentText(model, p, plan, definitions)}`);
  const required = parameters.filter((p) => !p.optional).map((p) => bareName(p.name));
  return `{"type":"object","properties":{${properties.join(',')}}${required.length > 0 ? `,"required":${jsonText(required)}` : ''}}`;
}

/** A key as JSON text: an argument's name is nearly always ASCII letters, digits and `_`, which JSON writes as they are. */
const keyText = (key: string): string => (PLAIN_KEY.test(key) ? `"${key}"` : jsonText(key));
const PLAIN_KEY = /^\w*$/;

/** The JSON text of {@link argumentSchema}: the same keys in the same order. */
function argumentText(model: ApiModel, p: MethodParameter, plan: NamePlan, definitions?: SchemaDefinitions): string {
  const { schema, defaultValue } = argumentParts(model, p);
  const parts: string[] = [];
  if (p.schemaDescription !== undefined) parts.push(`"description":${jsonText(p.schemaDescription)}`);
  const inner = innerText(schema);
  if (definitions && inner.length >= DEFINED_LENGTH) parts.push(definitions.reference(inner, argumentTypeName(p, plan)));
  else if (inner !== '') parts.push(inner);
  if (defaultValue !== undefined) parts.push(`"default":${jsonText(defaultValue)}`);
  return `{${parts.join(',')}}`;
}

/**
 * The JSON text of schemas without their braces, made once each (the schemas are never changed after they are made).
 * The same string each time: a long one is the key of its definition, and a string's hash is worked out once.
 */
const innerTexts = new WeakMap<JsonSchema, string>();

function innerText(schema: JsonSchema): string {
  let text = innerTexts.get(schema);
  if (text === undefined) innerTexts.set(schema, (text = jsonText(schema).slice(1, -1)));
  return text;
}

/** A paged operation's next-page argument: a URL, as the previous answer gave it. */
const NEXT_LINK: TypeRef = { kind: 'primitive', type: 'string', nullable: false, constraints: { minLength: 1 } };

/** An argument's schema (without its description) and the spec's default where the schema accepts it. */
function argumentParts(model: ApiModel, p: MethodParameter): { schema: JsonSchema; defaultValue: unknown } {
  const parameter = p.source.kind === 'parameter' ? p.source.parameter : undefined;
  const type = p.source.kind === 'parameter' ? p.source.parameter.type : p.source.kind === 'body' ? p.source.body.type : NEXT_LINK;
  // (A long-running operation's token is a string like a next page's URL.)
  // The schema depends on the type and on these few facts of the argument; Graph's thousands of operations pass the
  // same OData arguments ($select, $expand with long enums) again and again.
  const shape = parameter ? `${p.optional ? 'o' : 'r'}${parameter.allowEmpty ? 'e' : 'n'}${parameter.content ? 'c' : 's'}${parameter.location}` : `${p.optional ? 'o' : 'r'}${p.source.kind} ${p.source.kind === 'body' ? p.source.body.kind : ''}`;
  // By shape, then by the type's text: that text is kept per type reference, so its hash is worked out once (a key
  // joined from both would be a new string, hashed whole, at every argument).
  let byModel = madeArguments.get(model);
  if (!byModel) madeArguments.set(model, (byModel = new Map()));
  let made = byModel.get(shape);
  if (!made) byModel.set(shape, (made = new Map()));
  const key = typeKey(type);
  let schema = made.get(key);
  if (schema === undefined) made.set(key, (schema = argumentSchemaOf(model, p, type)));
  const defaultValue = parameter?.facts.defaultValue;
  return { schema, defaultValue: defaultValue !== undefined && fits(schema, defaultValue) ? defaultValue : undefined };
}

/** Argument schemas already made, per model, by {@link argumentParts}'s shape and type key. Never changed after they are made. */
const madeArguments = new WeakMap<ApiModel, Map<string, Map<string, JsonSchema>>>();

/** A type reference as text: equal texts are the same type, constraints and all. Type references are never changed. */
const typeKeys = new WeakMap<TypeRef, string>();

function typeKey(type: TypeRef): string {
  let key = typeKeys.get(type);
  if (key === undefined) typeKeys.set(type, (key = JSON.stringify(type)));
  return key;
}

function argumentSchemaOf(model: ApiModel, p: MethodParameter, type: TypeRef): JsonSchema {
  // An optional argument may be left out; null is not published as a value of its own.
  const files = p.source.kind === 'body' && p.source.body.kind === 'multipart';
  let schema = boundedSchema(model, p.optional ? { ...type, nullable: false } : type, files);
  // A path segment cannot be empty, and a query parameter may be sent empty only where it allows that.
  if (p.source.kind === 'parameter' && !p.source.parameter.allowEmpty && schema.type === 'string' && schema.enum === undefined && !(Number(schema.minLength) >= 1)) {
    schema = { ...schema, minLength: 1 };
  }
  // A query array spread into fields (not one JSON text): a string item cannot be empty, as `tags=` is read as no value at all,
  const spread = p.source.kind === 'parameter' && p.source.parameter.location === 'query' && !p.source.parameter.content;
  if (spread && p.source.kind === 'parameter' && !p.source.parameter.allowEmpty && schema.type === 'array') {
    const items = schema.items as JsonSchema | undefined;
    if (items?.type === 'string' && items.enum === undefined && !(Number(items.minLength) >= 1)) schema = { ...schema, items: { ...items, minLength: 1 } };
  }
  // and a required one has no way to say "empty": it needs an item (as in forms).
  if (spread && !p.optional && schema.type === 'array') schema = atLeastOne(schema);
  if (p.source.kind === 'body' && (p.source.body.kind === 'form' || p.source.body.kind === 'multipart') && isObjectSchema(schema)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    schema = { ...schema, properties: Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, required.has(name) && property.type === 'array' ? atLeastOne(property) : property])) };
  }
  return schema;
}

const atLeastOne = (schema: JsonSchema): JsonSchema => (Number(schema.minItems) >= 1 ? schema : { ...schema, minItems: 1 });
const isObjectSchema = (schema: JsonSchema): schema is JsonSchema & { properties: Record<string, JsonSchema> } =>
  schema.properties !== null && typeof schema.properties === 'object';

/**
 * Schemas already made, per model: operations share bodies (Graph's 11,422 operations take a few hundred types),
 * and each is inlined only once. The schemas are never changed after they are made.
 */
const madeSchemas = new WeakMap<ApiModel, Map<string, JsonSchema>>();

/** The schema of a type, inlined as deep as {@link MAX_NODES} allows; `files`: in a multipart body. */
function boundedSchema(model: ApiModel, type: TypeRef, files: boolean): JsonSchema {
  // A type reference names its types by id: equal references are the same type, constraints and all.
  const key = type.kind === 'primitive' ? undefined : files ? `files ${typeKey(type)}` : typeKey(type);
  let made = madeSchemas.get(model);
  if (!made) madeSchemas.set(model, (made = new Map<string, JsonSchema>()));
  const known = key === undefined ? undefined : made.get(key);
  if (known) return known;
  // The depth is found first, by a walk that makes nothing: a type too large at full depth (106 of Graph's 2,769
  // argument types) is then never made a thousand nodes deep only to be thrown away.
  const maxDepth = deepestFitting(model, type);
  if (maxDepth === undefined) throw new TooLarge();
  const schema = typeSchema(model, type, new Set(), 0, { maxDepth, nodes: 0, inUnion: false, files });
  if (key !== undefined) made.set(key, schema);
  return schema;
}

/**
 * The deepest level to which `type` can be inlined within {@link MAX_NODES} nodes, or undefined when not even the
 * top level fits: what trying {@link typeSchema} at each depth would find, in one walk that makes no schema. A node
 * is in the schema made at depth d when the object or union that holds it, if any, is at depth d or less (arrays
 * and maps are always inlined), so the nodes are counted by that depth; the depth tried comes down as soon as its
 * count passes the limit, and what only a deeper level would hold is not walked.
 */
function deepestFitting(model: ApiModel, type: TypeRef): number | undefined {
  const counts = new Array<number>(MAX_DEPTH + 2).fill(0);
  let limit = MAX_DEPTH;
  let total = 0;
  // The nodes the schema made at `limit` would have.
  const count = (level: number): void => {
    counts[level + 1] = (counts[level + 1] ?? 0) + 1;
    if (level <= limit && ++total > MAX_NODES) {
      while (limit >= -1 && total > MAX_NODES) total -= counts[limit-- + 1] ?? 0;
    }
  };
  // `level`: the depth of the object or union holding the node (-1 for the top).
  const walk = (node: TypeRef, seen: ReadonlySet<string>, depth: number, level: number): void => {
    if (level > limit) return;
    count(level);
    switch (node.kind) {
      case 'primitive':
        return;
      case 'array':
        return walk(node.items, seen, depth + 1, level);
      case 'map':
        if (!(node.values.kind === 'any' && !node.values.union && !node.values.constraints)) walk(node.values, seen, depth + 1, level);
        return;
      case 'object': {
        const declared = model.types.get(node.id);
        if (!declared || seen.has(node.id) || depth > limit) return;
        const inner = new Set(seen).add(node.id);
        for (const p of declared.properties) if (!p.readOnly) walk(p.type, inner, depth + 1, depth);
        return;
      }
      case 'any':
        if (node.union && depth <= limit) for (const v of node.union.variants) walk(v, seen, depth + 1, depth);
        return;
    }
  };
  walk(type, new Set(), 0, -1);
  return limit >= -1 ? limit : undefined;
}

/** A property's description in a schema, worked out once: a type is inlined in the schemas of every operation that takes it. */
function propertyDescription(property: Property): string | undefined {
  if (propertyDescriptions.has(property)) return propertyDescriptions.get(property);
  const description = valueDescription(property.facts, property.type, undefined, true);
  propertyDescriptions.set(property, description);
  return description;
}
const propertyDescriptions = new WeakMap<Property, string | undefined>();

/**
 * The schema of `type`, its keys added to `schema` (a new object, by default empty; a property's starts with its
 * description): schemas are made key by key in place, not spread into one another, as Graph's make hundreds of thousands.
 */
function typeSchema(model: ApiModel, type: TypeRef, seen: ReadonlySet<string>, depth: number, expansion: Expansion, schema: JsonSchema = {}): JsonSchema {
  if (++expansion.nodes > MAX_NODES) throw new TooLarge();
  bareSchema(model, type, seen, depth, expansion, schema);
  if (type.nullable) allowNull(schema);
  return schema;
}

function bareSchema(model: ApiModel, type: TypeRef, seen: ReadonlySet<string>, depth: number, expansion: Expansion, schema: JsonSchema): void {
  const c = type.constraints ?? {};
  switch (type.kind) {
    case 'primitive':
      return primitiveSchema(type.type, c, expansion.files, schema);
    case 'array':
      schema.type = 'array';
      schema.items = typeSchema(model, type.items, seen, depth + 1, expansion);
      pick(c, ['minItems', 'maxItems', 'uniqueItems'], schema);
      return;
    case 'map': {
      const values = type.values.kind === 'any' && !type.values.union && !type.values.constraints ? undefined : typeSchema(model, type.values, seen, depth + 1, expansion);
      schema.type = 'object';
      if (values) schema.additionalProperties = values;
      pick(c, ['minProperties', 'maxProperties'], schema);
      return;
    }
    case 'object': {
      schema.type = 'object';
      const declared = model.types.get(type.id);
      if (!declared || seen.has(type.id) || depth > expansion.maxDepth) return;
      const inner = new Set(seen).add(type.id);
      const properties: Record<string, JsonSchema> = {};
      // readOnly properties are the server's to set: a request does not carry them.
      const writable = declared.properties.filter((p) => !p.readOnly);
      for (const p of writable) {
        const description = propertyDescription(p);
        const property = typeSchema(model, p.type, inner, depth + 1, expansion, description ? { description } : {});
        const defaultValue = p.facts.defaultValue;
        if (defaultValue !== undefined && fits(property, defaultValue)) property.default = defaultValue;
        properties[p.jsonName] = property;
      }
      schema.properties = properties;
      const required = writable.filter((p) => p.required).map((p) => p.jsonName);
      if (required.length > 0) schema.required = required;
      // A record keeps only the properties it declares: another would be dropped in silence, so it is refused. (Not
      // where a union holds the object, which is sent whole, nor where read-only properties, left out here, may come back.)
      if (!expansion.inUnion && writable.length === declared.properties.length && writable.length > 0) schema.additionalProperties = false;
      pick(c, ['minProperties', 'maxProperties'], schema);
      if (declared.discriminator) pin(schema, declared.discriminator.property, declared.discriminator.values);
      return;
    }
    case 'any': {
      if (type.union && depth <= expansion.maxDepth) {
        const outer = expansion.inUnion;
        expansion.inUnion = true;
        const discriminator = type.union.discriminator;
        const [only] = type.union.variants;
        if (type.union.variants.length === 1 && only) {
          // One alternative (a base too general to list what extends it): its schema, open to more properties.
          typeSchema(model, only, seen, depth + 1, expansion, schema);
          expansion.inUnion = outer;
          enumKeyword(c, schema);
          return;
        }
        const variants = type.union.variants.map((v, index) => {
          const variant = typeSchema(model, v, seen, depth + 1, expansion);
          const values = discriminator?.values[index];
          if (discriminator && values && values.length > 0) pin(variant, discriminator.property, values);
          return variant;
        });
        expansion.inUnion = outer;
        schema[type.union.kind] = variants;
      }
      enumKeyword(c, schema);
      return;
    }
  }
}
