/**
 * The map of the API that search_operations' description carries: tags and how many operations each has, largest
 * first, bounded; the first path segments where no operation has a tag; escaped in McpDiscoveryText.g.cs; and sized
 * by `report`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateTools, prepare } from '../src/index.js';
import { MAX_MAP_BYTES, searchMap } from '../src/emit/discovery/search-map.js';
import { DISCOVERY_TEXT_FILE, discoveryListing, discoveryTools, emitDiscoveryText } from '../src/emit/discovery/discovery.js';
import { reportSelection } from '../src/report.js';
import { stringLiteral } from '../src/emit/shared/writer.js';
import { EXAMPLE_SPEC } from './support/golden.js';

/** Operations with these tags, at /x. */
const tagged = (...tags: (readonly string[])[]): { tags: readonly string[]; path: string }[] => tags.map((t) => ({ tags: t, path: '/x' }));
/** Operations without tags at these paths. */
const at = (...paths: string[]): { tags: readonly string[]; path: string }[] => paths.map((path) => ({ tags: [], path }));

test('the map lists tags with their operations, largest first, ties by name whatever the case, a tag in any case once', () => {
  assert.equal(searchMap(tagged(['Books'], ['Books'], ['authors'], ['Admin'], ['books', 'Authors'], ['zebra'], ['Admin'])), 'Tags: Books (3), Admin (2), authors (2), zebra (1).');
  assert.equal(searchMap(tagged(['b'], ['a'], ['C'], ['B'])), 'Tags: b (2), a (1), C (1).', 'the first spelling met; ties in name order');
  assert.equal(searchMap(tagged(['Pets', 'pets'])), 'Tags: Pets (1).', 'an operation counts once under a tag, whatever its case');
  assert.equal(searchMap([...tagged(['Books']), ...at('/authors', '/authors/{id}')]), 'Tags: Books (1).', 'untagged operations of a tagged API are not counted');
  assert.equal(searchMap([]), '');
});

test(`the map stays within ${MAX_MAP_BYTES.toLocaleString('en-US')} bytes: the largest tags, then "and N more"`, () => {
  // 300 tags with 1 to 7 operations each, names of 2-byte and 4-byte characters.
  const operations = Array.from({ length: 300 }, (_, i) => tagged(...Array.from({ length: 1 + (i % 7) }, () => [`Überlänge ${i} 😀`]))).flat();
  const map = searchMap(operations);
  assert.ok(Buffer.byteLength(map) <= MAX_MAP_BYTES && Buffer.byteLength(map) > MAX_MAP_BYTES - 40, String(Buffer.byteLength(map)));
  const listed = [...map.matchAll(/Überlänge (\d+) 😀 \((\d+)\)/g)].map((m) => ({ tag: Number(m[1]), count: Number(m[2]) }));
  const more = Number(/, and (\d+) more\.$/.exec(map)?.[1]);
  assert.equal(listed.length + more, 300, map.slice(-80));
  assert.deepEqual(listed.map((l) => l.count), [...listed.map((l) => l.count)].sort((a, b) => b - a), 'largest first');
  assert.ok(listed.every((l) => l.count === 1 + (l.tag % 7)));
  assert.ok(listed.filter((l) => l.count === 7).length === 42 && listed.at(-1)?.count === 6, 'all the 42 sevens, then some of the sixes');
  // The map that fills the bound keeps search_operations' tools/list within 3,600 bytes.
  assert.ok(Buffer.byteLength(JSON.stringify({ tools: discoveryListing(map) })) <= 3600);
});

test('a tag name too long or with control characters is counted, not listed; with none listable there is no map', () => {
  assert.equal(searchMap(tagged(['x'.repeat(101)], ['x'.repeat(101)], ['a\nb'], ['ok'], ['  '])), 'Tags: ok (1), and 3 more.');
  assert.equal(searchMap(tagged(['x'.repeat(100)])), `Tags: ${'x'.repeat(100)} (1).`);
  assert.equal(searchMap(tagged(['x'.repeat(5000)], ['\u2028'])), '');
});

test('without tags, the map is of the first path segments that name something; none when most paths name nothing', () => {
  assert.equal(searchMap(at('/pets', '/pets/{id}', '/owners/{id}/pets', '/v1/users', '/2010-04-01/Accounts/{Sid}/Calls.json', '/2010-04-01/Accounts.json', '/items?kind=a')), 'Paths: /2010-04-01/Accounts (2), /pets (2), /items (1), /owners (1), /v1/users (1).');
  assert.equal(searchMap(at('/#X-Amz-Target=Service.A', '/#X-Amz-Target=Service.B', '/health')), '', "AWS's operations are all at the root");
  assert.equal(searchMap(at('/{Bucket}', '/{Bucket}/{Key}', '/{Bucket}?acl', '/WriteGetObjectResponse')), '', "S3's paths start with a parameter");
});

