/**
 * `npm run corpus -- --classes [--list FILE] [--generator DIST] [--out FILE] [--compare FILE]`
 *
 * The class sweep: how many tools of the corpus each shape of framework-written documents touches, and what their
 * input schemas (what the model sees) and requests are like. The shapes, found in each operation's parameters and
 * request body (through `$ref`s): parameters declared with `content`, numbers that may be strings
 * (`type: ["integer", "string"]`), other type lists, discriminators (on a union, or on a base others extend), and
 * multipart files. Per tool it records the classes, a hash of its input schema, the empty (untyped) schemas in it,
 * and its union alternatives with and without their discriminator pinned.
 *
 * `--generator DIST` reads the generator from another build (a `dist` folder of an earlier commit), so that one run
 * with the earlier generator (`--out before.json`) and one with this one (`--compare before.json`) give the figures
 * before and after.
 */
import { createHash } from 'node:crypto';
import { declaredParameters, follow, isNode, sweep, sweepOptions, type Node, type SweptSpec, type Generator } from './corpus-sweep.js';

const CLASSES = ['content-parameter', 'number-or-string', 'several-types', 'discriminator', 'multipart-file'] as const;
type ShapeClass = (typeof CLASSES)[number];

interface ToolRecord {
  readonly spec: string;
  readonly tool: string;
  readonly classes: ShapeClass[];
  readonly schemaHash: string;
  readonly emptySchemas: number;
  readonly unionAlternatives: number;
  readonly pinnedAlternatives: number;
  /** Parameters declared with `content` whose value is an object or a list: the ones a style would spread. */
  readonly structuredContentParameters: number;
}

/** The classes an operation's request side has. */
function classesOf(root: Node, pathItem: Node, operation: Node): Set<ShapeClass> {
  const found = new Set<ShapeClass>();
  const seen = new Set<unknown>();
  const bases = discriminatorBases(root);
  const schema = (value: unknown): void => {
    const { node, pointer } = follow(root, value);
    if (!isNode(node) || seen.has(node)) return;
    seen.add(node);
    if (pointer !== undefined && bases.has(pointer)) found.add('discriminator');
    if (isNode(node.discriminator)) found.add('discriminator');
    if (Array.isArray(node.type)) {
      const types = node.type.filter((t) => t !== 'null');
      if (types.length > 1) found.add(types.length === 2 && types.includes('string') && (types.includes('integer') || types.includes('number')) ? 'number-or-string' : 'several-types');
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'example' || key === 'examples' || key === 'enum' || key === 'default') continue;
      if (key === 'properties' && isNode(child)) Object.values(child).forEach(schema);
      else if (Array.isArray(child)) child.forEach(schema);
      else if (isNode(child)) schema(child);
    }
  };
  for (const parameter of declaredParameters(root, pathItem, operation)) {
    if (isNode(parameter.content)) found.add('content-parameter');
    schema(parameter.schema);
    if (isNode(parameter.content)) for (const media of Object.values(parameter.content)) if (isNode(media)) schema(media.schema);
  }
  const body = follow(root, operation.requestBody).node;
  if (isNode(body) && isNode(body.content)) {
    for (const [mediaType, media] of Object.entries(body.content)) {
      if (!isNode(media)) continue;
      const bodySchema = follow(root, media.schema).node;
      if (mediaType.startsWith('multipart/') && isNode(bodySchema) && isNode(bodySchema.properties)) {
        for (const property of Object.values(bodySchema.properties)) {
          const target = follow(root, property).node;
          const item = isNode(target) && target.type === 'array' ? follow(root, target.items).node : target;
          if (isNode(item) && item.format === 'binary') found.add('multipart-file');
        }
      }
      schema(media.schema);
    }
  }
  return found;
}

const basesByRoot = new WeakMap<Node, Set<string>>();

