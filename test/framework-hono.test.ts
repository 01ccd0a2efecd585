/**
 * A real framework app: the generated MCP server driven against a Hono 4 app (test/fixtures/frameworks/hono, plain
 * JavaScript, ESM, on @hono/node-server) whose routes @hono/zod-openapi declares with zod 4 schemas: it validates each
 * request with zod, answering a failed check with the validator's default body (the ZodError, whose message is the
 * JSON text of its issues), and writes the OpenAPI 3.1 document from the same schemas at run time. The API is mounted
 * under /api and the document names its server relative to it (`servers: [{url: /api}]`). The cover upload is read
 * with `Request.formData()`, the multipart parser of Node's fetch API that fetch-style servers share.
 *
 * Two projects: one generated with `init` from the document's URL, one from a copy of the document in a file. Every
 * effect is checked in the state file the app writes after each change (and the covers' bytes in its upload folder),
 * besides the tool's answer. Each check arranges what it needs through the app's own API.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { environmentVariables } from '../src/names/environment.js';
import { connect } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import { call, success, type Answer } from './support/real-apis.js';
import { buildProjects, credentialVariable, initProject, projectDll } from './support/real-api-projects.js';
import { ensureHonoApp, honoVersions, startHono, type HonoServer, type StoredRoom } from './support/frameworks/hono.js';

const ROOM_TOOLS = ['create_room', 'create_room_cover', 'get_room', 'list_rooms'];

describe('generated MCP server against a Hono 4 app with @hono/zod-openapi (zod 4, OpenAPI 3.1, on 127.0.0.1)', { timeout: 20 * 60_000 }, () => {
  let work = '';
  let app: HonoServer | undefined;
  /** The project generated from the document's URL, started without a base URL. */
  let client: Client | undefined;
  /** The project generated from the document saved as a file, given the app's origin, and given the origin with /api. */
  let fromFile: Client | undefined;
  let fromFileWithPath: Client | undefined;
  let tools = new Set<string>();
  let document: any;
  const baseUrl = environmentVariables('Rooms').baseUrl;

  before(async () => {
    ensureHonoApp();
    work = scratchDir('framework-hono');
    app = await startHono();
    document = await (await fetch(app.documentUrl)).json();
    const saved = join(work, 'rooms-openapi.json');
    writeFileSync(saved, JSON.stringify(document, null, 2));
    for (const [spec, folder] of [[app.documentUrl, 'rooms'], [saved, 'rooms-file']] as const) {
      const init = await initProject(work, spec, 'Rooms', folder);
      assert.equal(init.code, 0, init.errors);
    }
    const output = await buildProjects(work, ['rooms/Rooms.csproj', 'rooms-file/Rooms.csproj']);
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    const keyVariable = await credentialVariable(work, 'rooms', 'Rooms');
    assert.equal(keyVariable, 'ROOMS_API_KEY');
    const key = { [keyVariable]: app.apiKey };
    [client, fromFile, fromFileWithPath] = await Promise.all([
      connect(projectDll(work, 'rooms', 'Rooms'), key),
      connect(projectDll(work, 'rooms-file', 'Rooms'), { ...key, [baseUrl]: app.origin }),
      connect(projectDll(work, 'rooms-file', 'Rooms'), { ...key, [baseUrl]: `${app.origin}/api/` }),
    ]);
    tools = new Set((await client.listTools()).tools.map((t) => t.name));
  });

  after(async () => {
    await Promise.all([client?.close(), fromFile?.close(), fromFileWithPath?.close()]);
    await app?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const tool = (name: string, args: Record<string, unknown> = {}, mcp: Client = client!): Promise<Answer> => call(mcp, tools, name, args);
  const addRoom = async (name: string, more: Record<string, unknown> = {}): Promise<number> =>
    Number((await app!.api('/rooms', { body: { name, capacity: 8, ...more } })).id);
  const room = (id: number): StoredRoom | undefined => app!.rooms().find((r) => r.id === id);

  test('the document: OpenAPI 3.1.0 with a relative server, as @hono/zod-openapi writes it; one tool per operation', () => {
    assert.deepEqual(honoVersions(), { hono: '4.13.19', '@hono/zod-openapi': '1.6.3', '@hono/node-server': '2.1.9', zod: '4.6.7' });
    assert.equal(document.openapi, '3.1.0');
    assert.deepEqual(document.servers, [{ url: '/api' }]);
    assert.deepEqual([...tools].sort(), ROOM_TOOLS);
  });

  test('read from its URL, the relative server is the default base URL: with none set, list_rooms reaches /api/rooms', async () => {
    const source = await readFile(join(work, 'rooms/Client/ApiClient.g.cs'), 'utf8');
    assert.ok(source.includes(`DefaultBaseUrl = "${app!.origin}/api";`), /DefaultBaseUrl = .*/.exec(source)?.[0]);
    const id = await addRoom('Default base URL');
    const listed = success(await tool('list_rooms')) as StoredRoom[];
    assert.ok(listed.some((r) => r.id === id), JSON.stringify(listed));
  });

  test('read from a file, the server path is kept: the setting takes the origin (or the origin with /api), and the README says so', async () => {
    const id = await addRoom('From a file');
    for (const mcp of [fromFile!, fromFileWithPath!]) {
      assert.equal((success(await tool('get_room', { id }, mcp)) as StoredRoom).name, 'From a file');
    }
    const readme = await readFile(join(work, 'rooms-file/README.md'), 'utf8');
    const row = readme.split('\n').find((line) => line.includes(`\`${baseUrl}\``) && line.startsWith('|'));
    assert.match(row ?? '', /\/api/, `the README's row of ${baseUrl}: ${row}`);
  });

  test("create_room's floor and notes: `default: null` in the argument's schema as the document writes it; left out, stored null", async () => {
    const create = (await client!.listTools()).tools.find((t) => t.name === 'create_room')!;
    const body = (create.inputSchema.properties as any).body;
    assert.equal(body.properties.floor.default, null);
    assert.ok('default' in body.properties.notes && body.properties.notes.default === null, JSON.stringify(body.properties.notes));
    const created = success(await tool('create_room', { body: { name: 'Defaults left out', capacity: 4 } })) as StoredRoom;
    assert.deepEqual({ floor: room(created.id)?.floor, notes: room(created.id)?.notes }, { floor: null, notes: null });
  });

  test("create_room refused by zod: each issue the ZodError's message lists reaches the model as `field: why`; nothing stored", async () => {
    const body = { name: '   ', capacity: 30, floor: 0 };
    await assert.rejects(app!.api('/rooms', { body }), /ZodError/);
    const answer = await tool('create_room', { body });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /name: Too small: expected string to have >=1 characters/);
    assert.match(answer.text, /capacity: the lobby \(floor 0\) seats at most 20/);
    assert.doesNotMatch(answer.text, /\\"|"path"|\[\s*\{/, answer.text);
    assert.deepEqual(app!.rooms().filter((r) => r.capacity === 30 && r.floor === 0), []);
  });

  test('create_room_cover with a file name outside ASCII and one with double quotes: stored as a browser would store it, bytes intact', async () => {
    for (const fileName of ['capa-reunião.jpg', 'Plakat – Sommer ä.png', 'say "hi".jpg']) {
      // What the app stores for the same file sent as browsers send it (Node's FormData is the WHATWG one).
      const direct = await addRoom(`Cover sent directly, named ${fileName}`);
      const form = new FormData();
      form.set('file', new File([Buffer.from('direct')], fileName, { type: 'image/jpeg' }));
      const response = await fetch(`${app!.origin}/api/rooms/${direct}/cover`, { method: 'POST', headers: { 'x-api-key': app!.apiKey }, body: form });
      assert.equal(response.status, 200, await response.text());
      assert.equal(room(direct)?.cover?.fileName, fileName);

      const id = await addRoom(`Cover named ${fileName}`);
      const bytes = Buffer.from(`cover of ${fileName}`);
      const answer = await tool('create_room_cover', { id, body: { file: { content: bytes.toString('base64'), fileName, contentType: 'image/jpeg' } } });
      assert.equal(answer.isError, false, answer.text);
      const cover = room(id)?.cover;
      assert.deepEqual({ fileName: cover?.fileName, contentType: cover?.contentType }, { fileName, contentType: 'image/jpeg' });
      assert.deepEqual(readFileSync(join(app!.uploads, cover!.storedAs)), bytes);
    }
  });

  // Held out: written after the checks above, and run once.
  test('unseen: get_room for a room that does not exist: the app\'s 404 message; list_rooms with minCapacity filters as the app does', async () => {
    const answer = await tool('get_room', { id: 987_654 });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /no such room.*\(HTTP 404\)/);
    const big = await addRoom('Big hall', { capacity: 200 });
    const listed = success(await tool('list_rooms', { minCapacity: 150 })) as StoredRoom[];
    assert.deepEqual(listed.map((r) => r.id), app!.rooms().filter((r) => r.capacity >= 150).map((r) => r.id));
    assert.ok(listed.some((r) => r.id === big));
  });
});
