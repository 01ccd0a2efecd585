/**
 * Code mode under load: the `init --mode code --transport http` server of the library API (test/fixtures/library.yaml),
 * built in Release and run as `dotnet Library.dll --urls http://127.0.0.1:<port>` in front of the test API.
 * (a) 40 callers at once, each its own MCP client from its own loopback address, each running a 3-call script;
 * (b) 4 scripts spinning in `while (true) {}`, from one caller and then from four, and one quick script from another caller; (c) a 3-call script's
 * latency on a warm pool. Peak interpreter processes and peak RSS (server + interpreters) are sampled from /proc.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectFrom } from '../../test/support/caller-fetch.js';
import { LIBRARY_KEY, LIBRARY_SPEC, startLibraryApi } from '../../test/support/library-api.js';
import { startReplica, type Replica } from '../../test/support/replicas.js';
import type { Area } from './area.js';
import type { BenchContext } from './context.js';
import { commandLine, firstErrorLine, int, mb, median, ms, percentile, processTree, reap, statusKb } from './lib.js';
import { dotnetBuild } from './projects.js';
import { verdict } from './results.js';

const AREA = '11 code mode under load';
const SPEC = 'library.yaml';
const CALLERS = 40;
const SPINNERS = 4;
const WARM_RUNS = 30;
const THREE_CALLS = `const page = await api.list_books({ pageSize: 3 });
const owner = await api.get_owner({ ownerId: page.items[0].ownerId });
const book = await api.get_book({ bookId: page.items[1].id });
return [page.items.length, owner.id, book.id];`;

export const loadScripts: Area = {
  name: 'load-scripts',
  corpus: false,
  peer: false,
  run: (context) => benchLoadScripts(context),
  method: () =>
    `Code mode under load: \`init --mode code --transport http\` of test/fixtures/library.yaml, built in Release, run as \`dotnet Library.dll --urls http://127.0.0.1:<port>\` (default settings) in front of the library test API on 127.0.0.1. Each caller is an SDK Streamable HTTP client from a loopback address of its own (127.0.0.x), connected before the clock starts. Flood: ${CALLERS} callers each send one run_script of a 3-call script (list_books, get_owner, get_book) at once; an answer is right when it is [3, owner, book], refused when it starts "Error: busy", timed out when it names SCRIPT_TIMEOUT_SECONDS. Spin: ${SPINNERS} scripts \`while (true) {}\` from one caller (${SPINNERS} clients from one address), then from ${SPINNERS} callers, and 1 s later another caller runs \`return 6 * 7\`. Warm: ${WARM_RUNS} 3-call scripts one after another from one client. Peak processes and RSS: /proc sampled every 50 ms (the server's process tree, VmRSS summed). ${cpus().length} cores.`,
};

interface Outcome { ms: number; text: string; isError: boolean }

/** The `result` of an answer that is JSON {result, …}, else undefined. */
function resultOf(outcome: Outcome): unknown {
  try {
    return (JSON.parse(outcome.text) as { result?: unknown }).result;
  } catch {
    return undefined;
  }
}

async function runScript(client: Client, code: string): Promise<Outcome> {
  const started = performance.now();
  try {
    const result = await client.callTool({ name: 'run_script', arguments: { code } }, undefined, { timeout: 300_000 }) as { content: { text?: string }[]; isError?: boolean };
    return { ms: performance.now() - started, text: result.content.map((c) => c.text ?? '').join(''), isError: result.isError === true };
  } catch (error) {
    return { ms: performance.now() - started, text: `transport: ${(error as Error).message}`, isError: true };
  }
}

/** Peak interpreter processes and peak summed RSS of the server's process tree, sampled until stopped. */
function sampler(pid: number): { stop(): { processes: number; rssKb: number } } {
  let processes = 0;
  let rssKb = 0;
  const timer = setInterval(() => {
    const tree = processTree(pid);
    processes = Math.max(processes, tree.filter((p) => commandLine(p).includes('--mcp-script-runner')).length);
    rssKb = Math.max(rssKb, tree.reduce((sum, p) => sum + (statusKb(p, 'VmRSS') || 0), 0));
  }, 50);
  return { stop: () => (clearInterval(timer), { processes, rssKb }) };
}

