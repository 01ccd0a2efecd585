/**
 * 1. Generation: whole process (wall time, peak RSS) of `client`, `tools` and `init` on each spec,
 * beside a process that only parses the spec and beside the peer generator; a command that misses
 * its goal is profiled once (--cpu-prof) unless --no-profile.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Area } from './area.js';
import { PEER_VERSION, type BenchContext, type Spec } from './context.js';
import { genArgs, runGen, type GenCommand } from './generator.js';
import { firstErrorLine, int, mb, median, percent, range, ratio, rotate, seconds, type ProcessRun } from './lib.js';
import { summarizeProfile } from './profile.js';
import { straddles, verdict, type Row } from './results.js';

/**
 * GitHub: `tools` and `init` within 2× a parse-only process (the generator's goal), `client` within 2.5×. MS Graph:
 * `init` within 2.5 s (the generation-speed issue), `client` and `tools` within 3 s.
 */
const GOALS = { githubRatio: { client: 2.5, tools: 2, init: 2 }, graphSeconds: { client: 3, tools: 3, init: 2.5 }, graphBetaSeconds: 8, graphBetaMb: 2048 } as const;
const OUR_COMMANDS = ['client', 'tools', 'init'] as const;
const AREA = '1 generation';

export const generation: Area = {
  name: 'gen',
  corpus: true,
  peer: true,
  run: (context, { peer }) => benchGeneration(context, peer),
  method: ({ rssMethod }) =>
    `Generation: each command is a fresh \`node\` process (as a user runs it) writing into an emptied folder; wall time from spawn to exit (performance.now() in the bench), peak RSS = ${rssMethod === 'gnu-time' ? "GNU time's `%M` (ru_maxrss of the process)" : 'process.resourceUsage().maxRSS written at exit by a preloaded module (no GNU time here)'}. "× parse-only" is the median of the per-round ratios to a process that only does \`JSON.parse(fs.readFileSync(spec))\` (\`yaml\`'s \`parse\` for YAML); likewise "× the peer" (> 1 = ours slower). \`init\` writes client + tools + host project. The peer writes a TypeScript project (\`--input SPEC --output DIR --force\`).`,
};

type Runs = Map<string, ProcessRun[]>;
const key = (spec: Spec, command: GenCommand): string => `${spec.key}/${command}`;

async function benchGeneration(context: BenchContext, peer: boolean): Promise<void> {
  const commands: GenCommand[] = ['parse', ...OUR_COMMANDS, ...(peer ? (['peer'] as const) : [])];
  const results = await measure(context, commands);
  for (const spec of context.specs) {
    for (const command of commands) await report(context, results, spec, command, peer);
  }
}

/** Every command on every spec, --runs rounds, in an order that rotates every round. */
async function measure(context: BenchContext, commands: readonly GenCommand[]): Promise<Runs> {
  const { specs, work, log, options } = context;
  const results: Runs = new Map();
  const dirOf = (spec: Spec, command: GenCommand): string => join(work, 'gen', spec.key, command);
  const first = specs[0] as Spec;

  // Warm-up (not measured): the file cache for the specs and for node_modules.
  log('generation: warm-up');
  for (const spec of specs) await runGen(context, 'parse', spec, dirOf(spec, 'parse'));
  for (const command of commands) await runGen(context, command, first, dirOf(first, command));

  for (let round = 0; round < options.runs; round++) {
    for (const spec of specs) {
      for (const command of rotate(commands, round)) {
        const result = await runGen(context, command, spec, dirOf(spec, command));
        results.set(key(spec, command), [...(results.get(key(spec, command)) ?? []), result]);
        log(`generation round ${round + 1}/${options.runs}: ${spec.key} ${command} ${result.wallSeconds.toFixed(2)} s ${mb(result.peakRssKb)}${result.exitCode === 0 ? '' : ` exit ${result.exitCode}`}`);
      }
    }
  }
  return results;
}

