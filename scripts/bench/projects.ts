/**
 * The generated projects the server, call, payload and build areas measure: `init` of a spec into
 * the work folder, built with dotnet (Release and/or Debug) once, on first use, and kept in
 * context.projects for the areas after.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { specOf, type BenchContext, type Project, type ProjectKey } from './context.js';
import { firstErrorLine } from './lib.js';

export interface Built {
  readonly ok: boolean;
  readonly seconds: number;
  /** The count of errors and the first of them, when not ok. */
  readonly error: string;
  /** Peak RSS of the largest process of the build's tree in kB (GNU time's %M), NaN when not measured. */
  readonly peakKb: number;
}

/**
 * `dotnet build DIR …args`, quiet, timed; with `peakFile`, under GNU time writing its %M there (the
 * ru_maxrss of the largest process the build waited for: pass -p:UseSharedCompilation=false so the
 * compiler is one of them and not a build server outside the tree).
 */
export function dotnetBuild(dir: string, args: readonly string[], peakFile?: string, env: NodeJS.ProcessEnv = process.env): Built {
  const dotnet = ['build', dir, '-nologo', '-v:q', '-clp:NoSummary', ...args];
  const started = performance.now();
  const result = peakFile
    ? spawnSync('/usr/bin/time', ['-f', '%M', '-o', peakFile, 'dotnet', ...dotnet], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env })
    : spawnSync('dotnet', dotnet, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env });
  const seconds = (performance.now() - started) / 1000;
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  const errors = output.split('\n').filter((l) => /: error [A-Z]+\d+/.test(l));
  let peakKb = Number.NaN;
  if (peakFile) {
    try {
      peakKb = Number(readFileSync(peakFile, 'utf8').trim().split('\n').pop());
    } catch {
      // GNU time did not write it: no figure
    }
  }
  return {
    ok: result.status === 0,
    seconds,
    error: result.status === 0 ? '' : result.error ? result.error.message : `${errors.length} errors; first: ${(errors[0] ?? output.trim().split('\n').pop() ?? '').trim().replace(`${dir}/`, '').slice(0, 200)}`,
    peakKb,
  };
}

/**
 * The `init` project of a spec, built in Release (`release`) and/or Debug (`debug`) if not yet;
 * with `error` set when a step failed (and a problem reported once).
 */
export async function project(context: BenchContext, key: ProjectKey, release: boolean, debug: boolean): Promise<Project> {
  const { generator, frameworks, log, results } = context;
  let p = context.projects.get(key);
  if (!p) {
    const spec = specOf(context, key);
    const dir = join(context.work, 'proj', key);
    log(`init ${spec.label} project`);
    const init = spawnSync(process.execPath, [generator.cli, 'init', '--openapi-url', spec.path, '--server-name', 'Bench', '--output-dir', dir, '--framework', frameworks], { cwd: context.paths.repo, encoding: 'utf8' });
    let baseUrlVariable = 'BENCH_BASE_URL';
    let error: string | undefined;
    if (init.status !== 0) error = `init exit ${init.status}: ${firstErrorLine(init.stderr ?? '')}`;
    else baseUrlVariable = /\["([A-Z0-9_]+_BASE_URL)"\]/.exec(await readFile(join(dir, 'Program.cs'), 'utf8'))?.[1] ?? baseUrlVariable;
    p = { key, label: spec.label, dir, baseUrlVariable, ...(error ? { error } : {}) };
    context.projects.set(key, p);
    if (error) results.problems.push(`${spec.label} project: ${error}`);
  }
  if (p.error) return p;
  if (release && !p.releaseDll) {
    log(`dotnet build -c Release ${p.label} project (not timed)`);
    const built = dotnetBuild(p.dir, ['-c', 'Release']);
    if (!built.ok) {
      p.error = `dotnet build -c Release failed: ${built.error}`;
      results.problems.push(`${p.label} project: ${p.error}`);
      return p;
    }
    results.notes.push(`Setup: \`dotnet build -c Release\` of the ${p.label} project (restore included, not timed) took ${built.seconds.toFixed(0)} s.`);
    p.releaseDll = join(p.dir, 'bin/Release', frameworks, 'Bench.dll');
  }
  if (debug && !p.debugBuilt) {
    log(`dotnet build (Debug) ${p.label} project (not timed)`);
    const built = dotnetBuild(p.dir, []);
    if (!built.ok) {
      p.error = `dotnet build failed: ${built.error}`;
      results.problems.push(`${p.label} project: ${p.error}`);
      return p;
    }
    p.debugBuilt = true;
  }
  return p;
}
