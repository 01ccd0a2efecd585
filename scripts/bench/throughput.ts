/**
 * Serving speed of one replica, beside the API alone and the peer, in one run: wrk (a native load generator) sends
 * `GET /books/1` to the library API alone, and `tools/call get_book` to our HTTP server of the same API (Release,
 * stateless, the product's defaults but the rate limit, off since one load generator is one caller), and the same call
 * to the Streamable HTTP server openapi-mcp-generator writes for it; at 100 and at 1,000 connections, interleaved,
 * rounds rotating the order. Our calls/s as a share of the API's, our p99 beside the API's, ours beside the peer's.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../../test/support/replicas.js';
import { LIBRARY_KEY, LIBRARY_SPEC } from '../../test/support/library-api.js';
import type { Area, Prerequisites } from './area.js';
import type { BenchContext } from './context.js';
import { firstErrorLine, int, median, ms, range, rotate } from './lib.js';
import { buildFloor, cpuMs, startFloor, type Floor, type FloorName } from './floors.js';
import { buildPeerServer, startPeerServer, type PeerServer } from './peer-server.js';
import { dotnetBuild } from './projects.js';
import { verdict } from './results.js';
import { runWrk, wrkBinary, writePostScript, type WrkRun } from './wrk.js';

const AREA = '8c Serving speed';
const SPEC = 'library.yaml';
const CONNECTIONS = [100, 1000] as const;
const RUN_SECONDS = 5;
/** Before the rounds: long enough for tiered compilation to reach the code a call runs. */
const WARM_SECONDS = { ours: 25, peer: 10, api: 5, proxy: 10, sdk: 15 };
const FLOOR_NAMES: readonly FloorName[] = ['proxy', 'sdk'];

type Target = 'api' | 'ours' | 'peer' | FloorName;

/** A wrk run with the CPU time the serving process spent per answered request. */
type Measured = WrkRun & { readonly cpuUsPerCall: number };

export const throughput: Area = {
  name: 'throughput',
  corpus: false,
  peer: true,
  run: (context, prerequisites) => benchThroughput(context, prerequisites),
  method: ({ options }) =>
    `Serving speed: \`init --transport http\` of test/fixtures/library.yaml built in Release, one replica (\`dotnet Library.dll\`, logging to a file, the product's defaults but LIBRARY_RATE_LIMIT_PER_MINUTE=0), in front of the library test API (a Node http server on 127.0.0.1, answering at once); the peer's server of the same spec (openapi-mcp-generator ${'4.0.1'} \`-t streamable-http\`, its SDK held at 1.24.3, one session); two floors built from scripts/bench/floors, Release, in front of the same API: a bare ASP.NET Core endpoint that parses the JSON-RPC request, makes the API request through IHttpClientFactory and writes one SSE event (Proxy.cs), and the official SDK's stateless Streamable HTTP server with one bare tool making that request (SdkTool.cs, ModelContextProtocol.AspNetCore at the version we generate). CPU a call: the serving process's user + system time over a run (/proc/PID/stat) divided by the requests wrk counted. wrk 4.1 (Debian), two threads, ${RUN_SECONDS} s per run, --timeout 10 s: \`GET /books/1\` to the API alone, \`tools/call get_book\` (getBook) to the servers, each request a JSON-RPC id of its own; warm-up runs first (${WARM_SECONDS.ours} s ours, ${WARM_SECONDS.peer} s the peer's, ${WARM_SECONDS.api} s the API's, ${WARM_SECONDS.proxy} and ${WARM_SECONDS.sdk} s the floors'), then ${options.runs} rounds of every target at 100 and 1,000 connections, the order rotated each round; medians of the rounds. Errors: answers not 2xx and socket errors (wrk), and our calls the audit log does not mark ok. Load generator, servers and API share the machine's cores.`,
};

interface Running {
  readonly api: { url: string; process: ChildProcess };
  readonly ours: { url: string; process: ChildProcess; log: string };
  readonly peer?: PeerServer;
  readonly floors: Floor[];
}

