/**
 * `npm run corpus -- --runtime [--sample N] [--specs FILE] [--only ID] [--report FILE] [--keep] [--reuse]`
 *
 * The runtime sweep: for each spec of the list (default scripts/runtime-sample.txt: ids of
 * ../shared/corpus/dev-specs.txt, or paths of specs in this repository), `init` and one
 * `dotnet build -c Release` of all the projects, then per spec Stoplight Prism as a validating mock
 * of the API, the generated server pointed at it, and every tool called twice by the MCP SDK client
 * with arguments made from its input schema. Writes docs/runtime-report.md (and every call, as JSON, to
 * .corpus/runtime-calls.json). `--keep` keeps the generated projects in .corpus/runtime; `--reuse` runs
 * the calls again on them without generating or building (for work on the sweep itself).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { parseArgs } from 'node:util';
import { detectFramework } from '../src/dotnet.js';
import { REPO } from '../test/support/golden.js';
import { buildProjects, generateProjects, type SpecInput } from '../test/support/runtime/projects.js';
import { okShare, runtimeReport } from '../test/support/runtime/report.js';
import { sweepSpec, tally, type SpecRun } from '../test/support/runtime/sweep.js';
import { ensureCorpus } from './corpus-install.js';

export async function runtimeSweep(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      runtime: { type: 'boolean' },
      sample: { type: 'string' },
      specs: { type: 'string', default: join(REPO, 'scripts/runtime-sample.txt') },
      only: { type: 'string', multiple: true },
      report: { type: 'string', default: join(REPO, 'docs/runtime-report.md') },
      keep: { type: 'boolean' },
      reuse: { type: 'boolean' },
    },
  });
  const apiDir = ensureCorpus();
  let ids = (await readFile(values.specs, 'utf8')).split('\n').map((l) => l.replace(/#.*/, '').trim()).filter((l) => l !== '');
  if (values.only) ids = ids.filter((id) => values.only?.includes(id));
  if (values.sample) ids = ids.slice(0, Number(values.sample));
  const inputs: SpecInput[] = ids.map((id) => ({ id, path: /\.(json|ya?ml)$/.test(id) ? (isAbsolute(id) ? id : join(REPO, id)) : join(apiDir, `${id}.json`) }));

  const work = join(REPO, '.corpus/runtime');
  if (!values.reuse) await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  const framework = detectFramework();
  const started = performance.now();
  const prepared = await generateProjects(inputs, work, framework, values.reuse);
  process.stderr.write(`generated ${prepared.length} projects; building…\n`);
  const build = values.reuse ? { ok: true, output: '', seconds: 0 } : await buildProjects(prepared, work);
  process.stderr.write(`built in ${build.seconds.toFixed(0)} s${build.ok ? '' : ' (with errors)'}\n`);
  if (!build.ok) await writeFile(join(work, 'build.log'), build.output);

  const runs: SpecRun[] = [];
  for (const spec of prepared) {
    const run = await sweepSpec(spec);
    runs.push(run);
    const c = tally(run.calls);
    process.stderr.write(`${spec.id}: ${run.tools} tools, ${c.ok}/${run.calls.length} OK${run.error ? `; ${run.error.slice(0, 200)}` : ''} (${run.seconds.toFixed(0)} s)\n`);
  }
  const { ok, counted } = okShare(runs);
  const minutes = (performance.now() - started) / 60_000;
  const header = [
    `Written by \`npm run corpus -- --runtime\` on ${new Date().toISOString().slice(0, 10)}: ${runs.length} specs from ${values.specs.startsWith(REPO) ? values.specs.slice(REPO.length) : values.specs},`,
    `Stoplight Prism ${prismVersion()} (\`prism mock --dynamic\`) as the API, the \`@modelcontextprotocol/sdk\` client over stdio, arguments from each tool's`,
    `published input schema (json-schema-faker), each tool called with its required arguments, then with every optional one.`,
    `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ${minutes.toFixed(1)} minutes (build ${build.seconds.toFixed(0)} s).`,
  ];
  await writeFile(values.report, runtimeReport(runs, header) + '\n');
  await writeFile(join(REPO, '.corpus/runtime-calls.json'), JSON.stringify(runs, null, 1));
  process.stderr.write(`${ok}/${counted} calls OK (${((100 * ok) / Math.max(1, counted)).toFixed(2)}%); report: ${values.report}\n`);
  if (!values.keep) await rm(work, { recursive: true, force: true });
}

function prismVersion(): string {
  const path = join(REPO, 'node_modules/@stoplight/prism-cli/package.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version : 'unknown';
}
