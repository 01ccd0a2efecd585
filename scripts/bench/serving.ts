/**
 * 12. Spec to serving: what a user waits for between an OpenAPI document and a serving MCP server, for
 * the petstore example, GitHub and Microsoft Graph, in Debug (what `dotnet run --project` in mcp.json
 * builds) and in Release: `init` into a fresh folder, `dotnet build` of that project from clean (its
 * restore included) with the build's peak memory, the start to the first tools/list answer, and the
 * three together; and the size of the generated C#.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Area } from './area.js';
import { specOf, type BenchContext, type Spec } from './context.js';
import { firstErrorLine, mb, rotate, timeNode } from './lib.js';
import { dotnetBuild } from './projects.js';
import { editLoop, type EditLoop } from './edit-loop.js';
import { asOneProject } from './one-project.js';
import { startServer, stopServer } from './servers.js';
import { CONFIGS, SPECS, report, type Config, type Pipeline, type Sizes, type Step } from './serving-report.js';

/** What one run (init, build, start into a fresh folder) gave; it stops at the first step that fails. */
interface Run {
  init?: { seconds: number; peakKb: number };
  sizes?: Sizes;
  build?: { seconds: number; peakKb: number };
  start?: { seconds: number; rssKb: number; tools: number };
  edits?: EditLoop;
  oneProject?: { build: number; edits: EditLoop };
  failure?: { step: Step; reason: string };
}

export const serving: Area = {
  name: 'serving',
  corpus: true,
  peer: false,
  gnuTime: true,
  run: (context, { gnuTime }) => benchServing(context, gnuTime),
  method: ({ options, frameworks }) =>
    `Spec to serving: one run of a spec in a configuration is \`init\` (server name Bench, --framework ${frameworks}) into a new folder, a fresh \`node\` process timed as in generation (wall time, peak RSS); then ` +
    '`dotnet build` (Debug) or `dotnet build -c Release` of that folder from clean, restore included (a fresh project has no obj/; the NuGet packages are already in the global cache after the warm-up, so nothing is downloaded), ' +
    'with `-p:UseSharedCompilation=false` so that the compiler runs in the build\'s own process tree, cold as on a first build, rather than in a shared VBCSCompiler; its peak memory is GNU time\'s %M over that tree (ru_maxrss of the largest single process the build waited for: in practice the compiler); ' +
    'in Debug, then the edit loop (scripts/bench/edit-loop.ts), each build the plain `dotnet build` of a developer\'s machine (the shared compiler server and MSBuild\'s worker nodes on, which this machine\'s environment turns off elsewhere): from clean again with the build servers shut down first (bin/ and obj/ of both projects removed, restore included), one unmeasured edit build that warms the servers, then after a one-line edit of Program.cs, after a small file of the user\'s own is added, and with nothing changed; whether the generated project\'s assembly kept its write time through the edits\' builds; ' +
    'in Debug also the yardstick: the same project as one project, the layout of the generator\'s earlier versions (scripts/bench/one-project.ts: a copy, bin/ and obj/ left out, whose host project takes the generated project\'s packages and embedded files and compiles every file itself; only the regeneration target is left out), built from clean as the project was and put through the same edit loop, before the project in every other round and after it otherwise; a row "two projects against one" is the ratio of the medians; ' +
    'then the start, from spawn to the first tools/list answer through the MCP SDK client over stdio (initialize included): Debug as `dotnet run --no-build --project DIR` (the mcp.json form without the restore and build checks, the build having just been done), Release as `dotnet bin/Release/<tfm>/Bench.dll`. ' +
    `The total is init + build + start of the same run. petstore and GitHub: ${options.buildRuns} rounds, their four runs interleaved in an order that rotates every round, median; MS Graph one run per configuration (in the first round: a Release build takes tens of seconds and GBs), and its \`init\` alone once more at the start of each later round. ` +
    'The init row pools the runs of both configurations (the same command). One unmeasured warm-up (petstore, both configurations) first. Generated C#: every *.cs file under the project, bin/ and obj/ left out, and McpTools.g.cs alone, found by name; MB = 2^20 bytes.',
};

