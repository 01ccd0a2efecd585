/**
 * OpenAPI discriminators: which value of a property says which alternative a value is. A union (`oneOf`/`anyOf`)
 * may name one, and so may a base schema that others extend with `allOf` (Swashbuckle's and NSwag's polymorphism,
 * Azure's `x-ms-discriminator-value`). The values are read here; the input schemas pin each alternative to its own.
 */
import { decodePointerToken } from '../errors.js';
import { isRef, type RefResolver } from '../load/refs.js';
import { isNullable, isObject, type Schema } from './schema-nodes.js';
import type { Discriminator, ObjectType, TypeRef } from './types.js';

export interface DeclaredDiscriminator {
  readonly property: string;
  /** The mapping's values by the pointer of the schema each names, in the mapping's order. */
  readonly mapping: ReadonlyMap<string, readonly string[]>;
}

const COMPONENT_SCHEMA = /^\/components\/schemas\/([^/]+)$/;

/** Each discriminator read once: a base is asked for by every schema that extends it (Graph's entity: 653 mappings, thousands of times). */
const DECLARED = new WeakMap<object, DeclaredDiscriminator>();

/** The discriminator a schema declares itself (not through `$ref`), or undefined. */
export function declaredDiscriminator(node: Schema): DeclaredDiscriminator | undefined {
  const discriminator = node.discriminator;
  if (!isObject(discriminator) || typeof discriminator.propertyName !== 'string' || discriminator.propertyName === '') return undefined;
  let declared = DECLARED.get(discriminator);
  if (!declared) DECLARED.set(discriminator, (declared = readDiscriminator(discriminator, discriminator.propertyName)));
  return declared;
}

function readDiscriminator(discriminator: Record<string, unknown>, property: string): DeclaredDiscriminator {
  const mapping = new Map<string, string[]>();
  if (isObject(discriminator.mapping)) {
    for (const [value, target] of Object.entries(discriminator.mapping)) {
      if (typeof target !== 'string') continue;
      const pointer = mappingTarget(target);
      const values = mapping.get(pointer);
      if (values) values.push(value);
      else mapping.set(pointer, [value]);
    }
  }
  return { property, mapping };
}

/** A mapping's target as a pointer: `#/components/schemas/Card`, or the bare name `Card` of a component. */
function mappingTarget(target: string): string {
  if (target.startsWith('#')) {
    try {
      return decodeURIComponent(target.slice(1));
    } catch {
      return target.slice(1);
    }
  }
  return `/components/schemas/${target.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * The values that say a value is the schema at `pointer`: those the mapping gives it, else its implicit one, the
 * component's name (or Azure's `x-ms-discriminator-value` on it). None for an inline schema the mapping does not name.
 */
export function discriminatorValues(discriminator: DeclaredDiscriminator, pointer: string, schema: unknown): readonly string[] {
  const mapped = discriminator.mapping.get(pointer);
  if (mapped) return mapped;
  if (isObject(schema) && typeof schema['x-ms-discriminator-value'] === 'string') return [schema['x-ms-discriminator-value']];
  const match = COMPONENT_SCHEMA.exec(pointer);
  return match?.[1] ? [decodePointerToken(match[1])] : [];
}

/**
 * The schemas a base with a discriminator stands for, where a value of the base may be any of them: the mapping's
 * targets, else the component schemas that extend it directly with `allOf` (in document order). Empty when the base
 * stands only for itself.
 */
class Subtypes {
  #byBase: Map<string, string[]> | undefined;

  constructor(private readonly refs: RefResolver) {}

  of(base: string, discriminator: DeclaredDiscriminator): readonly string[] {
    // The mapping's targets, then (their names implicit) those that extend the base and the mapping leaves out.
    const found = [...new Set([...discriminator.mapping.keys(), ...this.extending(base)])];
    return found.length === 1 && found[0] === base ? [] : found;
  }

  /** Component schemas whose `allOf` has a `$ref` to `base`. */
  private extending(base: string): readonly string[] {
    if (!this.#byBase) {
      this.#byBase = new Map();
      const root = this.refs.root;
      const components = isObject(root) && isObject(root.components) && isObject(root.components.schemas) ? root.components.schemas : {};
      for (const [name, schema] of Object.entries(components)) {
        if (!isObject(schema) || !Array.isArray(schema.allOf)) continue;
        const pointer = `/components/schemas/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        for (const part of schema.allOf) {
          if (!isRef(part)) continue;
          let target: string;
          try {
            target = this.refs.follow(part, `${pointer}/allOf`).pointer;
          } catch {
            continue;
          }
          const list = this.#byBase.get(target);
          if (list) list.push(pointer);
          else this.#byBase.set(target, [pointer]);
        }
      }
    }
    return this.#byBase.get(base) ?? [];
  }
}

