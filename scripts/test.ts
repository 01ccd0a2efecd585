/**
 * `npm test` (after the build): runs every `*.test.js` under dist/test with Node's test runner, one
 * file at a time, and nothing else: fixtures and support modules are not tests (one of them, the
 * golden-file updater, would rewrite what the golden test checks).
 *
 * The tests run with a temporary directory of their own (TMPDIR); a folder a test leaves behind in it
 * fails the run, so that no test litters the machine's temporary directory.
 *
 * Usage: node dist/scripts/test.js [dist-test-folder] [-- extra node --test options]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The test files of a compiled test folder: `*.test.js` directly in it, in name order. */
export function testFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.js'))
    .map((entry) => join(folder, entry.name))
    .sort();
}

function main(argv: readonly string[]): number {
  const separator = argv.indexOf('--');
  const positional = separator < 0 ? argv : argv.slice(0, separator);
  const extra = separator < 0 ? [] : argv.slice(separator + 1);
  const folder = resolve(positional[0] ?? fileURLToPath(new URL('../test/', import.meta.url)));
  const files = testFiles(folder);
  if (files.length === 0) {
    process.stderr.write(`no *.test.js files in ${folder}\n`);
    return 1;
  }
  const scratch = mkdtempSync(join(tmpdir(), 'omd-test-run-'));
  // NODE_TEST_CONTEXT is set when this runs under a test runner itself: the tests would then report to it.
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: scratch };
  delete env.NODE_TEST_CONTEXT;
  try {
    const run = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...extra, ...files], { stdio: 'inherit', env });
    const leftovers = readdirSync(scratch).filter((name) => name.startsWith('omd-'));
    if (leftovers.length > 0) {
      process.stderr.write(`tests left ${leftovers.length} folder(s) in the temporary directory: ${leftovers.join(', ')}\n`);
      return 1;
    }
    return run.status ?? 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
