/**
 * What framework-written documents say, through a generated server driven by the MCP client, checked on what the
 * API received byte for byte: parameters declared with `content` are one value in that media type (LoopBack's
 * `filter` and `where`, in query, path, header and cookie), a media type the client cannot write refuses the call
 * that gives it; numbers that may be strings (ASP.NET Core 10) are numbers; discriminated unions and inheritance
 * pin each alternative; multipart files carry their names and media types; a 201's Location reaches the model;
 * date-times go as written.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { callBlocks, connect, dotnetBuild, readMcpEntry } from '../examples/harness.js';
import { startDocumentsApi, type DocumentsApi, type RecordedRequest } from './fixtures/documents-api.js';
import { REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';
import { schemaProblems } from './support/schema-rules.js';

type Schema = Record<string, any>;

describe('framework-written document shapes through the generated MCP server', () => {
  let directory = '';
  let warnings = '';
  let api: DocumentsApi;
  let client: Client;
  let schemas = new Map<string, Schema>();

  before(async () => {
    directory = scratchDir('documents');
    const spec = join(REPO, 'test/fixtures/documents.yaml');
    assert.equal(await runCli(['init', '--openapi-url', spec, '--server-name', 'Documents', '--output-dir', directory], { out: () => {}, err: (t) => void (warnings += t) }), 0, warnings);
    const build = await dotnetBuild(directory);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    api = await startDocumentsApi();
    client = await connect((await readMcpEntry(directory)).entry, { DOCUMENTS_BASE_URL: api.url });
    const { tools } = await client.listTools();
    schemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema as Schema]));
  });

  after(async () => {
    await client?.close();
    await api?.close();
  });

  /** The answer's blocks, and the requests the API received during the call. */
  const call = async (name: string, args: Record<string, unknown>): Promise<{ text: string; blocks: string[]; sent: RecordedRequest[] }> => {
    const before = api.requests.length;
    const blocks = await callBlocks(client, name, args);
    return { text: blocks[0] ?? '', blocks, sent: api.requests.slice(before) };
  };
  const query = (request: RecordedRequest | undefined): [string, string][] => [...new URL(request?.url ?? '/', 'http://x').searchParams.entries()];

  test('every tool schema is one a strict client accepts', () => {
    for (const [name, schema] of schemas) assert.deepEqual(schemaProblems(name, { inputSchema: schema }), [], name);
  });

  test('a query parameter declared with content is one JSON value: LoopBack\'s filter is sent as ?filter=<JSON>, nothing spread', async () => {
    const filter = schemas.get('list_todos')!.properties.filter;
    assert.equal(filter.type, 'object');
    assert.deepEqual(Object.keys(filter.properties), ['where', 'fields', 'limit']);
    const { text, sent } = await call('list_todos', { filter: { where: { isComplete: true }, fields: ['id', 'title'] } });
    assert.equal(text, '[]');
    assert.equal(sent.length, 1);
    assert.deepEqual(query(sent[0]), [['filter', '{"where":{"isComplete":true},"fields":["id","title"]}']]);
  });

  test('a bulk update\'s where is sent whole, so that only the matched rows change', async () => {
    const { sent } = await call('patch_todos', { where: { id: { inq: [1, 2] } }, body: { desc: 'x' } });
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.method, 'PATCH');
    assert.deepEqual(query(sent[0]), [['where', '{"id":{"inq":[1,2]}}']]);
    assert.equal(sent[0]!.body.toString('utf8'), '{"desc":"x"}');
  });

  test('path, header and cookie parameters declared with content are one JSON value each; a JSON string goes as its text', async () => {
    const { sent } = await call('get_todo', { key: { list: 'a/b c', position: 2 }, xMeta: { trace: 't-1' }, prefs: ['dark', 'compact'], label: 'plain, text' });
    assert.equal(sent.length, 1);
    const [path, search] = sent[0]!.url.split('?') as [string, string];
    assert.equal(path, `/todos/${encodeURIComponent('{"list":"a/b c","position":2}')}`);
    assert.deepEqual([...new URLSearchParams(search).entries()], [['label', 'plain, text']]);
    assert.equal(sent[0]!.headers['x-meta'], '{"trace":"t-1"}');
    assert.equal(sent[0]!.headers.cookie, `prefs=${encodeURIComponent('["dark","compact"]')}`);
  });

  test('a parameter in a media type the client cannot write: the generator warns, and a call that gives it is refused, not sent', async () => {
    assert.match(warnings, /listReports|reports/);
    assert.match(warnings, /query parameter "query" is written as application\/xml, which the client cannot write/);
    const refused = await call('list_reports', { query: { q: 'sales' }, year: 2026 });
    assert.equal(refused.sent.length, 0);
    assert.match(refused.text, /^Error: GET \/reports was not sent: the query parameter 'query' is written as application\/xml, which this client cannot write/);
    const without = await call('list_reports', { year: 2026 });
    assert.equal(without.text, '[]');
    assert.deepEqual(query(without.sent[0]), [['year', '2026']]);
  });

  test('numbers that may be strings (["integer", "string"]) are numbers with their bounds, checked before the call; C# int and double', async () => {
    const body = schemas.get('create_product')!.properties.body;
    assert.deepEqual(body.properties.stock, { type: 'integer', format: 'int32', minimum: 0, maximum: 10000 });
    assert.deepEqual(body.properties.price, { type: 'number', minimum: 0 });
    assert.deepEqual(body.properties.weight, { type: ['number', 'null'] });
    assert.deepEqual(body.properties.label, { anyOf: [{ type: 'string' }, { type: 'boolean' }] });
    const refused = await call('create_product', { body: { name: 'Pen', stock: -5 } });
    assert.equal(refused.sent.length, 0);
    assert.match(refused.text, /^Error: invalid arguments for create_product: 'body\.stock' must be at least 0/);
    const created = await call('create_product', { body: { name: 'Pen', stock: 12, price: 1.5, weight: null, label: true } });
    assert.equal(created.sent[0]!.body.toString('utf8'), '{"name":"Pen","stock":12,"price":1.5,"weight":null,"label":true}');
    const models = await readFile(join(directory, 'Client/Models.g.cs'), 'utf8');
    assert.match(models, /public required int Stock \{ get; init; \}/);
    assert.match(models, /public double\? Price \{ get; init; \}/);
    assert.match(models, /public double\? Weight \{ get; init; \}/);
    assert.match(models, /public JsonElement\? Label \{ get; init; \}/);
  });

  test('a 201\'s Location reaches the model beside the answer', async () => {
    const { blocks } = await call('create_product', { body: { name: 'Ink', stock: 1 } });
    assert.equal(JSON.parse(blocks[0]!).name, 'Ink');
    assert.match(blocks[1] ?? '', /^Response headers:\nLocation: \/products\/\d+$/m);
  });

  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const valid = (schema: Schema, value: unknown): boolean => ajv.validate(schema, value) as boolean;

  test('a discriminated oneOf pins each alternative to its mapped value: an invoice payment fits one alternative and is sent whole', async () => {
    const body = schemas.get('create_payment')!.properties.body;
    assert.deepEqual(body.oneOf.map((variant: Schema) => variant.properties.kind.enum), [['card'], ['invoice']]);
    const invoice = { kind: 'invoice', amount: 12.5, invoiceNumber: 'INV-7', dueOn: '2027-01-31' };
    assert.ok(valid(body, invoice), JSON.stringify(ajv.errors));
    assert.ok(!valid(body, { ...invoice, kind: 'cash' }));
    const { text, sent } = await call('create_payment', { body: invoice });
    assert.doesNotMatch(text, /^Error/, text);
    assert.deepEqual(JSON.parse(sent[0]!.body.toString('utf8')), invoice);
    // A value that says which alternative it means hears what is wrong with it in that alternative.
    const refused = await call('create_payment', { body: { kind: 'card', amount: 3 } });
    assert.equal(refused.sent.length, 0);
    assert.match(refused.text, /^Error: invalid arguments for create_payment: 'body\.cardNumber' is required/);
  });

  test('a discriminated anyOf without a mapping pins each alternative to its schema\'s name', async () => {
    const body = schemas.get('create_settlement')!.properties.body;
    assert.deepEqual(body.anyOf.map((variant: Schema) => variant.properties.method.enum), [['Cash'], ['Cheque']]);
    assert.ok(!valid(body, { method: 'cash', amount: 3 }));
    const { sent } = await call('create_settlement', { body: { method: 'Cheque', amount: 3, chequeNumber: '001' } });
    assert.deepEqual(JSON.parse(sent[0]!.body.toString('utf8')), { method: 'Cheque', amount: 3, chequeNumber: '001' });
  });

  test('a base with a discriminator, referenced itself (allOf inheritance): any of the types that extend it, each pinned, sent whole', async () => {
    const body = schemas.get('create_refund')!.properties.body;
    assert.equal(body.oneOf.length, 2);
    assert.deepEqual(body.oneOf.map((variant: Schema) => [variant.properties.kind.enum, variant.required]), [[['card'], ['kind', 'amount', 'cardNumber']], [['invoice'], ['kind', 'amount']]]);
    const card = { kind: 'card', amount: 4, cardNumber: '4111' };
    assert.ok(valid(body, card), JSON.stringify(ajv.errors));
    const { sent } = await call('create_refund', { body: card });
    assert.deepEqual(JSON.parse(sent[0]!.body.toString('utf8')), card);
  });

  test('a multipart file carries its name and media type; without them, the field name and application/octet-stream', async () => {
    const file = schemas.get('create_upload')!.properties.body.properties.file;
    assert.equal(file.type, 'object');
    assert.deepEqual(file.required, ['content']);
    const notes = Buffer.from('first line\nsecond line\n');
    const { text, sent } = await call('create_upload', {
      body: {
        file: { content: notes.toString('base64'), fileName: 'notes.txt', contentType: 'text/plain' },
        attachments: [{ content: Buffer.from([1, 2, 3]).toString('base64') }],
        description: 'minutes',
      },
    });
    assert.doesNotMatch(text, /^Error/, text);
    const request = sent[0]!;
    const form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': String(request.headers['content-type']) }, body: new Uint8Array(request.body) }).formData();
    const stored = form.get('file') as File;
    assert.equal(stored.name, 'notes.txt');
    assert.equal(stored.type, 'text/plain');
    assert.deepEqual(Buffer.from(await stored.arrayBuffer()), notes);
    const attachment = form.get('attachments') as File;
    assert.equal(attachment.name, 'attachments');
    assert.equal(attachment.type, 'application/octet-stream');
    assert.deepEqual([...Buffer.from(await attachment.arrayBuffer())], [1, 2, 3]);
    assert.equal(form.get('description'), 'minutes');
    // As browsers send a name: in UTF-8, with no filename* (RFC 7578 rules it out, and the fetch API's parser refuses
    // it), a quote as %22. The Hono, NestJS and Fastify tests store such names.
    const dispositions = [];
    for (const fileName of ['Plakat – Sommer ä.png', 'say "hi".txt']) {
      const named = await call('create_upload', { body: { file: { content: notes.toString('base64'), fileName } } });
      assert.doesNotMatch(named.text, /^Error/, named.text);
      dispositions.push(/Content-Disposition: ([^\r\n]*)/i.exec(named.sent[0]!.body.toString('utf8'))?.[1]);
    }
    assert.deepEqual(dispositions, [
      'form-data; name="file"; filename="Plakat – Sommer ä.png"',
      'form-data; name="file"; filename="say %22hi%22.txt"',
    ]);
  });

  test('a nullable wrapper of one reference (allOf: [$ref]) is that type, not a copy of it', async () => {
    const models = await readFile(join(directory, 'Client/Models.g.cs'), 'utf8');
    assert.match(models, /public Assignee\? Owner \{ get; init; \}/);
    assert.deepEqual([...models.matchAll(/public sealed partial record (\w*Assignee\w*)/g)].map((m) => m[1]), ['Assignee']);
    assert.deepEqual(schemas.get('create_event')!.properties.body.properties.owner.type, ['object', 'null']);
  });

  test('a date-time is sent as the model wrote it, in a body and in a query; one that is not a date-time is refused', async () => {
    const created = await call('create_event', { body: { title: 'Launch', at: '2027-04-30T18:00:00.000Z' } });
    assert.equal(created.sent[0]!.body.toString('utf8'), '{"title":"Launch","at":"2027-04-30T18:00:00.000Z"}');
    const listed = await call('list_events', { since: '2020-01-01T00:00:00Z' });
    assert.deepEqual(query(listed.sent[0]), [['since', '2020-01-01T00:00:00Z']]);
    const refused = await call('list_events', { since: 'next tuesday' });
    assert.equal(refused.sent.length, 0);
    assert.match(refused.text, /^Error: invalid arguments for list_events: 'since' must be a date and time/);
  });
});
