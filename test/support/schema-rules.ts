/**
 * The rules a strict MCP client applies to a tool before it accepts a server's tool list: GitHub Copilot Chat
 * validates every inputSchema against the JSON Schema draft-07 meta-schema (ajv) and drops the whole list when one
 * fails; others check against 2020-12. Besides both meta-schemas: the root is an object schema, every array schema
 * has `items`, and the tool's name matches `^[A-Za-z0-9_-]{1,64}$`.
 */
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

export interface SchemaProblem {
  readonly tool: string;
  readonly which: 'inputSchema' | 'outputSchema' | 'name';
  readonly rule: string;
  readonly detail: string;
}

const draft07 = new Ajv({ strict: false, validateFormats: false, logger: false });
const draft2020 = new Ajv2020({ strict: false, validateFormats: false, logger: false });

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** What a strict client would refuse in one tool: its name, and each schema against both meta-schemas and the extra rules. */
export function schemaProblems(tool: string, schemas: { inputSchema: unknown; outputSchema?: unknown }): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  if (!NAME.test(tool)) problems.push({ tool, which: 'name', rule: 'name', detail: tool });
  for (const which of ['inputSchema', 'outputSchema'] as const) {
    const schema = schemas[which];
    if (schema === undefined) continue;
    for (const [rule, ajv] of [['draft-07', draft07], ['2020-12', draft2020]] as const) {
      if (!ajv.validateSchema(schema as object)) problems.push({ tool, which, rule, detail: ajv.errorsText(ajv.errors) });
    }
    const root = schema as Record<string, unknown>;
    if (root.type !== 'object') problems.push({ tool, which, rule: 'root object', detail: `type ${JSON.stringify(root.type)}` });
    for (const path of arraysWithoutItems(schema, '#')) problems.push({ tool, which, rule: 'array items', detail: path });
  }
  return problems;
}

/** JSON pointers of the array schemas (type "array", or a type list with it) that have no `items`. */
function arraysWithoutItems(node: unknown, path: string): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => arraysWithoutItems(item, `${path}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const schema = node as Record<string, unknown>;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const own = types.includes('array') && schema.items === undefined && schema.prefixItems === undefined ? [path] : [];
  return [...own, ...Object.entries(schema).flatMap(([key, value]) => (key === 'enum' || key === 'const' || key === 'default' || key === 'examples'
    ? []
    : arraysWithoutItems(value, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)))];
}
