/**
 * Tool arguments made only from a tool's published input schema, as an AI client makes them: values of
 * the right type that honour enum, format, pattern, lengths, ranges and items (json-schema-faker).
 */
import { generateSync } from 'json-schema-faker';

type Schema = Record<string, unknown>;

/** `required`: only the required arguments (and required properties inside them); `all`: every optional one too. */
export type ArgumentMode = 'required' | 'all';

/**
 * The schema without `null` as a choice and without `default: null`: a null argument means "not given",
 * and the point of `all` is to give every argument a value.
 */
function withoutNull(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutNull);
  if (node === null || typeof node !== 'object') return node;
  const result: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) {
    if (key === 'default' && value === null) continue;
    if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((t) => t !== 'null');
      result.type = types.length === 1 ? types[0] : types;
      continue;
    }
    if (key === 'enum' && Array.isArray(value)) {
      result.enum = value.filter((v) => v !== null);
      continue;
    }
    result[key] = key === 'enum' || key === 'const' || key === 'default' || key === 'examples' ? value : withoutNull(value);
  }
  // json-schema-faker knows no integer formats: a 32-bit integer gets the bounds its format implies.
  if (result.format === 'int32') {
    result.minimum ??= -(2 ** 31);
    result.maximum ??= 2 ** 31 - 1;
  }
  return result;
}

export function argumentsFor(inputSchema: unknown, mode: ArgumentMode, seed: number): Record<string, unknown> {
  const schema = withoutNull(inputSchema) as Schema;
  const value = generateSync(schema as never, {
    seed,
    requiredOnly: mode === 'required',
    alwaysFakeOptionals: mode === 'all',
    useDefaultValue: false,
    maxDefaultItems: 2,
    maxDepth: 4,
    failOnInvalidTypes: false,
  } as never);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
