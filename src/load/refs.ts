import { GeneratorError, decodePointerToken } from '../errors.js';

/** Resolves internal `$ref`s (`#/json/pointer`) lazily, keeping the pointer as the target's identity. */
export class RefResolver {
  private readonly resolved = new Map<string, unknown>();

  constructor(
    readonly root: unknown,
    readonly display: string,
  ) {}

  /** The value at a JSON pointer (`/a/b`), or undefined. */
  at(pointer: string): unknown {
    if (pointer === '') return this.root;
    if (this.resolved.has(pointer)) return this.resolved.get(pointer);
    const value = this.walk(pointer);
    this.resolved.set(pointer, value);
    return value;
  }

  private walk(pointer: string): unknown {
    let node: unknown = this.root;
    for (const raw of pointer.slice(1).split('/')) {
      const token = decodePointerToken(raw);
      if (node === null || typeof node !== 'object') return undefined;
      node = Array.isArray(node) ? node[Number(token)] : (node as Record<string, unknown>)[token];
      if (node === undefined) return undefined;
    }
    return node;
  }

  /**
   * Follows `$ref` chains from `node` (found at `at`) to a value that is not a reference.
   * Returns the value and its pointer. A dangling or cyclic reference is a spec error.
   */
  follow(node: unknown, at: string): { value: unknown; pointer: string } {
    if (!isRef(node)) return { value: node, pointer: at };
    let followed = this.followed.get(node.$ref);
    if (followed === undefined) {
      followed = this.chase(node, at);
      this.followed.set(node.$ref, followed);
    }
    return followed;
  }

  /** `$ref` strings repeat thousands of times: each is followed once (cycles and dangling ones throw). */
  private readonly followed = new Map<string, { value: unknown; pointer: string }>();

  private chase(node: unknown, at: string): { value: unknown; pointer: string } {
    let current = node;
    let currentPointer = at;
    const seen = new Set<string>();
    while (isRef(current)) {
      const target = refPointer(current.$ref, `${this.display}#${currentPointer}`);
      if (seen.has(target)) throw new GeneratorError('spec', `$ref cycle through ${JSON.stringify(current.$ref)}`, `${this.display}#${currentPointer}`);
      seen.add(target);
      const value = this.at(target);
      if (value === undefined) throw new GeneratorError('spec', `$ref ${JSON.stringify(current.$ref)} points to nothing`, `${this.display}#${currentPointer}/$ref`);
      current = value;
      currentPointer = target;
    }
    return { value: current, pointer: currentPointer };
  }
}

export function isRef(node: unknown): node is { $ref: string } & Record<string, unknown> {
  return node !== null && typeof node === 'object' && typeof (node as { $ref?: unknown }).$ref === 'string';
}

/** The JSON pointer of an internal `$ref` (`#/components/schemas/Pet` → `/components/schemas/Pet`). */
export function refPointer(ref: string, where: string): string {
  if (!ref.startsWith('#')) throw new GeneratorError('spec', `unresolved external $ref ${JSON.stringify(ref)}`, where);
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    fragment = ref.slice(1);
  }
  if (fragment !== '' && !fragment.startsWith('/')) throw new GeneratorError('spec', `$ref ${JSON.stringify(ref)} is not a JSON pointer`, where);
  return fragment;
}
