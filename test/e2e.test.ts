/**
 * End to end: `init` the example, build it with -warnaserror, launch it from its mcp.json entry
 * with the MCP SDK client, and call the tools against live HTTP servers on 127.0.0.1.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { prepare, runCli } from '../src/index.js';
import { reportSelection } from '../src/report.js';
import { detectFramework } from '../src/dotnet.js';
import { startPetstoreApi, type PetstoreApi } from '../examples/petstore-api.js';
import { callText, connect, dotnetBuild, readMcpEntry, type ServerEntry } from '../examples/harness.js';
import { EXAMPLE_SPEC } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

interface Tool {
  name: string;
  description?: string;
  inputSchema: { properties?: Record<string, { type?: unknown; description?: string; properties?: Record<string, unknown>; required?: string[] }>; required?: string[] };
  annotations?: Record<string, unknown>;
}

describe('generated Petstore server, driven by an MCP client', () => {
  let directory = '';
  let entry: ServerEntry;
  let api: PetstoreApi;
  let client: Client;
  let tools: Tool[] = [];

  before(async () => {
    directory = scratchDir('e2e');
    assert.equal(await runCli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', directory], { out: () => {}, err: (t) => void process.stderr.write(t) }), 0);
    const build = await dotnetBuild(directory);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    ({ entry } = await readMcpEntry(directory));
    api = await startPetstoreApi();
    client = await connect(entry, { PETSTORE_BASE_URL: api.url });
    tools = (await client.listTools()).tools as Tool[];
  });

  after(async () => {
    await client?.close();
    await api?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  test('mcp.json launches the project with dotnet run --project <absolute dir>', () => {
    assert.deepEqual(entry, { command: 'dotnet', args: ['run', '--project', directory] });
  });

  test('tools/list: names, descriptions, input schemas, required lists, annotations', () => {
    const byName = new Map(tools.map((t) => [t.name, t]));
    // Ordered by name: the order every tools/list page agrees on.
    assert.deepEqual([...byName.keys()], ['create_pet', 'delete_pet', 'get_pet', 'list_owner_pets', 'list_owners', 'list_pets', 'update_pet']);
    const list = byName.get('list_pets')!;
    assert.match(list.description ?? '', /^List pets\n\nReturns all pets/);
    assert.deepEqual(Object.keys(list.inputSchema.properties ?? {}), ['species', 'limit', 'xRequestId']);
    assert.equal(list.inputSchema.required, undefined);
    const species = list.inputSchema.properties?.species as { enum?: unknown[]; description?: string };
    assert.deepEqual(species.enum, ['dog', 'cat', 'bird']);
    assert.equal(species.description, 'Only return pets of this species.');
    const limit = list.inputSchema.properties?.limit as { minimum?: number; maximum?: number; description?: string };
    assert.equal(limit.description, 'Maximum number of pets to return (1-100). Default: 20.');
    assert.deepEqual([limit.minimum, limit.maximum], [1, 100]);
    assert.deepEqual(list.annotations, { title: 'List pets', readOnlyHint: true, destructiveHint: false, idempotentHint: true });

    const get = byName.get('get_pet')!;
    assert.deepEqual(get.inputSchema.required, ['petId']);
    assert.deepEqual(Object.keys(get.inputSchema.properties ?? {}), ['petId']);

    const create = byName.get('create_pet')!;
    assert.deepEqual(create.inputSchema.required, ['body']);
    const body = create.inputSchema.properties?.body;
    assert.deepEqual(Object.keys(body?.properties ?? {}), ['name', 'species', 'tag', 'ownerId']);
    assert.deepEqual(body?.required, ['name', 'species']);
    assert.deepEqual((body?.properties?.species as { enum?: unknown[] }).enum, ['dog', 'cat', 'bird']);
    assert.equal(create.annotations?.readOnlyHint, false);

    assert.deepEqual(byName.get('update_pet')!.inputSchema.required, ['petId', 'body']);
    assert.equal(byName.get('update_pet')!.annotations?.idempotentHint, true);
    assert.equal(byName.get('delete_pet')!.annotations?.destructiveHint, true);
    for (const tool of tools) {
      const names = Object.keys(tool.inputSchema.properties ?? {});
      assert.ok(!names.includes('httpClient') && !names.includes('cancellationToken'), tool.name);
      assert.match(tool.name, /^[a-z0-9_]{1,64}$/);
    }
  });

  test('report estimates the tools/list size the SDK publishes (within 10%)', async () => {
    const actual = Buffer.byteLength(JSON.stringify(tools));
    const estimate = reportSelection(await prepare(EXAMPLE_SPEC), {}).bytes;
    assert.ok(Math.abs(estimate - actual) / actual < 0.1, `estimate ${estimate} bytes, actual ${actual} bytes`);
  });

  test('create, get, list with a query filter, update, delete', async () => {
    const created = JSON.parse(await callText(client, 'create_pet', { body: { name: 'Nala', species: 'cat', tag: 'new' } }));
    // The answer as the API sent it, its null ownerId included.
    assert.deepEqual(created, { id: 4, name: 'Nala', species: 'cat', tag: 'new', ownerId: null });
    const last = api.requests.at(-1)!;
    assert.equal(last.method, 'POST');
    assert.equal(last.path, '/api/pets');
    assert.deepEqual(JSON.parse(last.body), { name: 'Nala', species: 'cat', tag: 'new' });

    assert.deepEqual(JSON.parse(await callText(client, 'get_pet', { petId: 4 })), created);
    assert.equal(api.requests.at(-1)!.path, '/api/pets/4');

    const cats = JSON.parse(await callText(client, 'list_pets', { species: 'cat', limit: 10, xRequestId: 'req-42' })) as { name: string }[];
    assert.deepEqual(cats.map((p) => p.name), ['Tom', 'Nala']);
    assert.equal(api.requests.at(-1)!.path, '/api/pets?species=cat&limit=10');
    assert.equal(api.requests.at(-1)!.headers['x-request-id'], 'req-42');

    const updated = JSON.parse(await callText(client, 'update_pet', { petId: 4, body: { tag: 'adopted' } }));
    assert.equal(updated.tag, 'adopted');
    assert.equal(api.requests.at(-1)!.method, 'PUT');

    assert.equal(await callText(client, 'delete_pet', { petId: 4 }), '{"status":204}');
    assert.equal(api.requests.at(-1)!.method, 'DELETE');

    const dogs = JSON.parse(await callText(client, 'list_owner_pets', { ownerId: 1 })) as { name: string }[];
    assert.deepEqual(dogs.map((p) => p.name), ['Rex']);
    assert.equal(api.requests.at(-1)!.path, '/api/owners/1/pets');
  });

  test('a 404 says what was not found and is flagged isError; a 400 carries the problem+json title and detail', async () => {
    const notFound = await client.callTool({ name: 'get_pet', arguments: { petId: 42 } });
    assert.deepEqual([notFound.isError, (notFound.content as { text: string }[])[0]?.text], [true, 'Error: Pet 42 not found (HTTP 404)']);
    assert.equal(await callText(client, 'create_pet', { body: { name: ' ', species: 'cat' } }), 'Error: Invalid pet: name is required (HTTP 400)');
    assert.equal(await callText(client, 'list_owner_pets', { ownerId: 9 }), 'Error: Owner 9 not found (HTTP 404)');
  });

  test('arguments outside the published constraints are refused before anything is sent', async () => {
    const count = api.requests.length;
    assert.equal(await callText(client, 'create_pet', { body: { name: 'Nemo', species: 'fish' } }), `Error: invalid arguments for create_pet: 'body.species' must be one of "dog", "cat", "bird"`);
    assert.equal(await callText(client, 'list_pets', { limit: 500, species: 'dog&limit=1' }), `Error: invalid arguments for list_pets: 'limit' must be at least 1 and at most 100 (not 500); 'species' must be one of "dog", "cat", "bird"`);
    assert.equal(await callText(client, 'list_pets', { xRequestId: 'a\r\nX-Injected: 1' }), "Error: GET /pets was not sent: the header 'X-Request-Id' must not contain line breaks");
    assert.equal(api.requests.length, count);
  });

  test('arguments the SDK cannot bind get an Error: that says which and why', async () => {
    const answer = async (name: string, args: Record<string, unknown>): Promise<[boolean, string]> => {
      const result = await client.callTool({ name, arguments: args });
      return [result.isError === true, (result.content as { text: string }[])[0]?.text ?? ''];
    };
    assert.deepEqual(await answer('get_pet', {}), [true, "Error: invalid arguments for get_pet: 'petId' is required"]);
    assert.deepEqual(await answer('get_pet', { petId: 'seven' }), [true, "Error: invalid arguments for get_pet: 'petId' must be an integer"]);
    assert.deepEqual(await answer('create_pet', { body: { tag: 'x' } }), [true, "Error: invalid arguments for create_pet: 'body.name' is required; 'body.species' is required"]);
    assert.deepEqual(await answer('create_pet', { body: 'Rex the dog' }), [true, "Error: invalid arguments for create_pet: 'body' must be an object"]);
    assert.equal(JSON.parse((await answer('get_pet', { petId: '1' }))[1]).name, 'Rex');
  });

  test('the server keeps serving after failures', async () => {
    const owners = JSON.parse(await callText(client, 'list_owners')) as { name: string }[];
    assert.deepEqual(owners.map((o) => o.name), ['Ada', 'Linus']);
  });

  test('serverInfo carries the icon: the spec\'s logo, else PETSTORE_ICON_URL; a setting that is no image URL stops the start', async () => {
    assert.deepEqual(client.getServerVersion()?.icons, [{ src: 'https://petstore.example/logo.png', mimeType: 'image/png' }]);
    const icon = 'data:image/svg+xml;base64,PHN2Zy8+';
    const other = await connect(entry, { PETSTORE_BASE_URL: api.url, PETSTORE_ICON_URL: icon });
    try {
      assert.deepEqual(other.getServerVersion()?.icons, [{ src: icon, mimeType: 'image/svg+xml' }]);
    } finally {
      await other.close();
    }
    const dll = join(directory, 'bin/Debug', detectFramework(), 'Petstore.dll');
    // As the spec's logo: an https URL or a data: URI of an image, nothing a client would load as a page or over plain http.
    for (const setting of ['javascript:alert(1)', 'http://petstore.example/logo.png', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==', `data:image/png;base64,${'A'.repeat(40_000)}`]) {
      const refused = spawnSync('dotnet', [dll], { env: { ...process.env, PETSTORE_ICON_URL: setting }, encoding: 'utf8', input: '' });
      assert.deepEqual([refused.status, refused.stderr.trim()], [1, `error: PETSTORE_ICON_URL "${setting}" is not an https URL or a data: URI of a PNG, JPEG, SVG or WebP image (of at most 32768 characters)`]);
    }
  });

  test('an unreachable API gives an Error: string, not an exception', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const offline = await connect(entry, { PETSTORE_BASE_URL: `http://127.0.0.1:${port}/api` });
    try {
      const result = await offline.callTool({ name: 'list_pets', arguments: {} });
      assert.equal(result.isError, true);
      const text = (result.content as { text: string }[])[0]?.text ?? '';
      assert.match(text, new RegExp(`^Error: GET /pets could not reach the API at http://127\\.0\\.0\\.1:${port}/api/: .*refused`, 'i'));
      assert.doesNotMatch(text, /\(HTTP \d+\)/);
    } finally {
      await offline.close();
    }
  });

  test('error messages: problem+json, error objects, errors arrays, plain text, HTML, empty bodies, Retry-After, invalid JSON, 3xx the client does not follow', async () => {
    const canned: Record<string, { status: number; type?: string; body: string; headers?: Record<string, string> }> = {
      '1': { status: 404, type: 'application/problem+json', body: JSON.stringify({ title: 'Not Found', status: 404, detail: 'No pet with id 1' }) },
      '2': { status: 404, body: '' },
      '3': { status: 500, type: 'text/html', body: '<html><body><h1>Internal Server Error</h1></body></html>' },
      '4': { status: 422, type: 'application/json', body: JSON.stringify({ errors: [{ message: 'name is too long' }, { message: 'tag is invalid' }] }) },
      '5': { status: 409, type: 'application/json', body: JSON.stringify({ error: { code: 'conflict', message: 'Version conflict' } }) },
      '6': { status: 429, type: 'text/plain', body: 'slow down', headers: { 'retry-after': '30' } },
      '7': { status: 200, type: 'application/json', body: 'not json{' },
      '8': { status: 404, type: 'application/json', body: JSON.stringify({ error: 'Not Found' }) },
      '9': { status: 503, type: 'application/json', body: '{}' },
      '10': { status: 302, body: '' },
      '11': { status: 304, body: '' },
      '12': { status: 300, body: '' },
    };
    const server: Server = createServer((request, response) => {
      const reply = canned[request.url?.split('/').pop() ?? ''] ?? { status: 418, body: '' };
      response.writeHead(reply.status, { ...(reply.type && { 'content-type': reply.type }), ...reply.headers });
      response.end(reply.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const misbehaving = await connect(entry, { PETSTORE_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api` });
    try {
      const answers: string[] = [];
      for (const id of Object.keys(canned)) answers.push(await callText(misbehaving, 'get_pet', { petId: Number(id) }));
      assert.deepEqual(answers.slice(0, 6), [
        'Error: Not Found: No pet with id 1 (HTTP 404)',
        'Error: Pet not found: GET /pets/2 (HTTP 404)',
        'Error: The API failed on GET /pets/3: Internal Server Error (HTTP 500)',
        'Error: name is too long; tag is invalid (HTTP 422)',
        'Error: Version conflict (HTTP 409)',
        'Error: slow down; retry after 30 seconds (HTTP 429)',
      ]);
      // A success the API labels JSON but which is not: what it sent, as text.
      assert.equal(answers[6], 'not json{');
      assert.equal(answers[7], 'Error: Pet not found: GET /pets/8 (HTTP 404)');
      assert.equal(answers[8], 'Error: The API failed on GET /pets/9: Service Unavailable (HTTP 503)');
      assert.deepEqual(answers.slice(9), [
        'Error: GET /pets/10 answered a redirect (Found) without a Location header (HTTP 302)',
        'Error: GET /pets/11 answered that the pet has not changed (not modified) (HTTP 304)',
        'Error: GET /pets/12 has several representations and the API did not choose one (HTTP 300)',
      ]);
    } finally {
      await misbehaving.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('init --launch dll: the entry starts the Release build directly', () => {
  test('mcp.json names the DLL, the summary says to build Release, and the entry serves tools', async () => {
    const directory = scratchDir('dll');
    const api = await startPetstoreApi();
    let client: Client | undefined;
    try {
      let out = '';
      const code = await runCli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', directory, '--framework', 'net10.0', '--launch', 'dll'], { out: (t) => void (out += t), err: (t) => void process.stderr.write(t) });
      assert.equal(code, 0);
      const dll = join(directory, 'bin', 'Release', 'net10.0', 'Petstore.dll');
      const { entry } = await readMcpEntry(directory);
      assert.deepEqual(entry, { command: 'dotnet', args: [dll] });
      assert.match(out, new RegExp(`Build it: dotnet build -c Release ${JSON.stringify(directory).replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}`));
      assert.ok(out.includes(`claude mcp add petstore -- dotnet ${JSON.stringify(dll)}`), out);
      const build = await dotnetBuild(directory, 'Release');
      assert.ok(build.ok, build.output);
      client = await connect(entry, { PETSTORE_BASE_URL: api.url });
      assert.equal((await client.listTools()).tools.length, 7);
      assert.match(await callText(client, 'get_pet', { petId: 1 }), /"name":\s*"Rex"/);
    } finally {
      await client?.close();
      await api.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