/** Per-round ratio of command a to command b, where both succeeded. */
function pairedRatios(results: Runs, spec: Spec, a: GenCommand, b: GenCommand): number[] {
  const first = results.get(key(spec, a)) ?? [];
  const second = results.get(key(spec, b)) ?? [];
  return first.flatMap((r, i) => {
    const other = second[i];
    return r.exitCode === 0 && other && other.exitCode === 0 ? [r.wallSeconds / other.wallSeconds] : [];
  });
}

/** The row of one command on one spec (and its profile when it misses its goal). */
async function report(context: BenchContext, results: Runs, spec: Spec, command: GenCommand, peer: boolean): Promise<void> {
  const { rows, problems } = context.results;
  const all = results.get(key(spec, command)) ?? [];
  const good = all.filter((r) => r.exitCode === 0);
  const label = command === 'parse' ? 'parse-only process' : command === 'peer' ? `peer openapi-mcp-generator ${PEER_VERSION}` : `\`${command}\``;
  if (good.length === 0) {
    const failure = all[0];
    const message = failure ? `exit ${failure.exitCode}: ${firstErrorLine(failure.stderr).slice(0, 160)}` : 'not run';
    problems.push(`${label} on ${spec.label} failed (${message})`);
    rows.push({ area: AREA, what: label, spec: spec.label, value: 'failed', spread: '', beside: message, goal: '', status: command === 'parse' || command === 'peer' ? '' : 'FAILED' });
    return;
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
    const parseRatios = pairedRatios(results, spec, command, 'parse');
    beside = `${ratio(median(parseRatios))} parse-only (${range(parseRatios, ratio)})`;
    if (command !== 'peer' && peer) {
      const peerRatios = pairedRatios(results, spec, command, 'peer');
      if (peerRatios.length > 0) beside += `; ${ratio(median(peerRatios))} the peer`;
    }
    if (command !== 'peer' && spec.key === 'github') {
      const ratioGoal = GOALS.githubRatio[command];
      goal = `≤ ${ratioGoal}× parse-only`;
      status = verdict(median(parseRatios) <= ratioGoal);
      borderline = straddles(parseRatios, ratioGoal);
    }
    if (command !== 'peer' && spec.key === 'graph') {
      const limit = GOALS.graphSeconds[command];
      goal = `≤ ${limit} s`;
      status = verdict(median(wall) <= limit);
      borderline = straddles(wall, limit);
    }
    if (command !== 'peer' && spec.key === 'graphBeta') {
      goal = `< ${GOALS.graphBetaSeconds} s and < ${GOALS.graphBetaMb / 1024} GB`;
      status = verdict(median(wall) < GOALS.graphBetaSeconds && median(rss) < GOALS.graphBetaMb * 1024);
      borderline = straddles(wall, GOALS.graphBetaSeconds) || straddles(rss, GOALS.graphBetaMb * 1024);
    }
    if (status === 'MISS' && !context.options.noProfile) await profile(context, spec, command);
  }
  rows.push({ area: AREA, what: label, spec: spec.label, value, spread, beside, goal, status, borderline });
}

/** One `node --cpu-prof` run of the command, summarised into a note. */
async function profile(context: BenchContext, spec: Spec, command: GenCommand): Promise<void> {
  const dir = join(context.work, 'prof', `${spec.key}-${command}`);
  await mkdir(dir, { recursive: true });
  const out = join(context.work, 'gen', spec.key, `${command}-prof`);
  await rm(out, { recursive: true, force: true });
  if (command === 'tools') await mkdir(out, { recursive: true });
  spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, ...genArgs(context, command, spec.path, out)], { cwd: context.paths.repo, stdio: 'ignore' });
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return;
  const summary = summarizeProfile(join(dir, file), 7);
  const list = (entries: { name: string; milliseconds: number }[]): string => entries.map((e) => `${e.name} ${int(e.milliseconds)} ms`).join(', ');
  context.results.profiles.push(
    `Profile of \`${command}\` on ${spec.label} (one \`node --cpu-prof\` run, ${int(summary.totalMs)} ms sampled, GC ${percent(summary.gcMs, summary.totalMs)}): self time by area: ${list(summary.areas)}. Most self time: ${list(summary.self)}. Most inclusive time in the generator: ${list(summary.inclusive)}.`,
  );
}