async function benchServing(context: BenchContext, gnuTime: boolean): Promise<void> {
  const { log, options, results, work } = context;
  const pipelines = SPECS.flatMap((key) => CONFIGS.map((config): Pipeline => ({
    spec: specOf(context, key), config, init: [], initPeakKb: [], build: [], buildPeakKb: [], start: [], rssKb: [], initBuild: [], total: [], edits: [], oneBuild: [], oneEdits: [], tools: 0,
  })));
  const sizes = new Map<Spec['key'], Sizes>();
  const root = join(work, 'serving');
  await mkdir(root, { recursive: true });
  const peakFile = gnuTime ? join(root, 'build-peak.txt') : undefined;

  log('spec to serving: warm-up (petstore, Debug and Release)');
  for (const config of CONFIGS) {
    const dir = join(root, `warm-up-${config}`);
    const run = await once(context, specOf(context, 'petstore'), config, dir, peakFile, false);
    if (run.failure) log(`warm-up ${config}: ${run.failure.step} failed: ${run.failure.reason}`);
    if (!options.keep) await rm(dir, { recursive: true, force: true });
  }
  for (let round = 0; round < options.buildRuns; round++) {
    const list = pipelines.filter((p) => !p.failure && (p.spec.key !== 'graph' || round === 0));
    // MS Graph is built in the first round alone; its init runs in the others too, first, for a median of more runs.
    for (const p of round === 0 ? [] : pipelines.filter((p) => p.spec.key === 'graph' && p.config === 'Debug' && !p.failure)) {
      const dir = join(root, `graph-init-${round + 1}`);
      const init = await timeInit(context, p.spec, dir);
      if (init.exitCode === 0) record(p, { init: { seconds: init.wallSeconds, peakKb: init.peakRssKb } }, sizes);
      log(`spec to serving round ${round + 1}/${options.buildRuns}: graph init ${init.wallSeconds.toFixed(2)} s${init.exitCode === 0 ? '' : ' FAILED'}`);
      await rm(dir, { recursive: true, force: true });
    }
    for (const p of rotate(list, round)) {
      const dir = join(root, `${p.spec.key}-${p.config}-${round + 1}`);
      // The yardstick goes first in every other round: neither layout always builds on the other's warm caches.
      const run = await once(context, p.spec, p.config, dir, peakFile, round % 2 === 1);
      record(p, run, sizes);
      if (run.failure) results.problems.push(`spec to serving, ${p.spec.label} ${p.config}, round ${round + 1}: ${run.failure.step} failed: ${run.failure.reason}`);
      const figure = (v: number | undefined): string => (v === undefined ? '—' : v.toFixed(2));
      log(`spec to serving round ${round + 1}/${options.buildRuns}: ${p.spec.key} ${p.config} init ${figure(run.init?.seconds)} s, build ${figure(run.build?.seconds)} s (peak ${mb(run.build?.peakKb ?? Number.NaN)}), start ${figure(run.start?.seconds)} s${run.failure ? `; ${run.failure.step} FAILED` : ''}`);
      if (!options.keep) await rm(dir, { recursive: true, force: true });
    }
  }
  if (!gnuTime) results.notes.push('Spec to serving: no GNU time, so the builds\' peak memory is not measured (and the MS Graph memory goal not checked).');
  report(context, pipelines, sizes);
}

/** `init` of `spec` into `dir`, a fresh `node` process timed as in generation. */
const timeInit = (context: BenchContext, spec: Spec, dir: string): ReturnType<typeof timeNode> =>
  timeNode([context.generator.cli, 'init', '--openapi-url', spec.path, '--server-name', 'Bench', '--output-dir', dir, '--framework', context.frameworks], context.work, context.rssMethod, context.generator.rssPreload, context.paths.repo);

/**
 * init → dotnet build → start → stop, into a fresh `dir`; stops at the first step that fails. In Debug, the edit loop
 * after the build, and the yardstick: the same project as one project, built from clean and through the same edit loop,
 * before the project itself (`yardstickFirst`) or after it.
 */