async function benchThroughput(context: BenchContext, prerequisites: Prerequisites): Promise<void> {
  const { log, options, results, work } = context;
  const fail = (message: string): void => {
    results.problems.push(`Serving speed: ${message.slice(0, 500)}`);
    results.rows.push({ area: AREA, what: 'tools/call get_book, one replica', spec: SPEC, value: 'failed', spread: '', beside: message.slice(0, 200), goal: '', status: 'FAILED' });
  };
  const dir = join(work, 'throughput');
  mkdirSync(dir, { recursive: true });
  let running: Running | undefined;
  try {
    wrkBinary();
    const dll = buildOurs(context, join(dir, 'library'));
    const floorDlls = FLOOR_NAMES.map((name) => {
      log(`serving speed: dotnet build -c Release of the ${name} floor (not timed)`);
      return [name, buildFloor(context, name, join(dir, `floor-${name}`))] as const;
    });
    const peerPort = await freePort();
    const peerProblem = prerequisites.peer ? buildPeerServer(context, LIBRARY_SPEC, join(dir, 'peer'), peerPort) : 'the peer generator is not installed';
    if (peerProblem) results.problems.push(`Serving speed: ${peerProblem}; the peer is left out`);
    running = await start(dir, dll, peerProblem === null ? peerPort : undefined);
    for (const [name, floorDll] of floorDlls) running.floors.push(await startFloor(name, floorDll, { url: running.api.url, key: LIBRARY_KEY }));
    await checkAnswers(running);
    const scripts = {
      ours: writePostScript(join(dir, 'ours.lua'), { method: 'tools/call', params: { name: 'get_book', arguments: { bookId: 1 } } }, {}),
      peer: running.peer ? writePostScript(join(dir, 'peer.lua'), { method: 'tools/call', params: { name: running.peer.tool, arguments: { bookId: 1 } } }, { 'Mcp-Session-Id': running.peer.sessionId }) : '',
    };
    const targets: Target[] = ['api', ...FLOOR_NAMES, 'ours', ...(running.peer ? ['peer' as const] : [])];
    const served = (target: Target): { url: string; process: ChildProcess } => {
      const r = running!;
      return target === 'api' ? r.api : target === 'ours' ? r.ours : target === 'peer' ? r.peer! : r.floors.find((f) => f.name === target)!;
    };
    const once = async (target: Target, connections: number, seconds: number): Promise<Measured> => {
      const { url, process: child } = served(target);
      const cpuBefore = cpuMs(child.pid);
      const run = target === 'api'
        ? await runWrk(`${url}/books/1`, connections, seconds, { headers: { 'X-Api-Key': LIBRARY_KEY } })
        : await runWrk(`${url}/mcp`, connections, seconds, { script: target === 'peer' ? scripts.peer : scripts.ours });
      return { ...run, cpuUsPerCall: ((cpuMs(child.pid) - cpuBefore) * 1000) / run.requests };
    };
    for (const target of targets) {
      log(`serving speed: warming ${target} up (${WARM_SECONDS[target]} s)`);
      await once(target, 100, WARM_SECONDS[target]);
    }
    const runs = new Map<string, Measured[]>();
    for (let round = 0; round < options.runs; round++) {
      for (const connections of CONNECTIONS) {
        for (const target of rotate(targets, round)) {
          const run = await once(target, connections, RUN_SECONDS);
          runs.set(`${target} ${connections}`, [...(runs.get(`${target} ${connections}`) ?? []), run]);
          log(`serving speed, round ${round + 1}, ${connections} connections, ${target}: ${int(run.requestsPerSecond)}/s, p99 ${ms(run.p99Ms, 1)}, ${run.errors} errors, ${int(run.cpuUsPerCall)} µs CPU a call`);
        }
      }
    }
    report(context, runs, running);
  } catch (error) {
    fail((error as Error).message);
  } finally {
    for (const child of [running?.api.process, running?.ours.process, running?.peer?.process, ...(running?.floors ?? []).map((f) => f.process)]) child?.kill('SIGKILL');
  }
}

