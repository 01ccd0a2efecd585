/** One generation command (ours, the parse-only baseline or the peer) as a measured `node` process. */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchContext, Spec } from './context.js';
import { timeNode, type ProcessRun } from './lib.js';

export type GenCommand = 'parse' | 'client' | 'tools' | 'init' | 'peer';

/** The arguments of `node` for one generation command on `spec`, writing into `dir`. */
export function genArgs(context: BenchContext, command: GenCommand, spec: string, dir: string): string[] {
  const cli = context.generator.cli;
  switch (command) {
    case 'parse':
      return [context.generator.parseOnly, spec];
    case 'client':
      return [cli, 'client', '-u', spec, '-o', dir, '-n', 'Bench.Client'];
    case 'tools':
      return [cli, 'tools', '--openapi-url', spec, '--output-file', join(dir, 'McpTools.g.cs'), '--namespace', 'Bench', '--server-name', 'Bench', '--ext-namespace', 'Bench.Client'];
    case 'init':
      return [cli, 'init', '--openapi-url', spec, '--server-name', 'Bench', '--output-dir', dir, '--framework', 'net10.0'];
    case 'peer':
      return [context.paths.peerBin, '--input', spec, '--output', dir, '--force'];
  }
}

/** Runs one generation command into an emptied `dir`, measured (wall time, peak RSS). */
export async function runGen(context: BenchContext, command: GenCommand, spec: Spec, dir: string): Promise<ProcessRun> {
  await rm(dir, { recursive: true, force: true });
  if (command === 'tools') await mkdir(dir, { recursive: true });
  const { work, rssMethod, generator, paths } = context;
  const result = await timeNode(genArgs(context, command, spec.path, dir), work, rssMethod, generator.rssPreload, paths.repo);
  if (result.exitCode === 0 && command === 'peer' && !existsSync(join(dir, 'src/index.ts'))) {
    return { ...result, exitCode: -1, stderr: `no src/index.ts written\n${result.stderr}` };
  }
  return result;
}