/** The discriminator of a union and each alternative's values (the alternatives followed to their schemas), where it names one. */
export function unionDiscriminator(node: Schema, variants: readonly { value: unknown; pointer: string }[]): Discriminator | undefined {
  const discriminator = declaredDiscriminator(node);
  if (!discriminator) return undefined;
  return { property: discriminator.property, values: variants.map(({ value, pointer }) => discriminatorValues(discriminator, pointer, value)) };
}

/**
 * The discriminator of the nearest base the schema at `at` extends through `allOf` (`$ref`s, a few levels up), with
 * the values that say a value is this schema; undefined when no base has one that names this schema.
 */
export function inheritedDiscriminator(refs: RefResolver, node: Schema, at: string): ObjectType['discriminator'] {
  const owner = refs.at(at);
  const seen = new Set<string>([at]);
  let level: { node: Schema; at: string }[] = [{ node, at }];
  for (let depth = 0; depth < 8 && level.length > 0; depth++) {
    const next: { node: Schema; at: string }[] = [];
    for (const current of level) {
      const parts = Array.isArray(current.node.allOf) ? current.node.allOf : [];
      for (const [index, part] of parts.entries()) {
        if (!isRef(part)) continue;
        const { value, pointer } = refs.follow(part, `${current.at}/allOf/${index}`);
        if (!isObject(value) || seen.has(pointer)) continue;
        seen.add(pointer);
        const discriminator = declaredDiscriminator(value);
        const values = discriminator ? discriminatorValues(discriminator, at, owner) : [];
        if (discriminator && values.length > 0) return { property: discriminator.property, values };
        next.push({ node: value, at: pointer });
      }
    }
    level = next;
  }
  return undefined;
}

/** Most alternatives a base's union lists; a base that stands for more is one open alternative. */
export const MAX_ALTERNATIVES = 20;

/**
 * Bases with a discriminator that others extend, referenced as themselves: a value of one may be any of the schemas it
 * stands for (NSwag writes `$ref: Payment` where a card or an invoice payment goes), so the reference is the union of
 * them, each pinned to its discriminator value. Made once per base.
 */
export class PolymorphicBases {
  readonly #subtypes: Subtypes;
  /** The unions by the base's pointer; null: the schema is no such base. */
  readonly #unions = new Map<string, TypeRef | null>();

  constructor(private readonly refs: RefResolver) {
    this.#subtypes = new Subtypes(refs);
  }

  /**
   * The union the base at `target` stands for, undefined for any other schema; `typeOf` gives the type of the schema
   * at a pointer (`index`: the alternative's place, undefined for the base itself).
   */
  unionOf(value: unknown, target: string, typeOf: (pointer: string, index: number | undefined) => TypeRef): TypeRef | undefined {
    if (!isObject(value) || Array.isArray(value.oneOf) || Array.isArray(value.anyOf)) return undefined;
    const known = this.#unions.get(target);
    if (known !== undefined) return known ?? undefined;
    // While its alternatives are read, a reference to the base inside one of them (or the base itself) is the base.
    this.#unions.set(target, null);
    const discriminator = declaredDiscriminator(value);
    const subtypes = discriminator ? this.#subtypes.of(target, discriminator) : [];
    if (!discriminator || subtypes.length === 0) return undefined;
    if (subtypes.length > MAX_ALTERNATIVES) {
      // Too many to list (Graph's entity stands for 653 types): the base itself, open to the properties of any of them
      // and sent whole, as a union of that one alternative.
      const open: TypeRef = { kind: 'any', nullable: isNullable(value), union: { kind: 'anyOf', variants: [typeOf(target, undefined)] } };
      this.#unions.set(target, open);
      return open;
    }
    const variants: TypeRef[] = [];
    const values: (readonly string[])[] = [];
    subtypes.forEach((pointer, index) => {
      const schema = this.refs.at(pointer);
      if (schema === undefined) return;
      variants.push(typeOf(pointer, pointer === target ? undefined : index));
      values.push(discriminatorValues(discriminator, pointer, schema));
    });
    const union: TypeRef = { kind: 'any', nullable: isNullable(value), union: { kind: 'oneOf', variants, discriminator: { property: discriminator.property, values } } };
    this.#unions.set(target, union);
    return union;
  }
}
