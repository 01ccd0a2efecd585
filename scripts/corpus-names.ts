/**
 * `npm run corpus -- --names [--list FILE] [--add ID…] [--examples N] [--json FILE]`
 *
 * The naming sweep: plans the tool names of every spec of the list (and of the `--add` ids, such as
 * microsoft.com/graph-beta) without generating code, and prints how many names carry a counter whose
 * digits are not in the path, a fragment (a word that is no word of the operation), or more than 48 and
 * 64 characters, for the whole list, for each added spec and for the largest APIs.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO } from '../test/support/golden.js';
import { nameNoise, type NameNoise } from '../test/support/name-noise.js';
import { ensureCorpus } from './corpus-install.js';
import { prepare } from '../src/index.js';

export async function namesSweep(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--names'),
    options: {
      list: { type: 'string', default: join(REPO, '../shared/corpus/dev-specs.txt') },
      add: { type: 'string', multiple: true, default: [] },
      examples: { type: 'string', default: '10' },
      json: { type: 'string' },
    },
  });
  const apiDir = ensureCorpus();
  const listed = (await readFile(values.list, 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const ids = [...listed, ...values.add.filter((id) => !listed.includes(id))];
  const results = new Map<string, NameNoise>();
  const started = performance.now();
  for (const [index, id] of ids.entries()) {
    try {
      results.set(id, nameNoise(await prepare(join(apiDir, `${id}.json`))));
    } catch {
      // Specs the generator refuses are the compile sweep's business.
    }
    if (index % 200 === 199) process.stderr.write(`planned ${index + 1}/${ids.length}\n`);
  }
  const seconds = (performance.now() - started) / 1000;

  const examples = Number(values.examples);
  const rows: string[] = ['| specs | tools | counter | fragment | > 48 | > 64 |', '|---|---:|---:|---:|---:|---:|'];
  const row = (label: string, ns: readonly NameNoise[]): string => {
    const sum = (pick: (n: NameNoise) => readonly string[]): number => ns.reduce((s, n) => s + pick(n).length, 0);
    const tools = ns.reduce((s, n) => s + n.tools, 0);
    const cell = (count: number): string => `${count} (${((100 * count) / Math.max(tools, 1)).toFixed(2)}%)`;
    return `| ${label} | ${tools} | ${cell(sum((n) => n.counters))} | ${cell(sum((n) => n.fragments))} | ${cell(sum((n) => n.over48))} | ${sum((n) => n.over64)} |`;
  };
  const listedResults = listed.flatMap((id) => results.get(id) ?? []);
  rows.push(row(`list (${listedResults.length} specs)`, listedResults));
  for (const id of values.add) rows.push(row(id, results.has(id) ? [results.get(id) as NameNoise] : []));
  if (values.add.length > 0) rows.push(row('list and added', [...results.values()]));
  const largest = [...results.entries()].sort((a, b) => b[1].tools - a[1].tools).slice(0, 8);
  for (const [id, noise] of largest) rows.push(row(`${id} (largest)`, [noise]));
  process.stdout.write(`${rows.join('\n')}\n\nplanned ${results.size} of ${ids.length} specs in ${seconds.toFixed(0)} s\n`);
  for (const kind of ['counters', 'fragments', 'over64'] as const) {
    const found = [...results.entries()].flatMap(([id, n]) => n[kind].map((name) => `${id}: ${name}`));
    if (found.length > 0) process.stdout.write(`\n${kind} (${found.length}):\n${found.slice(0, examples).map((f) => `  ${f}`).join('\n')}\n`);
  }
  if (values.json) await writeFile(values.json, JSON.stringify(Object.fromEntries(results), null, 1));
}
