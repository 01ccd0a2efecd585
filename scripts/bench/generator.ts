/**
 * The generator as the benchmark runs it: a snapshot of the built generator, and one generation
 * command (ours, the parse-only baseline or the peer) as a measured `node` process.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchContext, Spec } from './context.js';
import { timeNode, type ProcessRun } from './lib.js';

export interface Generator {
  /** The snapshot's folder. */
  readonly dir: string;
  /** bin/openapi-mcp-dotnet.js of the snapshot. */
  readonly cli: string;
  /** The parse-only baseline (scripts/bench/parse.ts). */
  readonly parseOnly: string;
  /** The module preloaded to write peak RSS when GNU time is missing (scripts/bench/rss.ts). */
  readonly rssPreload: string;
}

/** The built helpers of scripts/bench/ that run in a measured child, copied with the generator. */
const CHILD_SCRIPTS = 'dist/scripts/bench';

/**
 * The generator runs from a copy of bin/ and dist/src/ taken now (node_modules linked), so that a
 * rebuild of dist/ by someone else during the bench neither breaks nor changes what is measured.
 */
export async function snapshotGenerator(repo: string, snapshot: string): Promise<Generator> {
  for (let attempt = 0; ; attempt++) {
    try {
      await cp(join(repo, 'bin'), join(snapshot, 'bin'), { recursive: true });
      await cp(join(repo, 'dist/src'), join(snapshot, 'dist/src'), { recursive: true });
      await cp(join(repo, 'dist/cli.js'), join(snapshot, 'dist/cli.js'));
      await cp(join(repo, 'src/emit/csharp'), join(snapshot, 'src/emit/csharp'), { recursive: true });
      for (const file of ['parse.js', 'rss.js']) await cp(join(repo, CHILD_SCRIPTS, file), join(snapshot, CHILD_SCRIPTS, file));
      if (!existsSync(join(snapshot, 'dist/cli.js'))) throw new Error('dist/cli.js is missing');
      break;
    } catch (error) {
      if (attempt >= 10) throw new Error(`cannot copy the built generator (run npm run build first): ${(error as Error).message}`);
      await rm(snapshot, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  }
  await cp(join(repo, 'package.json'), join(snapshot, 'package.json'));
  await symlink(join(repo, 'node_modules'), join(snapshot, 'node_modules'), 'dir');
  return {
    dir: snapshot,
    cli: join(snapshot, 'bin/openapi-mcp-dotnet.js'),
    parseOnly: join(snapshot, CHILD_SCRIPTS, 'parse.js'),
    rssPreload: join(snapshot, CHILD_SCRIPTS, 'rss.js'),
  };
}

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
