/**
 * 5. dotnet build: `dotnet build --no-restore` (Debug) of the generated petstore and GitHub
 * projects from clean, restore outputs kept.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Area } from './area.js';
import type { BenchContext, Project } from './context.js';
import { median, range, rotate, seconds } from './lib.js';
import { dotnetBuild, project } from './projects.js';

const AREA = '5 dotnet build';
const WHAT = '`dotnet build --no-restore` from clean (Debug)';

export const build: Area = {
  name: 'build',
  corpus: false,
  peer: false,
  run: (context) => benchBuild(context),
  method: ({ options }) =>
    `dotnet build: after the setup build (restore included), ${options.buildRuns} timed \`dotnet build --no-restore\` (Debug) with bin/ and obj/Debug/ deleted before each (obj/project.assets.json and the other restore outputs kept; MSBuild/compiler servers as the SDK leaves them).`,
};

async function benchBuild(context: BenchContext): Promise<void> {
  const { log, options, results } = context;
  const list: Project[] = [];
  for (const key of ['petstore', 'github'] as const) {
    // The Debug build of the setup (not timed) restores and warms the build servers.
    const p = await project(context, key, false, true);
    if (p.error) {
      results.rows.push({ area: AREA, what: '`dotnet build --no-restore` from clean', spec: p.label, value: 'failed', spread: '', beside: p.error, goal: '', status: 'FAILED' });
      continue;
    }
    list.push(p);
  }
  const times = new Map<string, number[]>();
  const failures = new Map<string, string>();
  for (let round = 0; round < options.buildRuns; round++) {
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
      log(`dotnet build round ${round + 1}/${options.buildRuns}: ${p.key} ${built.seconds.toFixed(1)} s`);
    }
  }
  for (const p of list) {
    const t = times.get(p.key) ?? [];
    const failure = failures.get(p.key);
    if (t.length === 0) {
      results.problems.push(`dotnet build of the ${p.label} project: ${failure ?? 'not run'}`);
      results.rows.push({ area: AREA, what: WHAT, spec: p.label, value: 'failed', spread: '', beside: failure ?? '', goal: '', status: 'FAILED' });
      continue;
    }
    results.rows.push({
      area: AREA,
      what: WHAT,
      spec: p.label,
      value: seconds(median(t), 1),
      spread: range(t, (v) => seconds(v, 1)),
      beside: `${t.length} run${t.length === 1 ? '' : 's'}; ${generatedSize(p.dir)}`,
      goal: '',
      status: '',
    });
  }
}

/** The size of the generated C# (tools, client, models) of a project. */
function generatedSize(dir: string): string {
  const sizes = ['McpTools.g.cs', 'Client/ApiClient.g.cs', 'Client/Models.g.cs'].map((f) => {
    try {
      return readFileSync(join(dir, f)).length;
    } catch {
      return 0;
    }
  });
  const total = sizes.reduce((a, b) => a + b, 0);
  return total < 2 ** 20 ? `${Math.round(total / 1024)} KB of generated C#` : `${(total / 2 ** 20).toFixed(1)} MB of generated C#`;
}
