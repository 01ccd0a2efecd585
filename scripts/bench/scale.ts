/**
 * 7. Graph scale: Microsoft Graph (11,422 operations) generated in both modes: `init` time, `dotnet build`
 * time and peak memory, start to the first tools/list page, RSS after start, and in discovery mode the
 * round trip of 1,000 search_operations calls over stdio.
 */
import { spawnSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Area } from './area.js';
import { specOf, type BenchContext } from './context.js';
import { firstErrorLine, mb, ms, quantile, seconds } from './lib.js';
import { verdict } from './results.js';
import { startServer, stopServer } from './servers.js';

const GOALS = { buildSeconds: 90, discoveryStartSeconds: 2, searchP99Ms: 10 } as const;
const AREA = '7 Graph scale';
const SEARCHES = 1000;

export const scale: Area = {
  name: 'scale',
  corpus: true,
  peer: false,
  gnuTime: true,
  run: (context) => benchScale(context),
  method: () =>
    'Graph scale: `init` of microsoft.com/graph in each mode (one run: wall time of the process); `dotnet restore` (not timed) then `dotnet build --no-restore -c Release -p:UseSharedCompilation=false` timed, its peak memory the largest process\'s maximum RSS (GNU time, so the compiler runs in the build\'s own process tree); start is spawn of `dotnet Bench.dll` to the first tools/list page; RSS of the server after listing every page; search time is the round trip of one search_operations call over stdio with the SDK client (so it includes JSON-RPC and the pipe), 1,000 calls one after the other, queries taken in turn from the query set\'s Graph requests.',
};

async function benchScale(context: BenchContext): Promise<void> {
  const { rows, problems } = context.results;
  const spec = specOf(context, 'graph');
  const queries = (JSON.parse(await readFile(join(context.paths.repo, 'test/fixtures/search-queries.json'), 'utf8')) as { queries: { spec: string; query: string }[] }).queries
    .filter((q) => q.spec === 'graph').map((q) => q.query);
  for (const mode of ['operations', 'discovery'] as const) {
    const dir = join(context.work, 'scale', mode);
    context.log(`Graph ${mode} mode: init`);
    const started = performance.now();
    const init = spawnSync(process.execPath, ['--max-old-space-size=8192', context.generator.cli, 'init', '--openapi-url', spec.path, '--server-name', 'Bench', '--output-dir', dir, '--framework', context.frameworks, '--mode', mode], { encoding: 'utf8' });
    const initSeconds = (performance.now() - started) / 1000;
    if (init.status !== 0) {
      problems.push(`Graph ${mode} init: exit ${init.status}: ${firstErrorLine(init.stderr ?? '')}`);
      continue;
    }
    rows.push({ area: AREA, what: `init, ${mode} mode`, spec: 'MS Graph', value: seconds(initSeconds), spread: '1 run', beside: '', goal: '', status: '' });
    spawnSync('dotnet', ['restore', dir, '-v:q'], { encoding: 'utf8' });
    context.log(`Graph ${mode} mode: dotnet build -c Release`);
    const built = spawnSync('/usr/bin/time', ['-f', '%e %M', 'dotnet', 'build', dir, '--no-restore', '-c', 'Release', '-nologo', '-v:q', '-clp:NoSummary', '-p:UseSharedCompilation=false'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const [elapsed, peakKb] = (/(\d+(?:\.\d+)?) (\d+)\s*$/.exec(built.stderr ?? '') ?? []).slice(1).map(Number);
    if (built.status !== 0 || elapsed === undefined || peakKb === undefined) {
      problems.push(`Graph ${mode} build failed: ${firstErrorLine(`${built.stdout ?? ''}${built.stderr ?? ''}`)}`);
      continue;
    }
    rows.push({ area: AREA, what: `dotnet build -c Release, ${mode} mode (peak memory)`, spec: 'MS Graph', value: seconds(elapsed, 0), spread: '1 run', beside: `peak ${mb(peakKb)}`, goal: `≤ ${GOALS.buildSeconds} s`, status: verdict(elapsed <= GOALS.buildSeconds) });
    context.log(`Graph ${mode} mode: start`);
    const dll = join(dir, 'bin/Release', context.frameworks, 'Bench.dll');
    try {
      const server = await startServer('dotnet', [dll], dir, { BENCH_BASE_URL: 'http://127.0.0.1:9/', Logging__LogLevel__Default: 'Warning' });
      const discovery = mode === 'discovery';
      rows.push({
        area: AREA, what: `start → first tools/list page, ${mode} mode (RSS after listing all ${server.tools.length} tools)`, spec: 'MS Graph', value: seconds(server.seconds), spread: '1 run',
        beside: `RSS ${mb(server.serverRssKb)}`, goal: discovery ? `≤ ${GOALS.discoveryStartSeconds} s` : '', status: discovery ? verdict(server.seconds <= GOALS.discoveryStartSeconds) : '',
      });
      if (discovery) {
        const times: number[] = [];
        for (let i = 0; i < SEARCHES; i++) {
          const t0 = performance.now();
          await server.client.callTool({ name: 'search_operations', arguments: { query: queries[i % queries.length] ?? 'list messages' } });
          times.push(performance.now() - t0);
        }
        const p99 = quantile(times, 0.99);
        rows.push({ area: AREA, what: `search_operations round trip, ${SEARCHES} calls (the first loads the index)`, spec: 'MS Graph', value: `p50 ${ms(quantile(times, 0.5))}, p99 ${ms(p99)}`, spread: `first ${ms(times[0] ?? Number.NaN)}`, beside: '', goal: `p99 ≤ ${GOALS.searchP99Ms} ms`, status: verdict(p99 <= GOALS.searchP99Ms) });
      }
      await stopServer(server, context.results);
    } catch (error) {
      problems.push(`Graph ${mode} server: ${(error as Error).message}`);
    }
    await rm(join(dir, 'obj'), { recursive: true, force: true });
  }
}