async function once(context: BenchContext, spec: Spec, config: Config, dir: string, peakFile: string | undefined, yardstickFirst: boolean): Promise<Run> {
  const { frameworks } = context;
  const run: Run = {};
  await rm(dir, { recursive: true, force: true });
  const init = await timeInit(context, spec, dir);
  if (init.exitCode !== 0) return { failure: { step: 'init', reason: `exit ${init.exitCode}: ${firstErrorLine(init.stderr).slice(0, 200)}` } };
  run.init = { seconds: init.wallSeconds, peakKb: init.peakRssKb };
  let baseUrlVariable: string;
  try {
    const scanned = scanProject(dir);
    run.sizes = scanned.sizes;
    baseUrlVariable = scanned.baseUrlVariable;
  } catch (error) {
    return { ...run, failure: { step: 'init', reason: `cannot read the generated project: ${(error as Error).message}` } };
  }
  const yardstick = (): string | undefined => {
    const one = `${dir}-one-project`;
    try {
      asOneProject(dir, one);
      const oneBuilt = dotnetBuild(one, ['-p:UseSharedCompilation=false']);
      if (!oneBuilt.ok) return `as one project: ${oneBuilt.error}`;
      const oneEdits = editLoop(one);
      if ('failure' in oneEdits) return `as one project, an edit's build: ${oneEdits.failure}`;
      run.oneProject = { build: oneBuilt.seconds, edits: oneEdits };
      return undefined;
    } catch (error) {
      return `as one project: ${(error as Error).message.slice(0, 200)}`;
    } finally {
      rmSync(one, { recursive: true, force: true });
    }
  };
  const debug = config === 'Debug';
  const early = debug && yardstickFirst ? yardstick() : undefined;
  if (early) return { ...run, failure: { step: 'build', reason: early } };
  const built = dotnetBuild(dir, [...(config === 'Release' ? ['-c', 'Release'] : []), '-p:UseSharedCompilation=false'], peakFile);
  if (!built.ok) return { ...run, failure: { step: 'build', reason: built.error } };
  run.build = { seconds: built.seconds, peakKb: built.peakKb };
  if (debug) {
    const edits = editLoop(dir);
    if ('failure' in edits) return { ...run, failure: { step: 'build', reason: `an edit's build: ${edits.failure}` } };
    run.edits = edits;
    const late = yardstickFirst ? undefined : yardstick();
    if (late) return { ...run, failure: { step: 'build', reason: late } };
  }
  const args = config === 'Debug' ? ['run', '--no-build', '--project', dir] : [join(dir, 'bin/Release', frameworks, 'Bench.dll')];
  try {
    const server = await startServer('dotnet', args, dir, { [baseUrlVariable]: 'http://127.0.0.1:9/', Logging__LogLevel__Default: 'Warning' });
    run.start = { seconds: server.seconds, rssKb: server.serverRssKb, tools: server.tools.length };
    await stopServer(server, context.results);
  } catch (error) {
    return { ...run, failure: { step: 'start', reason: (error as Error).message.slice(0, 300) } };
  }
  return run;
}

function record(p: Pipeline, run: Run, sizes: Map<Spec['key'], Sizes>): void {
  if (run.sizes && !sizes.has(p.spec.key)) sizes.set(p.spec.key, run.sizes);
  if (run.init) {
    p.init.push(run.init.seconds);
    p.initPeakKb.push(run.init.peakKb);
  }
  if (run.init && run.build) {
    p.build.push(run.build.seconds);
    p.buildPeakKb.push(run.build.peakKb);
    p.initBuild.push(run.init.seconds + run.build.seconds);
  }
  if (run.init && run.build && run.start) {
    p.start.push(run.start.seconds);
    p.rssKb.push(run.start.rssKb);
    p.total.push(run.init.seconds + run.build.seconds + run.start.seconds);
    p.tools = run.start.tools;
  }
  if (run.edits) p.edits.push(run.edits);
  if (run.oneProject) {
    p.oneBuild.push(run.oneProject.build);
    p.oneEdits.push(run.oneProject.edits);
  }
  if (run.failure) p.failure = run.failure;
}

/** The *.cs files of a generated project outside bin/ and obj/, and the base URL variable its Program.cs reads. */
function scanProject(dir: string): { sizes: Sizes; baseUrlVariable: string } {
  let csBytes = 0;
  let csFiles = 0;
  let toolsBytes = Number.NaN;
  let baseUrlVariable = 'BENCH_BASE_URL';
  const walk = (folder: string, top: boolean): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!(top && (entry.name === 'bin' || entry.name === 'obj'))) walk(path, false);
        continue;
      }
      if (!entry.isFile() || !entry.name.endsWith('.cs')) continue;
      const size = statSync(path).size;
      csBytes += size;
      csFiles++;
      if (entry.name === 'McpTools.g.cs') toolsBytes = (Number.isNaN(toolsBytes) ? 0 : toolsBytes) + size;
      if (entry.name === 'Program.cs') baseUrlVariable = /\["([A-Z0-9_]+_BASE_URL)"\]/.exec(readFileSync(path, 'utf8'))?.[1] ?? baseUrlVariable;
    }
  };
  walk(dir, true);
  return { sizes: { csBytes, csFiles, toolsBytes }, baseUrlVariable };
}

