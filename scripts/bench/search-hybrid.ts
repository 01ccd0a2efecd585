/**
 * 6b. The hybrid search (`--search hybrid`): recall@1/3/10 of the lexical and the hybrid search_operations over every
 * query set, each API generated with `init --mode discovery --search hybrid`, built (which writes the operations'
 * vectors), and every request of the sets put through the built server's own search (its --mcp-search-evaluate flag
 * runs the code search_operations runs). And what it costs: the build's embedding time and the vectors file per API,
 * the model's load time, the request's embedding and the fused search's time; Graph's figures are in
 * search-hybrid-graph.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Area } from './area.js';
import type { BenchContext } from './context.js';
import { firstErrorLine, int, ms, percent, quantile, seconds } from './lib.js';
import { benchHybridGraph } from './search-hybrid-graph.js';
import { searchTimes, type Ranked } from './search-hybrid-times.js';
import { readQuerySets } from './query-sets.js';

const AREA = '6b hybrid search';
/** What the evaluation of one API gave: each request's rankings by its text, and the costs. */
interface Evaluated { ranked: Map<string, Ranked>; operationOf: Map<string, string>; loadMs: number; embedBuildMs: number; operations: number; vectorBytes: number; buildSeconds: number }

export const searchHybrid: Area = {
  name: 'search-hybrid',
  corpus: true,
  peer: false,
  run: (context) => benchHybrid(context),
  method: () =>
    'Hybrid search: each API of the query sets generated with `init --mode discovery --search hybrid` (Graph: its mail and calendar tags, as in the search area), `dotnet build -c Release` (which runs the built server to write McpSearchEmbeddings.bin; the embedding time is the server\'s own count, from the build output), then every request of the sets for that API given to the built server\'s `--mcp-search-evaluate` (the code search_operations runs: the lexical McpSearch and McpSearchFusion, limit 10). recall@k: the share of a set whose intended operation (method and path) is among the first k. Model load: the evaluation run\'s load of the model and vectors (median over the APIs). Query embedding and fused search (lexical and cosine rankings of depth 50 and their fusion, the request\'s vector given): per request, over every request. The Graph figures: `init` of all of microsoft.com/graph in hybrid discovery mode, build (embedding time), start to the first tools/list page, then search_operations round trips over stdio with the SDK client, the first waiting for the model; publish sizes of the Gitea project, framework-dependent without and with a runtime identifier.',
};

async function benchHybrid(context: BenchContext): Promise<void> {
  const { rows, problems, notes } = context.results;
  const sets = await readQuerySets(context.paths.repo);
  const apis = new Map<string, { id: string; tags?: string[]; queries: Set<string> }>();
  for (const { queries: data } of sets) {
    for (const [key, spec] of Object.entries(data.specs)) if (!apis.has(key)) apis.set(key, { ...spec, queries: new Set() });
    for (const q of data.queries) apis.get(q.spec)?.queries.add(q.query);
  }
  const evaluated = new Map<string, Evaluated>();
  for (const [key, api] of apis) {
    try {
      evaluated.set(key, await evaluate(context, key, api));
    } catch (error) {
      problems.push(`hybrid search, ${key}: ${(error as Error).message}`);
    }
  }
  const all = [...evaluated.values()].flatMap((e) => [...e.ranked.values()]);
  for (const set of sets) {
    const counts = { lexical: [0, 0, 0], hybrid: [0, 0, 0], n: 0 };
    for (const q of set.queries.queries) {
      const e = evaluated.get(q.spec);
      const r = e?.ranked.get(q.query);
      if (!e || !r) continue;
      counts.n++;
      for (const kind of ['lexical', 'hybrid'] as const) {
        const rank = (r[kind] ?? []).map((name) => e.operationOf.get(name)).indexOf(q.expect);
        [1, 3, 10].forEach((k, i) => { if (rank >= 0 && rank < k) (counts[kind][i] as number)++; });
      }
    }
    const at = (c: number[]): string => c.map((v) => percent(v, counts.n)).join(' / ');
    rows.push({ area: AREA, what: `recall@1 / @3 / @10, lexical → hybrid, ${set.what}`, spec: `${Object.keys(set.queries.specs).length} APIs`, value: `${at(counts.lexical)} → ${at(counts.hybrid)}`, spread: `${counts.n} queries`, beside: '', goal: '', status: '' });
  }
  for (const [key, e] of evaluated) {
    rows.push({ area: AREA, what: 'build: operations\' vectors (McpSearchEmbeddings.bin, int8)', spec: `${key} (${int(e.operations)} operations)`, value: seconds(e.embedBuildMs / 1000, 1), spread: `build ${seconds(e.buildSeconds, 0)} in all`, beside: `${int(e.vectorBytes)} bytes`, goal: '', status: '' });
  }
  const loads = [...evaluated.values()].map((e) => e.loadMs);
  rows.push({ area: AREA, what: 'model and vectors load (evaluation run)', spec: `${evaluated.size} APIs`, value: `median ${ms(quantile(loads, 0.5), 0)}`, spread: `max ${ms(Math.max(...loads), 0)}`, beside: '', goal: '', status: '' });
  rows.push(...searchTimes(all, `${evaluated.size} APIs of the query sets`));
  // Every request's rankings, for tuning the fusion (never on Jellyfin's): kept with --keep.
  const rankings = join(context.work, 'search-hybrid', 'rankings.json');
  await writeFile(rankings, JSON.stringify(Object.fromEntries([...evaluated].map(([key, e]) => [key, { operationOf: Object.fromEntries(e.operationOf), ranked: [...e.ranked.values()] }]))));
  notes.push(`hybrid search: every request's lexical and cosine rankings are in ${rankings} (kept with --keep).`);
  await benchHybridGraph(context, [...(apis.get('graph')?.queries ?? [])]);
}

