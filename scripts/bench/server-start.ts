/**
 * 2. Server start: process start to the first tools/list answer, and RSS, of the generated server
 * for `dotnet <dll>` (Release) and `dotnet run --project DIR` (the mcp.json form; Debug), and
 * `dotnet run` with --no-restore and with --no-build, which shows where its time goes.
 */
import type { Area } from './area.js';
import type { BenchContext, Project } from './context.js';
import { mb, median, range, rotate, seconds } from './lib.js';
import { project } from './projects.js';
import { straddles, verdict } from './results.js';
import { startServer, stopServer } from './servers.js';

const GOALS = { startSmall: 0.4, startGithub: 1.5 } as const;
const AREA = '2 server start';

export const serverStart: Area = {
  name: 'server',
  corpus: false,
  peer: false,
  run: (context) => benchServerStart(context),
  method: ({ frameworks }) =>
    `Server start: \`init\` project (server name Bench, ${frameworks}), built once (not timed); time from spawn to the answer of the first tools/list through the MCP SDK client over stdio (includes initialize). RSS = VmRSS of the process running Bench.dll right after that answer. One unmeasured warm-up start of each variant first. The goals are checked on both forms; \`dotnet run\` is what the generated mcp.json uses and re-checks the build on every start.`,
};

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

async function benchServerStart(context: BenchContext): Promise<void> {
  const { rows } = context.results;
  const variants: Variant[] = [];
  for (const key of ['petstore', 'github'] as const) {
    const p = await project(context, key, true, true);
    if (p.error || !p.releaseDll) {
      rows.push({ area: AREA, what: 'start → first tools/list', spec: p.label, value: 'failed', spread: '', beside: p.error ?? '', goal: '', status: 'FAILED' });
      continue;
    }
    const variant = (form: Variant['form'], args: string[]): Variant => ({ project: p, form, args, times: [], serverRss: [], treeRss: [], tools: 0 });
    variants.push(variant('dll', [p.releaseDll]));
    variants.push(variant('run', ['run', '--project', p.dir]));
    // Where `dotnet run`'s time goes (the same for any project): without its restore, without its build.
    if (key === 'petstore') {
      for (const skip of ['--no-restore', '--no-build'] as const) variants.push(variant(`run ${skip}`, ['run', skip, '--project', p.dir]));
    }
  }
  await measure(context, variants);
  for (const variant of variants) report(context, variant);
  explainDotnetRun(context, variants);
}

async function measure(context: BenchContext, variants: readonly Variant[]): Promise<void> {
  const { log, options, results } = context;
  const once = async (variant: Variant): Promise<number> => {
    const server = await startServer('dotnet', variant.args, variant.project.dir, { [variant.project.baseUrlVariable]: 'http://127.0.0.1:9/' });
    variant.tools = server.tools.length;
    variant.serverRss.push(server.serverRssKb);
    variant.treeRss.push(server.treeRssKb);
    await stopServer(server, results);
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
  for (let round = 0; round < options.runs; round++) {
    for (const variant of rotate(variants, round)) {
      if (variant.error) continue;
      try {
        const time = await once(variant);
        variant.times.push(time);
        log(`server start round ${round + 1}/${options.runs}: ${variant.project.key} ${variant.form} ${time.toFixed(3)} s`);
      } catch (error) {
        variant.error = (error as Error).message;
      }
    }
  }
}

function report({ results }: BenchContext, variant: Variant): void {
  const what = variant.form === 'dll' ? 'start → first tools/list, `dotnet Bench.dll` (Release; the `init --launch dll` entry)'
    : variant.form === 'run' ? 'start → first tools/list, `dotnet run --project DIR` (mcp.json form, Debug)'
    : `the same with \`dotnet ${variant.form} --project DIR\` (not a form we write: where the time goes)`;
  const hasGoal = variant.form === 'dll' || variant.form === 'run';
  const limit = variant.project.key === 'petstore' ? GOALS.startSmall : GOALS.startGithub;
  if (variant.error && variant.times.length === 0) {
    results.problems.push(`${variant.project.label} server (${variant.form}): ${variant.error}`);
    results.rows.push({ area: AREA, what, spec: variant.project.label, value: 'failed', spread: '', beside: variant.error.slice(0, 200), goal: `< ${limit} s`, status: 'FAILED' });
    return;
  }
  const rss =
    variant.form === 'dll'
      ? `RSS after start ${mb(median(variant.serverRss))}`
      : `RSS after start ${mb(median(variant.serverRss))} (server) + ${mb(median(variant.treeRss) - median(variant.serverRss))} (\`dotnet run\` itself)`;
  results.rows.push({
    area: AREA,
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

/** A note splitting `dotnet run`'s start on petstore into restore check, build check, launch and server. */
function explainDotnetRun({ results }: BenchContext, variants: readonly Variant[]): void {
  const startOf = (form: string): number | undefined => {
    const times = variants.find((v) => v.project.key === 'petstore' && v.form === form)?.times ?? [];
    return times.length > 0 ? median(times) : undefined;
  };
  const [dll, run, noRestore, noBuild] = [startOf('dll'), startOf('run'), startOf('run --no-restore'), startOf('run --no-build')];
  if (dll !== undefined && run !== undefined && noRestore !== undefined && noBuild !== undefined) {
    results.notes.push(
      `Where \`dotnet run --project\` spends its ${seconds(run, 2)} on petstore: its restore check ${seconds(run - noRestore, 2)}, its build check ${seconds(noRestore - noBuild, 2)}, ` +
        `evaluating the project and launching ${seconds(noBuild - dll, 2)} (against \`dotnet Bench.dll\`, Release), the server itself ${seconds(dll, 2)}. ` +
        'The SDK runs MSBuild for the first three on every start, whatever the project; only `dotnet <dll>` avoids them.',
    );
  }
}
