/** The generator as the benchmark runs it: a snapshot of the built generator, taken at the start. */
import { existsSync } from 'node:fs';
import { cp, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMPLATE_FOLDERS } from '../../src/emit/shared/templates.js';

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

/** The command line's bundle and its code cache (see scripts/bundle.ts). */
const BUNDLE_FILES = ['dist/cli.cjs', 'dist/cli.cache'];

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
      for (const file of BUNDLE_FILES) await cp(join(repo, file), join(snapshot, file));
      for (const folder of TEMPLATE_FOLDERS) await cp(join(repo, folder), join(snapshot, folder), { recursive: true });
      for (const file of ['parse.js', 'rss.js']) await cp(join(repo, CHILD_SCRIPTS, file), join(snapshot, CHILD_SCRIPTS, file));
      if (!existsSync(join(snapshot, 'dist/cli.cjs'))) throw new Error('dist/cli.cjs is missing');
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