async function connectMany(url: string, count: number, first: number): Promise<Client[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => connectFrom(url, `127.0.0.${first + i}`)));
}

async function benchLoadScripts(context: BenchContext): Promise<void> {
  const { generator, frameworks, log, results, work, paths } = context;
  const fail = (why: string): void => {
    results.problems.push(`code mode under load: ${why.slice(0, 500)}`);
    results.rows.push({ area: AREA, what: 'run_script under load', spec: SPEC, value: 'failed', spread: '', beside: why.slice(0, 200), goal: '', status: 'FAILED' });
  };
  const dir = join(work, 'load-scripts', 'library');
  log('init library.yaml --mode code --transport http project');
  const init = spawnSync(process.execPath, [generator.cli, 'init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Library', '--output-dir', dir, '--mode', 'code', '--transport', 'http', '--framework', frameworks], { cwd: paths.repo, encoding: 'utf8' });
  if (init.status !== 0) return fail(`init exit ${init.status}: ${firstErrorLine(init.stderr ?? '')}`);
  log('dotnet build -c Release library.yaml code-mode project (not timed)');
  const built = dotnetBuild(dir, ['-c', 'Release']);
  const dll = join(dir, 'bin/Release', frameworks, 'Library.dll');
  if (!built.ok || !existsSync(dll)) return fail(`dotnet build -c Release failed: ${built.ok ? 'no dll' : built.error}`);
  const api = await startLibraryApi();
  let server: Replica | undefined;
  try {
    server = await startReplica('scripts', dll, { LIBRARY_BASE_URL: api.url, LIBRARY_API_KEY: LIBRARY_KEY, Logging__LogLevel__Default: 'Warning' });
    const pid = server.process.pid ?? -1;
    const right = (o: Outcome): boolean => !o.isError && /^\[3,\d+,\d+\]$/.test(JSON.stringify(resultOf(o)));
    const warmup = await connectFrom(server.url, '127.0.0.1');
    await runScript(warmup, THREE_CALLS);

    // (a) the flood
    const flood = await connectMany(server.url, CALLERS, 10);
    log(`code mode: ${CALLERS} callers at once`);
    const floodPeak = sampler(pid);
    const outcomes = await Promise.all(flood.map((c) => runScript(c, THREE_CALLS)));
    const peakA = floodPeak.stop();
    await Promise.all(flood.map((c) => c.close().catch(() => {})));
    const answered = outcomes.filter(right).length;
    const refused = outcomes.filter((o) => o.isError && o.text.startsWith('Error: busy')).length;
    const timedOut = outcomes.filter((o) => /SCRIPT_TIMEOUT_SECONDS/.test(o.text)).length;
    const other = outcomes.length - answered - refused - timedOut;
    const times = outcomes.map((o) => o.ms);
    const refusedTimes = outcomes.filter((o) => o.text.startsWith('Error: busy')).map((o) => o.ms);
    const cores = cpus().length;
    const maxProcesses = 2 * cores + 2;
    log(`flood: ${answered} right, ${refused} refused, ${timedOut} timed out, ${other} other; p50 ${percentile(times, 50).toFixed(0)} ms, p99 ${percentile(times, 99).toFixed(0)} ms; peak ${peakA.processes} interpreters, ${mb(peakA.rssKb)}`);
    if (other > 0) results.problems.push(`code mode flood: ${other} answers neither right, refused nor timed out, e.g. ${JSON.stringify(outcomes.find((o) => !right(o) && !o.text.startsWith('Error: busy') && !/SCRIPT_TIMEOUT_SECONDS/.test(o.text))?.text.slice(0, 200))}`);
    const push = (what: string, value: string, beside: string, goal: string, status: '' | 'PASS' | 'MISS'): void =>
      void results.rows.push({ area: AREA, what, spec: SPEC, value, spread: '', beside, goal, status });
    push(`${CALLERS} callers at once, a 3-call script each: answered right / refused / timed out / other`, `${answered} / ${refused} / ${timedOut} / ${other}`, refusedTimes.length > 0 ? `refusals answered within ${ms(Math.max(...refusedTimes), 0)}` : '', '0 timed out, 0 other', verdict(timedOut === 0 && other === 0));
    push(`${CALLERS} callers at once: latency per call`, `p50 ${ms(percentile(times, 50), 0)}, p99 ${ms(percentile(times, 99), 0)}`, '', '', '');
    push(`${CALLERS} callers at once: peak interpreter processes`, int(peakA.processes), `${cores} cores`, `≤ ${maxProcesses}`, verdict(peakA.processes <= maxProcesses));
    push(`${CALLERS} callers at once: peak RSS, server + interpreters`, mb(peakA.rssKb), '', '≤ 1.5 GB', verdict(peakA.rssKb <= 1.5 * 1024 * 1024));

    // (b) spinning scripts, from one caller and from four, and one quick script from another caller a second later
    for (const [who, addresses] of [['one caller', Array(SPINNERS).fill('127.0.0.60')], ['four callers', Array.from({ length: SPINNERS }, (_, i) => `127.0.0.${61 + i}`)]] as const) {
      const spinners = await Promise.all(addresses.map((address: string) => connectFrom(server!.url, address)));
      const quick = await connectFrom(server.url, '127.0.0.70');
      log(`code mode: ${SPINNERS} spinning scripts from ${who} and a quick one`);
      const spinPeak = sampler(pid);
      const spinning = spinners.map((c) => runScript(c, 'while (true) {}'));
      await new Promise((r) => setTimeout(r, 1000));
      const quickOutcome = await runScript(quick, 'return 6 * 7;');
      const spun = await Promise.all(spinning);
      const peakB = spinPeak.stop();
      await Promise.all([...spinners, quick].map((c) => c.close().catch(() => {})));
      const quickRight = !quickOutcome.isError && resultOf(quickOutcome) === 42;
      const ended = [...new Set(spun.map((o) => o.text.replace(/\d+(\.\d+)? s/, 'N s').slice(0, 90)))].map((text) => `${spun.filter((o) => o.text.replace(/\d+(\.\d+)? s/, 'N s').startsWith(text)).length} × ${text}`);
      log(`quick script while ${SPINNERS} spin (${who}): ${quickOutcome.ms.toFixed(0)} ms (${quickRight ? 'right' : quickOutcome.text.slice(0, 120)}); peak ${peakB.processes} interpreters, ${mb(peakB.rssKb)}`);
      push(`quick script from another caller while ${SPINNERS} scripts from ${who} spin`, ms(quickOutcome.ms, 0), `${quickRight ? 'right' : `wrong: ${quickOutcome.text.slice(0, 80)}`}; spinners ended: ${ended.join(' | ')}; peak ${peakB.processes} interpreters, ${mb(peakB.rssKb)}`, `≤ 1 s, ≤ ${maxProcesses} interpreters`, verdict(quickRight && quickOutcome.ms <= 1000 && peakB.processes <= maxProcesses));
    }

    // (c) a warm pool
    const warm: number[] = [];
    for (let i = 0; i < WARM_RUNS; i++) {
      const outcome = await runScript(warmup, THREE_CALLS);
      if (right(outcome)) warm.push(outcome.ms);
    }
    await warmup.close().catch(() => {});
    log(`warm 3-call script: p50 ${median(warm).toFixed(1)} ms`);
    push(`3-call script on a warm pool (${WARM_RUNS} one at a time)`, `p50 ${ms(median(warm), 1)}, p99 ${ms(percentile(warm, 99), 1)}`, `${warm.length} of ${WARM_RUNS} right`, 'p50 ≤ 100 ms', verdict(warm.length === WARM_RUNS && median(warm) <= 100));
  } catch (error) {
    fail((error as Error).message);
  } finally {
    if (server) {
      const tree = processTree(server.process.pid ?? -1);
      server.process.kill('SIGTERM');
      await reap(tree);
    }
    await api.close();
  }
}
