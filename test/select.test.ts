import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepare, planNames, selectOperations, matches, runCli, generateTools, type PreparedApi } from '../src/index.js';
import { reportSelection, formatReport } from '../src/report.js';
import { EXAMPLE_SPEC } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

const api = await prepare(EXAMPLE_SPEC);
const plan = planNames(api.model);
const names = (selection: Parameters<typeof selectOperations>[2]): string[] =>
  selectOperations(api.model, plan, selection).selected.map((op) => plan.operations.get(op.id)?.toolName ?? '');

test('--tags: trimmed, case-insensitive, any listed tag', () => {
  assert.deepEqual(names({ tags: [' OWNERS '] }), ['list_owners', 'list_owner_pets']);
  assert.deepEqual(names({ tags: ['pets', 'owners'] }).length, 7);
  assert.deepEqual(names({}).length, 7);
});

test('--include and --exclude: operationId or tool-name globs, METHOD /path globs', () => {
  assert.deepEqual(names({ include: ['getPetById', 'list_*'] }), ['list_pets', 'get_pet', 'list_owners', 'list_owner_pets']);
  assert.deepEqual(names({ include: ['GET /pets/*'] }), ['get_pet']);
  assert.deepEqual(names({ include: ['GET /**'] }), ['list_pets', 'get_pet', 'list_owners', 'list_owner_pets']);
  assert.deepEqual(names({ exclude: ['* /pets/{petId}', 'create_pet'] }), ['list_pets', 'list_owners', 'list_owner_pets']);
  assert.deepEqual(names({ include: ['PUT|DELETE /pets/*'] }), ['update_pet', 'delete_pet']);
  const op = api.model.operations[0]!;
  assert.ok(matches('LISTPETS', op, 'list_pets'));
  assert.ok(!matches('GET /pet', op, 'list_pets'));
  // picomatch's globs: `**` also matches the folder itself, braces give alternatives, `{petId}` alone is literal.
  assert.deepEqual(names({ include: ['GET /owners/**'] }), ['list_owners', 'list_owner_pets']);
  assert.deepEqual(names({ include: ['{create,delete}_pet'] }), ['create_pet', 'delete_pet']);
  assert.deepEqual(names({ include: ['GET /pets/{petId}'] }), ['get_pet']);
});

test('--read-only keeps GET and HEAD; filters combine; skipped operations say why', () => {
  assert.deepEqual(names({ readOnly: true, tags: ['pets'] }), ['list_pets', 'get_pet', 'list_owner_pets']);
  const { skipped } = selectOperations(api.model, plan, { readOnly: true, exclude: ['list_owners'] });
  assert.deepEqual(skipped.map((s) => `${s.operation.method} ${s.operation.path}: ${s.reason}`), [
    'post /pets: --read-only keeps only GET and HEAD',
    'put /pets/{petId}: --read-only keeps only GET and HEAD',
    'delete /pets/{petId}: --read-only keeps only GET and HEAD',
    'get /owners: matches --exclude "list_owners"',
  ]);
  assert.throws(() => selectOperations(api.model, plan, { include: ['nothing'] }), /the selection leaves no operation/);
});

async function specWith(paths: Record<string, unknown>): Promise<PreparedApi> {
  const dir = scratchDir('select');
  const file = join(dir, 'spec.json');
  await writeFile(file, JSON.stringify({ openapi: '3.0.3', info: { title: 'X', version: '1' }, paths }));
  return prepare(file);
}

