/**
 * 10. Tasks: a fixed set of tasks over the library API (scripts/bench/task-plans.ts), each done as an ideal assistant
 * would do it in operations, discovery and code mode, against the library project generated in each mode and the
 * API on 127.0.0.1 (a fresh one per mode). Per task and mode: the round trips (tool calls) and the bytes sent to the
 * assistant (tools/list, and every answer), and whether the answer was right. Goal: on multi-step tasks, code mode
 * at most a third of discovery mode's bytes and round trips.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect } from '../../examples/harness.js';
import { LIBRARY_KEY, LIBRARY_SPEC, startLibraryApi } from '../../test/support/library-api.js';
import type { Area } from './area.js';
import type { BenchContext } from './context.js';
import { firstErrorLine, int } from './lib.js';
import { dotnetBuild } from './projects.js';
import { verdict } from './results.js';
import { perform, TASKS, type Mode } from './task-plans.js';
import { environmentPrefix } from '../../src/names/environment.js';

const AREA = '10 tasks';
const MODES: readonly Mode[] = ['operations', 'discovery', 'code'];
const NAMES: Record<Mode, string> = { operations: 'LibOps', discovery: 'LibFind', code: 'LibCode' };

export const tasks: Area = {
  name: 'tasks',
  corpus: false,
  peer: false,
  run: (context) => benchTasks(context),
  method: () =>
    'Tasks: test/fixtures/library.yaml generated with `init --mode operations|discovery|code`, built in one `dotnet build`, started over stdio with the SDK client, against the library API on 127.0.0.1 (45 books, 6 owners; a fresh API per mode). Each task is done as an ideal assistant would do it (scripts/bench/task-plans.ts): in operations mode it calls the tools it knows from tools/list; in discovery and code mode it first searches once for each operation it needs, with detail "full" (its inputSchema, or in code mode its signature), at limit 3; then it calls them through call_operation, or writes one run_script. Round trips: tool calls. Bytes: tools/list (every page) plus the text of every answer, as the assistant receives them. Each answer is checked against the API\'s state; a wrong one is reported as such.',
};

interface Measured { trips: number; bytes: number; right: boolean }

async function benchTasks(context: BenchContext): Promise<void> {
  const { generator, frameworks, log, results, work, paths } = context;
  const fail = (message: string): void => {
    results.problems.push(`tasks: ${message.slice(0, 500)}`);
    results.rows.push({ area: AREA, what: 'tasks in three modes', spec: 'library.yaml', value: 'failed', spread: '', beside: message.slice(0, 200), goal: '', status: 'FAILED' });
  };
  const dir = join(work, 'tasks');
  for (const mode of MODES) {
    log(`init library.yaml --mode ${mode}`);
    const init = spawnSync(process.execPath, [generator.cli, 'init', '--openapi-url', LIBRARY_SPEC, '--server-name', NAMES[mode], '--output-dir', join(dir, mode), '--mode', mode, '--framework', frameworks], { cwd: paths.repo, encoding: 'utf8' });
    if (init.status !== 0) return fail(`init --mode ${mode} exit ${init.status}: ${firstErrorLine(init.stderr ?? '')}`);
  }
  writeFileSync(join(dir, 'all.slnx'), `<Solution>\n${MODES.map((m) => `  <Folder Name="/${m}/">\n    <Project Path="${m}/${NAMES[m]}.csproj" />\n  </Folder>\n`).join('')}</Solution>\n`);
  log('dotnet build -c Release of the library projects (not timed)');
  const built = dotnetBuild(join(dir, 'all.slnx'), ['-c', 'Release']);
  if (!built.ok) return fail(`dotnet build failed: ${built.error}`);
  const figures = new Map<string, Measured>();
  for (const mode of MODES) {
    const api = await startLibraryApi();
    const prefix = environmentPrefix(NAMES[mode]);
    let client: Client | undefined;
    try {
      client = await connect({ command: 'dotnet', args: [join(dir, mode, 'bin/Release', frameworks, `${NAMES[mode]}.dll`)] }, { [`${prefix}_BASE_URL`]: api.url, [`${prefix}_API_KEY`]: LIBRARY_KEY });
      const listing = await listBytes(client);
      for (const task of TASKS) {
        log(`task in ${mode} mode: ${task.name}`);
        const counted = { trips: 0, bytes: listing };
        const session = {
          call: async (name: string, args: Record<string, unknown>): Promise<string> => {
            const answer = await client!.callTool({ name, arguments: args }) as { content: { text?: string }[]; isError?: boolean };
            const text = answer.content.map((c) => c.text ?? '').join('');
            counted.trips++;
            counted.bytes += Buffer.byteLength(text);
            if (answer.isError === true) throw new Error(`${name}: ${text.slice(0, 300)}`);
            return text;
          },
        };
        const answer = await perform(task, mode, session);
        figures.set(`${task.name}|${mode}`, { ...counted, right: isDeepStrictEqual(answer, task.expected(api)) });
      }
    } catch (error) {
      fail(`${mode} mode: ${(error as Error).message}`);
    } finally {
      await client?.close();
      await api.close();
    }
  }
  report(context, figures);
}

/** Bytes of tools/list as the assistant receives it: every page's tools. */
async function listBytes(client: Client): Promise<number> {
  let bytes = 0;
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    bytes += Buffer.byteLength(JSON.stringify(page.tools));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return bytes;
}

function report({ results }: BenchContext, figures: Map<string, Measured>): void {
  for (const task of TASKS) {
    const [operations, discovery, code] = MODES.map((mode) => figures.get(`${task.name}|${mode}`));
    if (!operations || !discovery || !code) continue;
    const wrong = MODES.filter((mode) => figures.get(`${task.name}|${mode}`)?.right === false);
    const ok = code.trips * 3 <= discovery.trips && code.bytes * 3 <= discovery.bytes;
    results.rows.push({
      area: AREA,
      what: `${task.name}: round trips / bytes to the assistant, code mode (beside: operations, discovery)`,
      spec: 'library.yaml',
      value: `${code.trips} / ${int(code.bytes)} B`,
      spread: '1 run',
      beside: `operations ${operations.trips} / ${int(operations.bytes)} B; discovery ${discovery.trips} / ${int(discovery.bytes)} B${wrong.length > 0 ? `; WRONG answer in ${wrong.join(', ')}` : ''}`,
      goal: task.multiStep ? '≤ ⅓ of discovery\'s trips and bytes' : '',
      status: wrong.length > 0 ? 'FAILED' : task.multiStep ? verdict(ok) : '',
    });
  }
}
