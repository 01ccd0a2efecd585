/**
 * Argument schemas written once: the definitions the tools of one file share (McpInputSchemas.g.json), by name.
 */
import type { NamePlan } from '../../names/plan.js';
import { bareName, unique } from '../../names/identifiers.js';
import type { MethodParameter } from '../shared/signature.js';
import { jsonText } from '../shared/writer.js';

/** The shortest argument schema (its members' text) written once among the definitions rather than in each tool. */
export const DEFINED_LENGTH = 256;

/**
 * The argument schemas the tools of one file share, each written once by name (`McpInputSchemas.g.json`), for tools
 * to refer to: the members of a schema's JSON object, which `"$ref":"#/$defs/<name>"` stands for in a tool's schema.
 * (No schema the generator writes has a `$ref` of its own: every type is inlined, so the marker means only this.)
 */
export class SchemaDefinitions {
  readonly #byText = new Map<string, string>();
  readonly #taken = new Set<string>();
  readonly byName = new Map<string, string>();
  /** How many characters longer the schemas that hold the markers would be with each marker replaced by its members. */
  expandedExtra = 0;

  /** The marker for a schema's members, named after its type (the first name a text gets is its name). */
  reference(inner: string, typeName: string): string {
    let name = this.#byText.get(inner);
    if (name === undefined) {
      name = unique(typeName, this.#taken);
      this.#byText.set(inner, name);
      this.byName.set(name, inner);
    }
    const marker = `"$ref":"#/$defs/${name}"`;
    this.expandedExtra += inner.length - marker.length;
    return marker;
  }

  /**
   * McpInputSchemas.g.json: `$defs`, each name's schema in the order they were first met, and where given `tools`, each
   * tool's schema (with its markers), one a line. In parts, for a file that is never made whole: Graph's is 20 MB.
   */
  toJson(tools: ReadonlyMap<string, string> = new Map()): string[] {
    const parts = ['{"$defs":{\n'];
    const entries = (list: Iterable<[string, string]>, braces: boolean): void => {
      let first = true;
      for (const [name, text] of list) {
        parts.push(first ? '  ' : ',\n  ', jsonText(name), braces ? ':{' : ':', text, ...(braces ? ['}'] : []));
        first = false;
      }
    };
    entries(this.byName, true);
    parts.push('\n}');
    if (tools.size > 0) {
      parts.push(',"tools":{\n');
      entries(tools, false);
      parts.push('\n}');
    }
    parts.push('}\n');
    return parts;
  }
}

/** The name a definition of an argument's schema takes: its type's (a record's name, `…List` for a list of them). */
export function argumentTypeName(p: MethodParameter, plan: NamePlan): string {
  const type = p.source.kind === 'parameter' ? p.source.parameter.type : p.source.kind === 'body' ? p.source.body.type : undefined;
  const named = (t: typeof type): string | undefined => t?.kind === 'object' ? plan.types.get(t.id)?.name
    : t?.kind === 'array' ? (named(t.items) ?? 'Item') + 'List'
    : t?.kind === 'map' ? (named(t.values) ?? 'Value') + 'Map'
    : t?.kind === 'any' && t.union ? (named(t.union.variants[0]) ?? 'Value') + 'Union'
    : undefined;
  return named(type) ?? `${bareName(p.name).replace(/^./, (c) => c.toUpperCase())}Schema`;
}