/** Generates, builds and evaluates one API. */
async function evaluate(context: BenchContext, key: string, api: { id: string; tags?: string[]; queries: Set<string> }): Promise<Evaluated> {
  const dir = join(context.work, 'search-hybrid', key);
  await mkdir(dir, { recursive: true });
  context.log(`hybrid search: ${api.id}: init and build`);
  const spec = join(context.paths.apiDir, `${api.id}.json`);
  const init = spawnSync(process.execPath, ['--max-old-space-size=8192', context.generator.cli, 'init', '--openapi-url', spec, '--server-name', 'Bench', '--output-dir', dir, '--framework', context.frameworks, '--mode', 'discovery', '--search', 'hybrid', ...(api.tags ? ['--tags', api.tags.join(',')] : [])], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`init: exit ${init.status}: ${firstErrorLine(init.stderr ?? '')}`);
  const started = performance.now();
  const built = spawnSync('dotnet', ['build', dir, '-c', 'Release', '-nologo', '-v:n', '-clp:NoSummary'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const buildSeconds = (performance.now() - started) / 1000;
  if (built.status !== 0) throw new Error(`build: ${firstErrorLine(`${built.stdout ?? ''}${built.stderr ?? ''}`)}`);
  const embedded = /McpSearchEmbeddings\.bin: (\d+) operations in (\d+) ms/.exec(built.stdout ?? '');
  const out = join(dir, 'bin/Release', context.frameworks);
  const index = JSON.parse(await readFile(join(dir, 'McpSearchIndex.g.json'), 'utf8')) as { operations: [string, string, string, string][] };
  const operationOf = new Map(index.operations.map((o) => [o[0], `${o[2]} ${o[3]}`] as const));
  context.log(`hybrid search: ${api.id}: ${api.queries.size} requests`);
  const run = spawnSync('dotnet', [join(out, 'Bench.dll'), '--mcp-search-evaluate'], { input: `${[...api.queries].join('\n')}\n`, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, BENCH_BASE_URL: 'http://127.0.0.1:9/' } });
  if (run.status !== 0) throw new Error(`evaluation: exit ${run.status}: ${firstErrorLine(run.stderr ?? '')}`);
  const [head, ...lines] = (run.stdout ?? '').trim().split('\n').map((l) => JSON.parse(l) as Ranked & { loadMs?: number; hybrid?: unknown });
  if ((head as { hybrid?: boolean } | undefined)?.hybrid !== true) throw new Error(`evaluation: the hybrid search did not load: ${firstErrorLine(run.stderr ?? '')}`);
  return {
    ranked: new Map(lines.map((r) => [r.query, r])), operationOf, loadMs: Number(head?.loadMs), buildSeconds,
    embedBuildMs: Number(embedded?.[2] ?? Number.NaN), operations: index.operations.length, vectorBytes: (await stat(join(out, 'McpSearchEmbeddings.bin'))).size,
  };
}
