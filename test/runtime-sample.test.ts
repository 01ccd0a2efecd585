/**
 * The runtime sweep on a fixed sample of real-world specs (test/fixtures/runtime, from the sample of
 * `npm run corpus -- --runtime`): generated as a user would, built in one `dotnet build`, each served by
 * its generated server against Stoplight Prism as a validating mock of the API, every tool called twice
 * by the MCP client with arguments made only from its published input schema. No call may fail for a
 * reason of the generator's; the mock's own limits are allowed where the sweep can tell them.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { detectFramework } from '../src/dotnet.js';
import { REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';
import { buildProjects, generateProjects, type SpecInput } from './support/runtime/projects.js';
import { sweepSpec, tally, type SpecRun } from './support/runtime/sweep.js';

const FIXTURES = join(REPO, 'test/fixtures/runtime');

describe('runtime sample: generated servers against a validating mock of each real API', () => {
  const runs: SpecRun[] = [];
  let build = { ok: false, output: '' };

  before(async () => {
    const work = scratchDir('runtime');
    const inputs: SpecInput[] = [];
    for (const file of (await readdir(FIXTURES)).filter((f) => f.endsWith('.json.gz')).sort()) {
      const path = join(work, file.replace(/\.gz$/, ''));
      await writeFile(path, gunzipSync(await readFile(join(FIXTURES, file))));
      inputs.push({ id: file.replace(/\.json\.gz$/, ''), path });
    }
    const prepared = await generateProjects(inputs, work, detectFramework());
    build = await buildProjects(prepared, work);
    if (!build.ok) return;
    for (const spec of prepared) runs.push(await sweepSpec(spec));
  });

  test('the sample builds in one dotnet build and every spec is swept', () => {
    assert.ok(build.ok, build.output.slice(-3000));
    assert.ok(runs.length >= 4, `${runs.length} specs`);
    for (const run of runs) assert.equal(run.error, undefined, `${run.id}: ${run.error}`);
  });

  test('every call is OK, a limit of the mock the sweep can name, or a contradiction in the spec with its evidence', () => {
    const failures = runs.flatMap((run) => run.calls.filter((c) => !['ok', 'mock-limit', 'unfit'].includes(c.class) && !c.specBug).map((c) => `${run.id} ${c.tool} (${c.mode}): ${c.class}: ${c.reason} [${c.request ?? 'not sent'}]`));
    assert.deepEqual(failures, []);
    for (const run of runs) {
      const counts = tally(run.calls);
      assert.ok(run.tools > 0 && counts.ok >= run.calls.length * 0.8, `${run.id}: only ${counts.ok} of ${run.calls.length} calls OK`);
    }
  });
});