test('McpDiscoveryText.g.cs holds search_operations\' description with the map, escaped as a C# string literal', () => {
  const map = searchMap(tagged(['say "hi" \\ */ </summary> {0}'], ['😀']));
  assert.equal(map, 'Tags: say "hi" \\ */ </summary> {0} (1), 😀 (1).');
  const file = emitDiscoveryText('Ns', 'Spec "1" */', map, 'discovery', []);
  assert.equal(file.path, DISCOVERY_TEXT_FILE);
  const description = discoveryTools('discovery', map).find((t) => t.name === 'search_operations')?.description ?? '';
  assert.ok(description.endsWith(`\n${map}`), description);
  assert.ok(file.content.includes(`    internal const string SearchDescription = ${stringLiteral(description)};\n`), file.content);
  assert.ok(file.content.includes('Tags: say \\"hi\\" \\\\ */ </summary> {0} (1)'), 'quotes and backslashes escaped');
  assert.ok(file.content.includes('\ninternal static class McpDiscoveryText\n{\n'));
  assert.match(file.content, /^\/\/ <auto-generated>\n\/\/ {3}Generated by openapi-mcp-dotnet from Spec "1" \*\/\.\n/);
  assert.equal(discoveryTools('discovery', '').find((t) => t.name === 'search_operations')?.description.includes('\n'), false, 'no map, no line for it');
});

test('tools --mode discovery counts the selected operations only; report sizes the discovery tools/list with that map', async () => {
  const api = await prepare(EXAMPLE_SPEC);
  const part = (tags?: string[]): string | undefined => generateTools(api, { namespace: 'P', clientNamespace: 'P.C', mode: 'discovery', ...(tags && { tags }) }).beside.find((f) => f.path === DISCOVERY_TEXT_FILE)?.content;
  assert.match(part() ?? '', /\\nTags: pets \(6\), owners \(2\)\.";\n/);
  assert.match(part(['pets']) ?? '', /\\nTags: pets \(6\), owners \(1\)\.";\n/, 'list_owner_pets is tagged owners too');
  assert.match(part(['owners']) ?? '', /\\nTags: owners \(2\), pets \(1\)\.";\n/);
  assert.equal(generateTools(api, { namespace: 'P', clientNamespace: 'P.C' }).beside.length, 0, 'operations mode writes nothing beside the tools');
  for (const selection of [{}, { tags: ['owners'] }]) {
    const report = reportSelection(api, selection);
    const map = selection.tags ? 'Tags: owners (2), pets (1).' : 'Tags: pets (6), owners (2).';
    assert.equal(report.discoveryBytes, Buffer.byteLength(JSON.stringify({ tools: discoveryListing(map) })));
    assert.equal(report.discoveryBytes, Buffer.byteLength(JSON.stringify({ tools: discoveryListing() })) + Buffer.byteLength(`\\n${map}`));
  }
});

test('McpDiscoveryText.g.cs annotates call_operation and run_script as the least permissive selected operation', async () => {
  const api = await prepare(EXAMPLE_SPEC);
  const reach = (selection: { readOnly?: boolean; tags?: string[] }, mode: 'discovery' | 'code' = 'discovery'): string[] =>
    [...(generateTools(api, { namespace: 'P', clientNamespace: 'P.C', mode, ...selection }).beside.find((f) => f.path === DISCOVERY_TEXT_FILE)?.content ?? '')
      .matchAll(/internal const bool (Reach\w+) = (true|false);/g)].map((m) => `${m[1]}=${m[2]}`);
  assert.deepEqual(reach({}), ['ReachReadOnly=false', 'ReachDestructive=true', 'ReachIdempotent=false'], 'the petstore deletes and creates');
  assert.deepEqual(reach({ readOnly: true }), ['ReachReadOnly=true', 'ReachDestructive=false', 'ReachIdempotent=true'], 'only GET and HEAD');
  assert.deepEqual(reach({ readOnly: true }, 'code'), ['ReachReadOnly=true', 'ReachDestructive=false', 'ReachIdempotent=true'], 'code mode writes them too');
  assert.deepEqual(reach({ tags: ['owners'] }), ['ReachReadOnly=true', 'ReachDestructive=false', 'ReachIdempotent=true'], 'the owners tag only reads');
});
