/**
 * The shapes real APIs use, end to end: query styles, cookies, headers, JSON/form/multipart/text
 * bodies, binary/text/primitive/204 responses, allOf, oneOf, recursion, names that clash with C#.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { callText, connect, dotnetBuild, readMcpEntry } from '../examples/harness.js';
import { startKitchenSinkApi, type KitchenSinkApi } from './fixtures/kitchen-sink-api.js';
import { REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

type Schema = { type?: unknown; items?: Schema; properties?: Record<string, Schema>; additionalProperties?: unknown; oneOf?: unknown; anyOf?: unknown; allOf?: unknown };

/** Paths of array schemas without `items`. */
function arraysWithoutItems(schema: Schema, at: string): string[] {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const here = types.includes('array') && !schema.items ? [at] : [];
  const nested = Object.entries(schema.properties ?? {}).flatMap(([k, v]) => arraysWithoutItems(v, `${at}.${k}`));
  return [...here, ...nested, ...(schema.items ? arraysWithoutItems(schema.items, `${at}[]`) : [])];
}

describe('kitchen-sink API through the generated MCP server', () => {
  let directory = '';
  let api: KitchenSinkApi;
  let client: Client;

  before(async () => {
    directory = scratchDir('sink');
    const spec = join(REPO, 'test/fixtures/kitchen-sink.yaml');
    assert.equal(await runCli(['init', '--openapi-url', spec, '--server-name', 'Sink', '--output-dir', directory], { out: () => {}, err: (t) => void process.stderr.write(t) }), 0);
    const build = await dotnetBuild(directory);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    api = await startKitchenSinkApi();
    client = await connect((await readMcpEntry(directory)).entry, { SINK_BASE_URL: api.url, SINK_API_KEY: 'key-1' });
  });

  after(async () => {
    await client?.close();
    await api?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const last = (): KitchenSinkApi['requests'][number] => api.requests.at(-1)!;

  test('tool input schemas: no top-level unions, every array has items, keyword and odd names usable', async () => {
    const { tools } = await client.listTools();
    // tools/list is ordered by name (the order every page and every replica agrees on).
    assert.deepEqual(tools.map((t) => t.name), [
      'create_chart', 'create_event', 'create_file', 'create_item', 'create_shape', 'delete_item', 'get_count',
      'get_document', 'get_file', 'get_item', 'get_item_note', 'get_item_photo', 'get_task', 'get_tree', 'list_items',
      'list_reports', 'list_reports_summary', 'login', 'update_item_note', 'update_item_photo'
    ]);
    for (const tool of tools) {
      const schema = tool.inputSchema as Schema;
      assert.equal(schema.type, 'object', tool.name);
      assert.ok(!schema.oneOf && !schema.anyOf && !schema.allOf, tool.name);
      assert.deepEqual(arraysWithoutItems(schema, tool.name), []);
    }
    const list = tools.find((t) => t.name === 'list_items')!;
    assert.deepEqual(Object.keys(list.inputSchema.properties ?? {}), ['tags', 'ids', 'filter', 'sort', 'class', 'pageSize', 'xTrace', 'session']);
    const sort = list.inputSchema.properties?.sort as { description?: string; enum?: unknown[] };
    assert.deepEqual(sort.enum, ['+name', '-name', '']);
    assert.equal(sort.description, 'Query parameter sort. Default: +name.');
    const create = tools.find((t) => t.name === 'create_item')!;
    const body = (create.inputSchema.properties?.body ?? {}) as Schema;
    assert.deepEqual((body.properties?.level as { enum?: unknown[] }).enum, [1, 2, 3]);
    const get = tools.find((t) => t.name === 'get_item')!;
    assert.deepEqual(Object.keys(get.inputSchema.properties ?? {}), ['id', 'idQuery']);
    assert.deepEqual(get.inputSchema.required, ['id']);
  });

  test('query arrays (exploded and joined), deepObject, keywords, headers and cookies', async () => {
    const answer = await callText(client, 'list_items', {
      tags: ['a', 'b c'], ids: [1, 2], filter: { color: 'red', size: 2, ids: [3, 4], range: { min: 1 } }, sort: '-name', class: 'x', pageSize: 5, xTrace: 't-1', session: 's=1',
    });
    // The answer as the API sent it, its null note included.
    assert.deepEqual(JSON.parse(answer), [{ id: 'i1', name: 'Lamp', kind: 'item', note: null, owner: { name: 'Ada' } }]);
    assert.equal(last().url, '/v1/items?tags=a&tags=b%20c&ids=1%2C2&filter%5Bcolor%5D=red&filter%5Bsize%5D=2&filter%5Bids%5D=3%2C4&filter%5Brange%5D%5Bmin%5D=1&sort=-name&class=x&page%5Bsize%5D=5');
    assert.equal(last().headers['x-trace'], 't-1');
    assert.equal(last().headers.cookie, 'session=s%3D1');
  });

  test('allOf body with nested inline objects, maps, const and $ref siblings', async () => {
    const item = { name: 'Lamp', price: 9.5, tags: ['x'], meta: { a: 'b' }, dimensions: { width: 1.5 }, owner: { name: 'Ada' }, level: 2 };
    const created = JSON.parse(await callText(client, 'create_item', { body: item }));
    assert.deepEqual(JSON.parse(last().body.toString('utf8')), item);
    assert.equal(last().headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(created, { ...item, id: 'i2', created: '2024-05-06T07:08:09Z' });
  });

  test('a property given as null is sent as null (it clears a value), one not given is not sent', async () => {
    await callText(client, 'create_item', { body: { name: 'Lamp', note: null, owner: { name: 'Ada' } } });
    assert.deepEqual(JSON.parse(last().body.toString('utf8')), { name: 'Lamp', note: null, owner: { name: 'Ada' } });
    await callText(client, 'create_item', { body: { name: 'Desk' } });
    assert.deepEqual(JSON.parse(last().body.toString('utf8')), { name: 'Desk' });
  });

  test('path values are escaped into one segment; 204 gives a status', async () => {
    assert.deepEqual(JSON.parse(await callText(client, 'get_item', { id: 'a/b?c#d', idQuery: 'q' })), { id: 'a/b?c#d', name: 'Lamp' });
    assert.equal(last().url, '/v1/items/a%2Fb%3Fc%23d?id=q');
    assert.equal(await callText(client, 'delete_item', { id: '..', contentLanguage: 'de' }), '{"status":204}');
    assert.equal(last().url, '/v1/items/%2E%2E');
    // A content header goes with empty content when the request has none.
    assert.deepEqual([last().headers['content-language'], last().headers['content-length'], last().body.length], ['de', '0', 0]);
    const count = api.requests.length;
    for (const id of ['//evil.example/x', 'http://evil.example/', '../../../admin', '%2e%2e', 'a\r\nHost: evil.example']) {
      await callText(client, 'delete_item', { id });
      assert.equal(last().url, `/v1/items/${encodeURIComponent(id).replace(/^\.\.$/, '%2E%2E')}`);
    }
    assert.equal(api.requests.length, count + 5);
  });

  test('multipart upload with a file, binary download, text in and out', async () => {
    const upload = await callText(client, 'update_item_photo', { id: '1', body: { file: { content: Buffer.from('hello').toString('base64') }, caption: 'hi' } });
    assert.deepEqual(JSON.parse(upload), { size: 5, caption: 'hi' });
    assert.match(String(last().headers['content-type']), /^multipart\/form-data; boundary=/);
    // RFC 7578: names and file names are quoted strings.
    assert.match(last().body.toString('latin1'), /Content-Disposition: form-data; name="file"; filename="file"\r\n/);
    assert.match(last().body.toString('latin1'), /Content-Disposition: form-data; name="caption"\r\n/);
    assert.deepEqual(JSON.parse(await callText(client, 'get_item_photo', { id: '1' })), {
      status: 200, contentType: 'image/png', fileName: 'photo.png', length: 4, base64: Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64'),
    });
    assert.equal(await callText(client, 'get_item_note', { id: '1' }), 'a note\nwith two lines');
    assert.equal(await callText(client, 'update_item_note', { id: '1', body: 'new note' }), '{"status":204}');
    assert.equal(last().body.toString('utf8'), 'new note');
    assert.match(String(last().headers['content-type']), /^text\/plain/);
  });

  test('format: binary under */* and application/json is bytes both ways, never JSON', async () => {
    assert.deepEqual(JSON.parse(await callText(client, 'create_file', { body: Buffer.from([1, 2, 3]).toString('base64') })), { size: 3, type: 'application/octet-stream' });
    assert.deepEqual([...last().body], [1, 2, 3]);
    assert.deepEqual(JSON.parse(await callText(client, 'get_file', { name: 'x' })), { status: 200, contentType: 'application/json', length: 3, base64: Buffer.from([0x7b, 0x00, 0xff]).toString('base64') });
  });

  test('a file the spec declares under a text type (YAML) is its text; bytes that are not UTF-8 stay a file', async () => {
    assert.equal(await callText(client, 'get_document', { name: 'spec' }), 'title: "a document"\nlines:\n  - é\n');
    assert.equal(last().headers.accept, 'text/yaml');
    assert.deepEqual(JSON.parse(await callText(client, 'get_document', { name: 'bytes' })), { status: 200, contentType: 'text/yaml', length: 4, base64: Buffer.from([0xff, 0xfe, 0x00, 0x41]).toString('base64') });
  });

  test('a request body with properties that differ only in case (xAxis, xaxis); queries and fragments in path templates', async () => {
    assert.deepEqual(JSON.parse(await callText(client, 'create_chart', { body: { xAxis: 'time', xaxis: 5 } })), { xAxis: 'time', xaxis: 5 });
    assert.equal(await callText(client, 'list_reports'), 'a,b\n1,2');
    assert.equal(last().url, '/v1/reports?format=csv');
    assert.equal(last().headers.accept, 'text/csv');
    assert.deepEqual(JSON.parse(await callText(client, 'list_reports_summary', { days: 7 })), { days: 7 });
    assert.equal(last().url, '/v1/reports?days=7');
  });

  test('arguments are checked against every published constraint before anything is sent', async () => {
    const count = api.requests.length;
    const refused = async (args: Record<string, unknown>): Promise<string> => {
      const result = await client.callTool({ name: 'create_event', arguments: args });
      assert.equal(result.isError, true);
      return (result.content as { text: string }[])[0]?.text ?? '';
    };
    const body = { title: 'Launch', when: '2024-05-01T12:00:00Z' };
    const prefix = 'Error: invalid arguments for create_event: ';
    assert.equal(await refused({ day: 'tomorrow', body }), `${prefix}'day' must be a date (yyyy-MM-dd)`);
    assert.equal(await refused({ day: '2024-05-01', body: { title: 'launch party in the big hall', when: 'noon' } }),
      `${prefix}'body.title' must have at most 20 characters; 'body.title' must match the pattern ^[A-Z]; 'body.when' must be a date and time (RFC 3339, e.g. 2024-05-01T12:00:00Z)`);
    assert.equal(await refused({ day: '2024-05-01', body: { ...body, id: 'x', contact: 'nobody', link: 'not a uri', level: 'medium', size: 'huge', price: 1000, code: '***' } }),
      `${prefix}'body.id' must be a UUID; 'body.contact' must be an email address; 'body.link' must be an absolute URI; 'body.level' must be one of "low", "high"; 'body.size' must be one of "small", "large"; 'body.price' must be at least 0 and less than 1000 (not 1000); 'body.code' must be base64-encoded (padded with = to a multiple of 4 characters)`);
    assert.equal(await refused({ day: '2024-05-01', body, tags: ['red', 'red', 'pink'], limit: 7, ref: 'x' }),
      `${prefix}'tags[2]' must be one of "red", "green", "blue"; 'tags' must not repeat items; 'limit' must be a multiple of 5; 'ref' must match the pattern ^ref-[0-9]+$`);
    assert.equal(await refused({ day: '2024-05-01', body: { title: 'Launch' }, tags: [] }), `${prefix}'body.when' is required; 'body' must have at least 2 properties; 'tags' must have at least 1 items`);
    assert.equal(await refused({ day: '2024-05-01', body, limit: 0 }), `${prefix}'limit' must be more than 0 and at most 100 (not 0)`);
    assert.equal(api.requests.length, count, 'nothing was sent');
    const sent = JSON.parse(await callText(client, 'create_event', { day: '2024-05-01', body: { ...body, size: 2, slot: '7', level: 'low', code: 'AQID' }, tags: ['red', 'blue'], limit: 25, ref: 'ref-7' }));
    // "7" fits both forms of slot's oneOf as arguments are read: it is sent, for the API to read.
    // The date-time as written: not rewritten as +00:00.
    assert.deepEqual(sent, { title: 'Launch', when: '2024-05-01T12:00:00Z', level: 'low', size: 2, slot: '7', code: 'AQID' });
    assert.equal(last().url, '/v1/events/2024-05-01?tags=red&tags=blue&limit=25&ref=ref-7');
    assert.equal(last().headers['x-api-key'], 'key-1');
  });

  test('form bodies, oneOf bodies, primitive and recursive responses, names that clash with C#', async () => {
    assert.deepEqual(JSON.parse(await callText(client, 'login', { body: { user: 'u', password: 'p w', scopes: ['a', 'b'] } })), { token: 'tok-u' });
    assert.equal(last().body.toString('utf8'), 'user=u&password=p+w&scopes=a&scopes=b');
    assert.equal(Number(await callText(client, 'create_shape', { body: { kind: 'square', side: 3 } })), 9);
    assert.deepEqual(JSON.parse(last().body.toString('utf8')), { kind: 'square', side: 3 });
    assert.equal(await callText(client, 'get_count'), '42');
    assert.deepEqual(JSON.parse(await callText(client, 'get_tree')), { name: 'root', children: [{ name: 'leaf', children: [] }] });
    // The answer has no "meta", which the schema requires and which may be any JSON: it is left out again.
    assert.deepEqual(JSON.parse(await callText(client, 'get_task', { task: 'T1' })), { Task: 'named like its class', class: 'c', 'x-y': 'xy', '2nd': 'second', name: 'lower', Name: 'upper', ToString: 'ts' });
  });
});
