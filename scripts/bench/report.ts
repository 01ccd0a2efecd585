/**
 * The report of the benchmark: the one markdown table with the notes (how each area measured,
 * what the areas noted, profiles, problems), printed, and written with the machine it ran on to
 * docs/benchmarks.md (a full run) or --out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import type { Area } from './area.js';
import type { BenchContext } from './context.js';
import { cell, int } from './lib.js';
import { dotnetVersion, gitRevision, osName } from './machine.js';
import type { Row } from './results.js';

/** The table and its notes (markdown), as printed and as written under the machine facts. */
export function renderReport(context: BenchContext, areas: readonly Area[]): string {
  const { options, paths, results } = context;
  const totalSeconds = (performance.now() - context.startedAt) / 1000;
  const specFacts = context.specs.filter((s) => existsSync(s.path)).map((s) => {
    const size = readFileSync(s.path).length;
    return `${s.label} = \`${relative(paths.repo, s.path)}\` (${(size / 2 ** 20).toFixed(size < 2 ** 20 ? 2 : 1)} MB, ${int(countOperations(s.path))} operations)`;
  });
  const methodNotes = [
    `The generator (bin/, the dist/cli.cjs bundle it runs with its code cache, and dist/src/) is run from a copy taken at the start of the bench.`,
    `Runs: ${options.runs} per figure (${options.runsChosenBy}), after one unmeasured warm-up; the things compared run in the same round, interleaved, in an order that rotates every round. Median and min–max over the runs.`,
    `Specs: ${specFacts.join('; ')}.`,
    ...areas.filter((area) => options.selected.has(area.name)).map((area) => area.method(context)),
    `Total bench time: ${Math.floor(totalSeconds / 60)} min ${Math.floor(totalSeconds % 60)} s. Load average at the start ${context.loadAvgAtStart}, at the end ${loadavg().map((l) => l.toFixed(2)).join(', ')} (on ${cpus().length} cores: above ${cpus().length}, other work was competing for the CPU).`,
  ];
  return [
    table(results.rows),
    '',
    ...methodNotes.map((n) => `- ${n}`),
    ...results.notes.map((n) => `- ${n}`),
    ...results.profiles.map((n) => `- ${n}`),
    ...(results.problems.length > 0 ? ['', '**Problems seen:**', '', ...results.problems.map((p) => `- ${p}`)] : []),
    '',
  ].join('\n');
}

function table(rows: readonly Row[]): string {
  return [
    '| Area | Measurement | Spec | Median | Spread (min–max) | Beside it, same run | Goal | |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${[r.area, r.what, r.spec, r.value, r.spread, r.beside, r.goal, r.status ? `**${r.status}**${r.borderline ? ' (borderline: runs on both sides)' : ''}` : ''].map(cell).join(' | ')} |`),
  ].join('\n');
}

/** Writes the report with the machine facts to --out, or docs/benchmarks.md for a full run; else nothing. */
export async function writeReport(context: BenchContext, body: string): Promise<void> {
  const { options, paths } = context;
  const out = options.out ?? (options.isFullRun ? join(paths.repo, 'docs/benchmarks.md') : undefined);
  if (!out) return;
  const machine = [
    `- Date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}`,
    `- Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${osName()} (Linux ${release()})`,
    `- Node ${process.version}, .NET SDK ${dotnetVersion()}; openapi-mcp-dotnet at ${gitRevision(paths.repo)}`,
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
  await writeFile(out, document);
  process.stderr.write(`Written: ${relative(process.cwd(), out)}\n`);
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