test('x-mcp in the spec: a tool name, a description, exclusion (on the operation or its path item)', async () => {
  const ok = { responses: { 200: { description: 'ok' } } };
  const x = await specWith({
    '/pets': { get: { ...ok, 'x-mcp': { name: 'find_animals', description: 'Find animals.' } }, post: { ...ok, 'x-mcp': false } },
    '/pets/{id}': { 'x-mcp': { exclude: true }, get: ok, delete: ok },
    '/animals': { get: ok },
  });
  const tools = generateTools(x, { namespace: 'X', clientNamespace: 'X.Client' });
  assert.deepEqual([...tools.content.matchAll(/Name = "([a-z_]+)"/g)].map((m) => m[1]), ['find_animals', 'list_animals']);
  assert.match(tools.content, /\[Description\("Find animals\."\)\]/);
  assert.deepEqual(tools.skipped.map((s) => s.reason), ['excluded by x-mcp in the spec', 'excluded by x-mcp in the spec', 'excluded by x-mcp in the spec']);
  const bad = await specWith({ '/a': { get: { ...ok, 'x-mcp': { name: 'Not Valid' } } }, '/b': { get: ok } });
  assert.match(bad.warnings[0]?.message ?? '', /x-mcp name "Not Valid" must match/);
  const twice = await specWith({ '/a': { get: { ...ok, 'x-mcp': { name: 'fetch' } } }, '/b': { get: { ...ok, 'x-mcp': { name: 'fetch' } } } });
  assert.match(twice.warnings[0]?.message ?? '', /x-mcp name fetch is already used by another operation/);
  assert.deepEqual([...planNames(twice.model).operations.values()].map((o) => o.toolName), ['fetch', 'get_b']);
});

test('report: tools, skipped operations, size per tag, warnings past the clients\' limits', async () => {
  const report = reportSelection(api, { exclude: ['DELETE /**'] });
  assert.equal(report.tools.length, 6);
  assert.equal(report.skipped.length, 1);
  assert.deepEqual(report.byTag.map((t) => [t.tag, t.tools]), [['pets', 5], ['owners', 2]]);
  assert.ok(report.bytes > 1000 && report.bytes < 6000, String(report.bytes));
  assert.deepEqual(report.warnings, []);
  const text = formatReport(report);
  assert.match(text, /^Petstore 1\.0\.0: 6 tools, 1 operations skipped; tools\/list ~[\d,]+ bytes, ~[\d,]+ tokens/);
  assert.match(text, /DELETE \/pets\/\{petId\}: matches --exclude "DELETE \/\*\*"/);
  const many = await specWith(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`/r${i}`, { get: { tags: [i < 100 ? 'big' : 'small'], responses: { 200: { description: 'ok' } } } }])));
  const manyReport = reportSelection(many, {});
  assert.match(manyReport.warnings.join('\n'), /150 tools is over the 128 that VS Code accepts; pick tags with --tags\. Largest tags: big \(100 tools/);
  // Past the limits, discovery mode is recommended with the figures of both modes.
  assert.ok(manyReport.discoveryBytes > 1000 && manyReport.discoveryBytes <= 3600, String(manyReport.discoveryBytes));
  assert.equal(manyReport.warnings[0], `use --mode discovery: three tools that search, describe and call the operations; tools/list ~${manyReport.discoveryBytes.toLocaleString('en-US')} bytes (~${Math.ceil(manyReport.discoveryBytes / 4)} tokens) instead of ~${manyReport.bytes.toLocaleString('en-US')} bytes (~${Math.ceil(manyReport.bytes / 4).toLocaleString('en-US')} tokens) for 150 tools`);
  assert.match(formatReport(manyReport), /\nwarning: use --mode discovery: /);
});

test('--dry-run and report write nothing', async () => {
  const dir = scratchDir('dry');
  let out = '';
  const io = { out: (t: string) => void (out += t), err: () => {} };
  assert.equal(await runCli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'P', '--output-dir', join(dir, 'p'), '--dry-run', '--read-only'], io), 0);
  assert.equal(await runCli(['tools', '--openapi-url', EXAMPLE_SPEC, '--output-file', join(dir, 'T.g.cs'), '--namespace', 'P', '--server-name', 'P', '--ext-namespace', 'P.C', '--dry-run'], io), 0);
  assert.equal(await runCli(['report', '--openapi-url', EXAMPLE_SPEC, '--json', '--tags', 'owners'], io), 0);
  assert.deepEqual(await readdir(dir), []);
  assert.match(out, /Petstore 1\.0\.0: 4 tools, 3 operations skipped/);
  assert.match(out, /"name": "list_owner_pets"/);
});
