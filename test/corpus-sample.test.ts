/**
 * A fixed sample of hard real-world specs (test/fixtures/corpus) and the Swagger 2.0 fixture, generated
 * as a user would and compiled in one batched build: every spec generates, compiles without errors or
 * warnings, and has valid, unique tool names. The full corpus is `npm run corpus`.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { detectFramework } from '../src/dotnet.js';
import { buildBatch, generateSpec, toolNameProblems, type CompilerDiagnostic, type SpecOutcome } from './support/corpus.js';
import { REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

const FIXTURES = join(REPO, 'test/fixtures/corpus');

describe('corpus sample', () => {
  const outcomes: SpecOutcome[] = [];
  let diagnostics: CompilerDiagnostic[] = [];
  let output = '';

  before(async () => {
    const work = scratchDir('sample');
    const specs = (await readdir(FIXTURES)).filter((f) => f.endsWith('.json.gz')).sort();
    const inputs: { id: string; path: string }[] = [{ id: 'swagger2', path: join(REPO, 'test/fixtures/swagger2.json') }];
    for (const file of specs) {
      const path = join(work, file.replace(/\.gz$/, ''));
      await writeFile(path, gunzipSync(await readFile(join(FIXTURES, file))));
      inputs.push({ id: file.replace(/\.json\.gz$/, ''), path });
    }
    for (const [index, input] of inputs.entries()) {
      outcomes.push(await generateSpec(input.id, input.path, join(work, 'batch', `s${index}`), `S${index}`));
    }
    const build = await buildBatch(join(work, 'batch'), detectFramework());
    diagnostics = build.diagnostics;
    output = build.output;
    await rm(work, { recursive: true, force: true });
  });

  test('every spec generates', () => {
    assert.equal(outcomes.length, 20);
    for (const o of outcomes) assert.equal(o.exitCode, 0, `${o.id}: ${o.stderr}`);
  });

  test('the broken operation of notion.com is skipped with a warning that says where', () => {
    const notion = outcomes.find((o) => o.id === 'notion.com');
    assert.match(notion?.stderr ?? '', /warning: .*notion\.com\.json#\/paths\/~1v1~1pages~1\{id\}\/get\/parameters\/1: skipped GET \/v1\/pages\/\{id\}: a parameter has no `name`/);
    assert.equal(notion?.warnings, 1);
  });

  test('the other warnings name required properties the spec does not describe, and nothing else', () => {
    const warned = outcomes.filter((o) => o.id !== 'notion.com' && o.warnings > 0);
    assert.deepEqual(warned.map((o) => o.id), ['apple.com_sirikit-cloud-media', 'atlassian.com_jira', 'digitallocker.gov.in_authpartner', 'exavault.com', 'sakari.io']);
    for (const o of warned) {
      for (const line of o.stderr.split('\n').filter((l) => l.startsWith('warning:'))) {
        assert.match(line, /^warning: \S+\.json#\/\S+\/required: required propert(y|ies) "[^"]+"(, "[^"]+")* (is|are) not described: sent as any JSON value$/, o.id);
      }
    }
    assert.match(outcomes.find((o) => o.id === 'exavault.com')?.stderr ?? '', /#\/components\/schemas\/UserAttributes\/required: required property "homeResource" is not described/);
  });

  test('everything compiles with no errors and no warnings', () => {
    assert.doesNotMatch(output, /error (MSB|NU|CS)\d+/, output.slice(-3000));
    assert.deepEqual(diagnostics.map((d) => `${d.file}(${d.line}): ${d.code} ${d.message}`), []);
  });

  test('tool names are valid and unique in every spec', () => {
    for (const o of outcomes) {
      assert.ok(o.toolNames.length > 0, o.id);
      assert.deepEqual(toolNameProblems(o.toolNames), [], o.id);
    }
    assert.deepEqual(outcomes.find((o) => o.id === 'swagger2')?.toolNames, ['list_orders', 'create_order', 'create_order_receipt']);
  });
});