/** `init --transport http` of the library spec and its Release build: the dll. */
function buildOurs({ generator, frameworks, log, paths }: BenchContext, dir: string): string {
  log('serving speed: init and dotnet build -c Release of the library HTTP project (not timed)');
  const init = spawnSync(process.execPath, [generator.cli, 'init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Library', '--output-dir', dir, '--transport', 'http', '--framework', frameworks], { cwd: paths.repo, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`init exit ${init.status}: ${firstErrorLine(init.stderr ?? '')}`);
  const built = dotnetBuild(dir, ['-c', 'Release']);
  if (!built.ok) throw new Error(`dotnet build -c Release failed: ${built.error}`);
  const dll = join(dir, 'bin/Release', frameworks, 'Library.dll');
  if (!existsSync(dll)) throw new Error(`no ${dll} after the build`);
  return dll;
}

async function start(dir: string, dll: string, peerPort: number | undefined): Promise<Running> {
  const apiModule = new URL('../../test/support/library-api.js', import.meta.url).href;
  // The API in a process of its own, forgetting the requests it records (it keeps them for the tests).
  const api = spawn(process.execPath, ['--input-type=module', '-e', `const { startLibraryApi } = await import(${JSON.stringify(apiModule)}); const api = await startLibraryApi(); console.log(api.url); setInterval(() => { api.requests.length = 0; api.keys.length = 0; }, 500);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [apiUrl] = (await once(createInterface({ input: api.stdout! }), 'line')) as [string];
  const port = await freePort();
  const log = join(dir, 'server.log');
  const ours = spawn('sh', ['-c', 'exec dotnet "$0" --urls "$1" > "$2" 2>&1', dll, `http://127.0.0.1:${port}`, log], {
    env: { ...process.env, LIBRARY_BASE_URL: apiUrl, LIBRARY_API_KEY: LIBRARY_KEY, LIBRARY_RATE_LIMIT_PER_MINUTE: '0' }, stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
    if (ours.exitCode !== null || Date.now() > deadline) throw new Error(`our server did not start: ${readFileSync(log, 'utf8').slice(-500)}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
  }
  const peer = peerPort === undefined ? undefined : await startPeerServer(join(dir, 'peer'), peerPort, { API_BASE_URL: apiUrl, API_KEY_APIKEY: LIBRARY_KEY }, 'getBook');
  return { api: { url: apiUrl, process: api }, ours: { url, process: ours, log }, ...(peer && { peer }), floors: [] };
}

/** One call to each, before the load: each answers with book 1. */
async function checkAnswers(running: Running): Promise<void> {
  const call = async (url: string, tool: string, headers: Record<string, string> = {}): Promise<string> => (await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: { bookId: 1 } } }),
  })).text();
  const ours = await call(running.ours.url, 'get_book');
  if (!ours.includes('Book 1')) throw new Error(`our server's answer is not book 1: ${ours.slice(0, 300)}`);
  if (running.peer) {
    const peer = await call(running.peer.url, running.peer.tool, { 'Mcp-Session-Id': running.peer.sessionId });
    if (!peer.includes('Book 1')) throw new Error(`the peer's answer is not book 1: ${peer.slice(0, 300)}`);
  }
  for (const floor of running.floors) {
    const answer = await call(floor.url, 'get_book');
    if (!answer.includes('Book 1')) throw new Error(`the ${floor.name} floor's answer is not book 1: ${answer.slice(0, 300)}`);
  }
}

/** What each floor is, for its row. */
const FLOOR_ROWS: Record<FloorName, string> = {
  proxy: 'floor: a bare ASP.NET Core endpoint making the one API request (no MCP SDK)',
  sdk: 'floor: the MCP SDK\'s stateless server, one bare tool making the same request',
};

function report({ results }: BenchContext, runs: Map<string, Measured[]>, running: Running): void {
  const of = (target: Target, connections: number): Measured[] => runs.get(`${target} ${connections}`) ?? [];
  const rate = (list: Measured[]): number => median(list.map((r) => r.requestsPerSecond));
  const p99 = (list: Measured[]): number => median(list.map((r) => r.p99Ms));
  const cpu = (list: Measured[]): string => `${int(median(list.map((r) => r.cpuUsPerCall)))} µs CPU a call`;
  const latency = (list: Measured[]): string => `p50 ${ms(median(list.map((r) => r.p50Ms)), 1)}, p99 ${ms(p99(list), 1)}`;
  const push = (what: string, value: string, spread: string, beside: string, goal = '', status: '' | 'PASS' | 'MISS' = ''): void =>
    void results.rows.push({ area: AREA, what, spec: SPEC, value, spread, beside, goal, status });
  for (const connections of CONNECTIONS) {
    const [api, ours, peer] = [of('api', connections), of('ours', connections), of('peer', connections)];
    const share = (list: Measured[]): string => `${((rate(list) / rate(api)) * 100).toFixed(0)}% of the API's`;
    push(`calls/s of one replica, ${int(connections)} connections`, `${int(rate(ours))} calls/s`, range(ours.map((r) => r.requestsPerSecond), int),
      `API alone ${int(rate(api))} requests/s (${range(api.map((r) => r.requestsPerSecond), int)}), ${cpu(api)}; ours ${share(ours)}, ${cpu(ours)}`, '≥ 50% of the API\'s', verdict(rate(ours) / rate(api) >= 0.5));
    for (const name of FLOOR_NAMES) {
      const floor = of(name, connections);
      if (floor.length > 0) push(`${FLOOR_ROWS[name]}, ${int(connections)} connections`, `${int(rate(floor))} calls/s`, range(floor.map((r) => r.requestsPerSecond), int), `${share(floor)}; ${cpu(floor)}; ${latency(floor)}`);
    }
    push(`latency, ${int(connections)} connections`, latency(ours), '', `API alone ${latency(api)}${peer.length > 0 ? `; the peer ${latency(peer)}` : ''}`,
      connections === 1000 ? 'p99 ≤ 2× the API\'s' : '', connections === 1000 ? verdict(p99(ours) <= 2 * p99(api)) : '');
    if (peer.length > 0) {
      const times = rate(ours) / rate(peer);
      push(`beside the peer, ${int(connections)} connections`, `${times.toFixed(1)}×`, '', `the peer's server ${int(rate(peer))} calls/s (${range(peer.map((r) => r.requestsPerSecond), int)}), ${cpu(peer)}`, '≥ 3×', verdict(times >= 3));
    }
  }
  const wrkErrors = [...runs.entries()].filter(([key]) => /^(ours|peer|api) /.test(key)).flatMap(([, list]) => list).reduce((sum, r) => sum + r.errors, 0);
  const audit = readFileSync(running.ours.log, 'utf8');
  // A call whose client went away (wrk closes its connections at the end of a run) is "failed" in the audit log: no
  // client saw it fail. An answer flagged isError is "error": those count.
  const lines = audit.split('\n');
  const errors = lines.filter((line) => line.includes('"outcome":"error"'));
  const cut = lines.filter((line) => line.includes('"outcome":"failed"')).length;
  if (errors.length > 0) results.problems.push(`Serving speed: ${errors.length} of our calls answered with an error, e.g. ${errors[0]?.trim().slice(0, 300)}`);
  push('errors (all runs)', `${int(wrkErrors + errors.length)}`, '', `${int(wrkErrors)} from wrk (not 2xx, socket errors), ${int(errors.length)} of our answers an error (audit log); ${int(cut)} calls cut when wrk closed its connections at the end of a run`, '0', verdict(wrkErrors + errors.length === 0));
}
