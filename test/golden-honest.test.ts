/**
 * The test run must not heal a golden regression. A copy of the built repository with one test file,
 * the golden test, is run the way `npm test` runs its tests, twice, after a golden file was edited:
 * both runs fail and the edit stays (only `npm run golden:update` writes golden files).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFile, cp, mkdir, readFile, symlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';
import { TEMPLATE_FOLDERS } from '../src/emit/shared/templates.js';

test('npm test cannot heal a golden regression: an edited golden file fails the run twice and stays edited', async () => {
  const copy = scratchDir('golden-heal');
  const onlyGoldenTest = (source: string): boolean => !/\.test\.(js|d\.ts|js\.map)$/.test(source) || basename(source).startsWith('golden.test.');
  await cp(join(REPO, 'dist'), join(copy, 'dist'), { recursive: true, filter: onlyGoldenTest });
  await cp(join(REPO, 'test/golden'), join(copy, 'test/golden'), { recursive: true });
  for (const folder of TEMPLATE_FOLDERS) await cp(join(REPO, folder), join(copy, folder), { recursive: true });
  await mkdir(join(copy, 'examples'));
  await cp(join(REPO, 'examples/petstore.yaml'), join(copy, 'examples/petstore.yaml'));
  await cp(join(REPO, 'package.json'), join(copy, 'package.json'));
  await symlink(join(REPO, 'node_modules'), join(copy, 'node_modules'));

  const golden = join(copy, 'test/golden/petstore/McpTools.g.cs');
  await appendFile(golden, '// an edit the generator would not make\n');
  const edited = await readFile(golden, 'utf8');
  for (const run of [1, 2]) {
    const result = spawnSync(process.execPath, [join(copy, 'dist/scripts/test.js')], { cwd: copy, encoding: 'utf8' });
    assert.notEqual(result.status, 0, `run ${run} passed:\n${result.stdout}`);
    assert.match(result.stdout, /McpTools\.g\.cs differs from its golden file/, `run ${run}`);
    assert.equal(await readFile(golden, 'utf8'), edited, `run ${run} rewrote the golden file`);
  }
});
