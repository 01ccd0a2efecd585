/**
 * What the document sweeps over the corpus share (scripts/corpus-classes.ts, scripts/corpus-azure.ts): their options
 * (`--list`, `--generator DIST`, `--out FILE`, `--compare FILE`), the generator read from this build or another's
 * `dist`, every spec of the list prepared and its names planned, each operation beside its node in the document as
 * the generator read it (a Swagger 2 document converted), and `$ref`s followed within that document.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { REPO } from '../test/support/golden.js';
import type { ApiModel, NamePlan, Operation } from '../src/index.js';
import { ensureCorpus } from './corpus-install.js';

export type Node = Record<string, unknown>;

export const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value at an internal `$ref`, followed (chains too), or undefined. */
export function follow(root: Node, value: unknown): { node: unknown; pointer?: string } {
  let current = value;
  let pointer: string | undefined;
  for (let hops = 0; isNode(current) && typeof current.$ref === 'string' && hops < 20; hops++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) return { node: undefined };
    pointer = ref.slice(1);
    current = pointer.slice(1).split('/').reduce<unknown>((at, raw) => (isNode(at) || Array.isArray(at) ? (at as Node)[raw.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), root);
  }
  return { node: current, ...(pointer !== undefined && { pointer }) };
}

/** An operation's parameters as the document declares them (the path item's, then the operation's), `$ref`s followed. */
export function declaredParameters(root: Node, pathItem: Node, operation: Node): Node[] {
  return [pathItem.parameters, operation.parameters].flatMap((list) => (Array.isArray(list) ? list.map((raw) => follow(root, raw).node).filter(isNode) : []));
}

export interface SweepOptions {
  readonly list: string;
  readonly generator?: string;
  readonly out?: string;
  readonly compare?: string;
}

/** The sweep's options: `flag` (`--classes`, `--azure`) says which sweep, and the rest are the same for each. */
export function sweepOptions(argv: readonly string[], flag: string): SweepOptions {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== flag),
    options: {
      list: { type: 'string', default: join(REPO, '../shared/corpus/dev-specs.txt') },
      generator: { type: 'string' },
      out: { type: 'string' },
      compare: { type: 'string' },
    },
  });
  return values;
}

/** The generator's parts a sweep reads, from `dist` (this build's unless `--generator` names another). */
export interface Generator {
  readonly generator: typeof import('../src/index.js');
  readonly schemas: typeof import('../src/emit/tools/input-schema.js');
  readonly identifiers: typeof import('../src/names/identifiers.js');
}

/** One spec of the list, prepared and planned: its operations, each beside the path item and operation it came from. */
export interface SweptSpec {
  readonly id: string;
  readonly model: ApiModel;
  readonly plan: NamePlan;
  readonly root: Node;
  readonly operations: readonly { readonly op: Operation; readonly pathItem: Node; readonly operation: Node }[];
}

async function loadGenerator(options: SweepOptions): Promise<Generator> {
  const dist = options.generator ? resolve(options.generator) : join(REPO, 'dist');
  const load = (file: string): Promise<unknown> => import(pathToFileURL(join(dist, file)).href);
  return {
    generator: await load('src/index.js') as Generator['generator'],
    schemas: await load('src/emit/tools/input-schema.js') as Generator['schemas'],
    identifiers: await load('src/names/identifiers.js') as Generator['identifiers'],
  };
}

/**
 * Runs `visit` on every spec of the list that the generator prepares; specs it refuses (or that `visit` fails on) are
 * the compile sweep's business. Then writes the records (`--out`) and the report, given the earlier records (`--compare`).
 */
export async function sweep<R>(
  options: SweepOptions,
  visit: (spec: SweptSpec, parts: Generator) => R[],
  report: (records: readonly R[], before: readonly R[] | undefined) => string,
): Promise<void> {
  const parts = await loadGenerator(options);
  const apiDir = ensureCorpus();
  const ids = (await readFile(options.list, 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const records: R[] = [];
  for (const [index, id] of ids.entries()) {
    try {
      const { model, spec } = await parts.generator.prepare(join(apiDir, `${id}.json`));
      const plan = parts.generator.planNames(model);
      const root = spec.root as Node;
      const operations: SweptSpec['operations'][number][] = [];
      for (const op of model.operations) {
        const pathItem = follow(root, (root.paths as Node)[op.path]).node;
        const operation = isNode(pathItem) ? pathItem[op.method] : undefined;
        if (isNode(pathItem) && isNode(operation)) operations.push({ op, pathItem, operation });
      }
      records.push(...visit({ id, model, plan, root, operations }, parts));
    } catch {
      // Specs the generator refuses are the compile sweep's business.
    }
    if (index % 200 === 199) process.stderr.write(`swept ${index + 1}/${ids.length}\n`);
  }
  if (options.out) await writeFile(options.out, `${JSON.stringify(records)}\n`);
  const before = options.compare ? (JSON.parse(await readFile(options.compare, 'utf8')) as R[]) : undefined;
  process.stdout.write(report(records, before));
}