/** Pointers of the component schemas that have a discriminator without being a union (bases others extend). */
function discriminatorBases(root: Node): Set<string> {
  let found = basesByRoot.get(root);
  if (!found) {
    found = new Set();
    const components = isNode(root.components) && isNode(root.components.schemas) ? root.components.schemas : {};
    for (const [name, schema] of Object.entries(components)) {
      if (isNode(schema) && isNode(schema.discriminator) && !schema.oneOf && !schema.anyOf) found.add(`/components/schemas/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
    basesByRoot.set(root, found);
  }
  return found;
}

/** Empty schemas (`{}`, or only a description) and union alternatives, pinned or not, in an input schema. */
function schemaFigures(schema: unknown): { empty: number; alternatives: number; pinned: number } {
  const figures = { empty: 0, alternatives: 0, pinned: 0 };
  const walk = (node: unknown, isSchema: boolean): void => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, isSchema));
    if (!isNode(node)) return;
    if (isSchema && Object.keys(node).every((key) => key === 'description' || key === 'default')) figures.empty++;
    for (const key of ['oneOf', 'anyOf'] as const) {
      const variants = node[key];
      if (!Array.isArray(variants)) continue;
      for (const variant of variants) {
        if (!isNode(variant) || !isNode(variant.properties)) continue;
        figures.alternatives++;
        if (Object.values(variant.properties).some((property) => isNode(property) && Array.isArray(property.enum) && property.enum.length >= 1 && isNode(node) && variants.length > 1 && pinnedProperty(variants, property))) figures.pinned++;
      }
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'enum' || key === 'default' || key === 'const') continue;
      if (key === 'properties' && isNode(child)) Object.values(child).forEach((property) => walk(property, true));
      else if (key === 'items' || key === 'additionalProperties' || key === 'oneOf' || key === 'anyOf' || key === 'allOf') walk(child, true);
    }
  };
  walk(schema, false);
  return figures;
}

/** Whether `property` (an enum of a union alternative) tells its alternative apart: no other alternative takes its values. */
function pinnedProperty(variants: unknown[], property: Node): boolean {
  const values = new Set((property.enum as unknown[]).map((v) => JSON.stringify(v)));
  let holders = 0;
  for (const variant of variants) {
    if (!isNode(variant) || !isNode(variant.properties)) continue;
    if (Object.values(variant.properties).some((p) => isNode(p) && Array.isArray(p.enum) && p.enum.some((v) => values.has(JSON.stringify(v))))) holders++;
  }
  return holders === 1;
}

export async function classesSweep(argv: readonly string[]): Promise<void> {
  await sweep(sweepOptions(argv, '--classes'), toolRecords, report);
}

/** The records of a spec's tools that have any of the classes. */
function toolRecords({ id, model, plan, root, operations }: SweptSpec, { schemas }: Generator): ToolRecord[] {
  const records: ToolRecord[] = [];
  for (const { op, pathItem, operation } of operations) {
    const classes = [...classesOf(root, pathItem, operation)];
    if (classes.length === 0) continue;
    const input = schemas.inputSchema(model, plan, op);
    const figures = schemaFigures(input);
    records.push({
      spec: id,
      tool: plan.operations.get(op.id)?.toolName ?? op.id,
      classes,
      schemaHash: createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 16),
      emptySchemas: figures.empty,
      unionAlternatives: figures.alternatives,
      pinnedAlternatives: figures.pinned,
      structuredContentParameters: op.parameters.filter((p) => p.type.kind !== 'primitive' && contentDeclared(root, pathItem, operation, p.name, p.location)).length,
    });
  }
  return records;
}

/** Whether the document declares the parameter `name` in `location` with `content` (read from the document, for either generator). */
function contentDeclared(root: Node, pathItem: Node, operation: Node, name: string, location: string): boolean {
  return declaredParameters(root, pathItem, operation).some((parameter) => parameter.name === name && parameter.in === location && isNode(parameter.content));
}

/** The table: per class, specs and tools touched, and (with the earlier run) what changed. */
function report(records: readonly ToolRecord[], before: readonly ToolRecord[] | undefined): string {
  const earlier = new Map((before ?? []).map((r) => [`${r.spec} ${r.tool}`, r]));
  const lines = before
    ? ['| class | specs | tools | input schema changed | empty schemas before → after | alternatives pinned before → after |', '|---|---|---|---|---|---|']
    : ['| class | specs | tools | empty schemas | alternatives pinned |', '|---|---|---|---|---|'];
  for (const shape of CLASSES) {
    const touched = records.filter((r) => r.classes.includes(shape));
    const specs = new Set(touched.map((r) => r.spec)).size;
    const sum = (list: readonly (ToolRecord | undefined)[], key: 'emptySchemas' | 'pinnedAlternatives' | 'unionAlternatives'): number => list.reduce((total, r) => total + (r?.[key] ?? 0), 0);
    if (before) {
      const previous = touched.map((r) => earlier.get(`${r.spec} ${r.tool}`));
      const changed = touched.filter((r, i) => previous[i]?.schemaHash !== r.schemaHash).length;
      lines.push(`| ${shape} | ${specs} | ${touched.length} | ${changed} | ${sum(previous, 'emptySchemas')} → ${sum(touched, 'emptySchemas')} | ${sum(previous, 'pinnedAlternatives')} of ${sum(previous, 'unionAlternatives')} → ${sum(touched, 'pinnedAlternatives')} of ${sum(touched, 'unionAlternatives')} |`);
    } else {
      lines.push(`| ${shape} | ${specs} | ${touched.length} | ${sum(touched, 'emptySchemas')} | ${sum(touched, 'pinnedAlternatives')} of ${sum(touched, 'unionAlternatives')} |`);
    }
  }
  const structured = records.reduce((total, r) => total + r.structuredContentParameters, 0);
  lines.push('', `Parameters declared with \`content\` whose value is an object or a list (a style would spread or join them): ${structured}.`);
  return `${lines.join('\n')}\n`;
}
