/**
 * `npm test` (after the build): runs every `*.test.js` under dist/test with Node's test runner, one
 * file at a time, and nothing else: fixtures and support modules are not tests (one of them, the
 * golden-file updater, would rewrite what the golden test checks).
 *
 * Each file runs in a process group of its own with a time limit (FILE_LIMIT_MINUTES, 15 unless the
 * environment sets OMD_TEST_FILE_MINUTES): a file that hangs is stopped with everything it started,
 * counted as failed, and the run goes on. The run ends with each file's time and result.
 *
 * The tests run with a temporary directory of their own (TMPDIR); a folder a test leaves behind in it
 * fails the run, so that no test litters the machine's temporary directory.
 *
 * Usage: node dist/scripts/test.js [dist-test-folder] [-- extra node --test options]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const FILE_LIMIT_MINUTES = Number(process.env.OMD_TEST_FILE_MINUTES ?? 15);

/** The test files of a compiled test folder: `*.test.js` directly in it, in name order. */
export function testFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.js'))
    .map((entry) => join(folder, entry.name))
    .sort();
}

interface FileRun { file: string; seconds: number; outcome: 'passed' | 'failed' | 'timed out' }

/** Runs one test file in its own process group; past the limit the whole group is killed. */
function runFile(file: string, extra: readonly string[], env: NodeJS.ProcessEnv): Promise<FileRun> {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--test', ...extra, file], { stdio: 'inherit', env, detached: true });
    let timedOut = false;
    const limit = setTimeout(() => {
      timedOut = true;
      process.stderr.write(`${basename(file)} ran past ${FILE_LIMIT_MINUTES} minutes: stopped\n`);
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    }, FILE_LIMIT_MINUTES * 60_000);
    child.on('close', (code) => {
      clearTimeout(limit);
      // Whatever the file started and left running goes with it.
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* none left */ }
      const seconds = Math.round((Date.now() - started) / 1000);
      done({ file, seconds, outcome: timedOut ? 'timed out' : code === 0 ? 'passed' : 'failed' });
    });
  });
}

async function main(argv: readonly string[]): Promise<number> {
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
    const runs: FileRun[] = [];
    for (const file of files) runs.push(await runFile(file, extra, env));
    const failed = runs.filter((run) => run.outcome !== 'passed');
    process.stdout.write(`\n# files: ${runs.length}, passed ${runs.length - failed.length}, failed ${failed.length}, ${Math.round(runs.reduce((sum, run) => sum + run.seconds, 0) / 60)} min\n`);
    for (const run of runs) process.stdout.write(`#   ${run.outcome.padEnd(9)} ${String(run.seconds).padStart(5)} s  ${basename(run.file)}\n`);
    const leftovers = readdirSync(scratch).filter((name) => name.startsWith('omd-'));
    if (leftovers.length > 0) {
      process.stderr.write(`tests left ${leftovers.length} folder(s) in the temporary directory: ${leftovers.join(', ')}\n`);
      return 1;
    }
    return failed.length === 0 ? 0 : 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
