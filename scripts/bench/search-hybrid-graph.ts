/**
 * 6b. The hybrid search's cost at scale: all of Microsoft Graph (11,422 operations) in hybrid discovery mode (the
 * build's embedding time, the vectors file, start to the first tools/list page, the first search, which waits for the
 * model, and search_operations round trips over stdio), and the published size of a hybrid server.
 */
import { spawnSync } from 'node:child_process';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchContext } from './context.js';
import { specOf } from './context.js';
import { firstErrorLine, int, ms, quantile, seconds } from './lib.js';
import { verdict } from './results.js';
import { startServer, stopServer } from './servers.js';
import { searchTimes, type Ranked } from './search-hybrid-times.js';

const AREA = '6b hybrid search';
const SEARCHES = 200;

export async function benchHybridGraph(context: BenchContext, queries: readonly string[]): Promise<void> {
  const { rows, problems } = context.results;
  const dir = join(context.work, 'search-hybrid', 'graph-all');
  context.log('hybrid search: all of Graph: init and build');
  const init = spawnSync(process.execPath, ['--max-old-space-size=8192', context.generator.cli, 'init', '--openapi-url', specOf(context, 'graph').path, '--server-name', 'Bench', '--output-dir', dir, '--framework', context.frameworks, '--mode', 'discovery', '--search', 'hybrid'], { encoding: 'utf8' });
  if (init.status !== 0) return void problems.push(`hybrid Graph init: exit ${init.status}: ${firstErrorLine(init.stderr ?? '')}`);
  const started = performance.now();
  const built = spawnSync('dotnet', ['build', dir, '-c', 'Release', '-nologo', '-v:n', '-clp:NoSummary'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const buildSeconds = (performance.now() - started) / 1000;
  if (built.status !== 0) return void problems.push(`hybrid Graph build: ${firstErrorLine(`${built.stdout ?? ''}${built.stderr ?? ''}`)}`);
  const embedded = /McpSearchEmbeddings\.bin: (\d+) operations in (\d+) ms/.exec(built.stdout ?? '');
  const out = join(dir, 'bin/Release', context.frameworks);
  const vectorBytes = (await stat(join(out, 'McpSearchEmbeddings.bin'))).size;
  rows.push({ area: AREA, what: 'build: operations\' vectors (McpSearchEmbeddings.bin, int8)', spec: `MS Graph (${int(Number(embedded?.[1]))} operations)`, value: seconds(Number(embedded?.[2]) / 1000, 0), spread: `build ${seconds(buildSeconds, 0)} in all`, beside: `${int(vectorBytes)} bytes`, goal: '', status: '' });
  try {
    const server = await startServer('dotnet', [join(out, 'Bench.dll')], dir, { BENCH_BASE_URL: 'http://127.0.0.1:9/', Logging__LogLevel__Default: 'Warning' });
    rows.push({ area: AREA, what: 'start → first tools/list page, hybrid discovery mode', spec: 'MS Graph', value: seconds(server.seconds), spread: '1 run', beside: '', goal: '≤ 2 s', status: verdict(server.seconds <= 2) });
    const times: number[] = [];
    for (let i = 0; i < SEARCHES; i++) {
      const t0 = performance.now();
      await server.client.callTool({ name: 'search_operations', arguments: { query: queries[i % Math.max(1, queries.length)] ?? 'list messages' } });
      times.push(performance.now() - t0);
    }
    const [first, ...rest] = times;
    rows.push({ area: AREA, what: `search_operations round trip, hybrid, ${SEARCHES} calls (the first waits for the model)`, spec: 'MS Graph', value: `p50 ${ms(quantile(rest, 0.5))}, p99 ${ms(quantile(rest, 0.99))}`, spread: `first ${ms(first ?? Number.NaN, 0)}`, beside: 'the request\'s embedding included', goal: '', status: '' });
    await stopServer(server, context.results);
  } catch (error) {
    problems.push(`hybrid Graph server: ${(error as Error).message}`);
  }
  evaluateGraph(context, join(out, 'Bench.dll'), queries, Number(embedded?.[1]));
  await rm(join(dir, 'obj'), { recursive: true, force: true });
  await publishSizes(context, join(context.work, 'search-hybrid', 'gitea'));
}

/** The published size of a hybrid server: framework-dependent, for every platform ONNX Runtime has and for linux-x64 only. */
async function publishSizes(context: BenchContext, dir: string): Promise<void> {
  const { rows, problems } = context.results;
  for (const [what, args] of [['every platform', []], ['linux-x64 only (-r linux-x64 --self-contained false)', ['-r', 'linux-x64', '--self-contained', 'false']]] as const) {
    const into = join(dir, `publish-${args.length === 0 ? 'any' : 'linux-x64'}`);
    context.log(`hybrid search: publish, ${what}`);
    const published = spawnSync('dotnet', ['publish', dir, '-c', 'Release', '-nologo', '-v:q', '-o', into, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (published.status !== 0) {
      problems.push(`hybrid publish (${what}): ${firstErrorLine(`${published.stdout ?? ''}${published.stderr ?? ''}`)}`);
      continue;
    }
    const bytes = await size(into);
    const vectors = await stat(join(into, 'McpSearchEmbeddings.bin')).then(() => 'with McpSearchEmbeddings.bin', () => 'WITHOUT McpSearchEmbeddings.bin');
    rows.push({ area: AREA, what: `dotnet publish, hybrid server, ${what}`, spec: 'Gitea', value: `${(bytes / 1024 / 1024).toFixed(0)} MB`, spread: '', beside: vectors, goal: '', status: '' });
  }
}

async function size(path: string): Promise<number> {
  const entries = await readdir(path, { withFileTypes: true, recursive: true });
  let total = 0;
  for (const entry of entries) if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  return total;
}

/** Every Graph request of the sets, twice, through the search of all of Graph (its evaluation run): the search's times at its size. */
function evaluateGraph(context: BenchContext, dll: string, queries: readonly string[], operations: number): void {
  const { rows, problems } = context.results;
  const run = spawnSync('dotnet', [dll, '--mcp-search-evaluate'], { input: `${[...queries, ...queries].join('\n')}\n`, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, BENCH_BASE_URL: 'http://127.0.0.1:9/' } });
  if (run.status !== 0) return void problems.push(`hybrid Graph evaluation: exit ${run.status}: ${firstErrorLine(run.stderr ?? '')}`);
  const [, ...ranked] = (run.stdout ?? '').trim().split('\n').map((l) => JSON.parse(l) as Ranked);
  rows.push(...searchTimes(ranked, `MS Graph, all ${int(operations)} operations`));
}
