/**
 * Discovery mode, structured output and paged tools/list, end to end: the example project generated in both
 * modes and with --structured-output, and a synthetic 10,000-operation API, built in one `dotnet build`,
 * started as an MCP client starts them, and called against the example API on 127.0.0.1.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { searchIndexed } from '../src/emit/discovery/search-query.js';
import { stem } from '../src/emit/discovery/search-text.js';
import { discoveryListing, searchAnswer } from '../src/emit/discovery/discovery.js';
import type { SearchIndex } from '../src/emit/discovery/search-index.js';
import { detectFramework } from '../src/dotnet.js';
import { environmentVariables } from '../src/names/environment.js';
import { startPetstoreApi, type PetstoreApi } from '../examples/petstore-api.js';
import { connect } from '../examples/harness.js';
import { EXAMPLE_SPEC, REPO } from './support/golden.js';
import { writeSearchHarness } from './support/search-harness.js';
import { scratchDir } from './support/scratch.js';

const OPERATION_COUNT = 10_000;

/** An API of `count` small operations: GET and DELETE on `count / 2` resources. */
function bigSpec(count: number): unknown {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < count / 2; i++) {
    const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } };
    const ok = { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' } } } } } } };
    paths[`/things${i}/{id}`] = {
      get: { operationId: `getThing${i}`, summary: `Get thing ${i}`, parameters: [id], responses: ok },
      delete: { operationId: `deleteThing${i}`, summary: `Delete thing ${i}`, parameters: [id], responses: { 204: { description: 'Deleted' } } },
    };
  }
  return { openapi: '3.0.3', info: { title: 'Things', version: '1.0.0' }, servers: [{ url: 'http://127.0.0.1:9/' }], paths };
}

interface CallResult { content: { type: string; text?: string }[]; isError?: boolean }

describe('discovery mode, structured output and paged tools/list', () => {
  let work = '';
  let api: PetstoreApi;
  let operations: Client;
  let discovery: Client;
  let big: Client;
  let structured: Client;
  let index: SearchIndex;
  let zoomIndex: SearchIndex;

  const quiet = { out: () => {}, err: () => {} };
  const dll = (folder: string, name: string): { command: string; args: string[] } => ({ command: 'dotnet', args: [join(work, folder, 'bin/Debug', detectFramework(), `${name}.dll`)] });

  before(async () => {
    work = scratchDir('discovery');
    await writeFile(join(work, 'things.json'), JSON.stringify(bigSpec(OPERATION_COUNT)));
    const init = (spec: string, name: string, folder: string, mode: string, ...more: string[]): Promise<number> =>
      runCli(['init', '--openapi-url', spec, '--server-name', name, '--output-dir', join(work, folder), '--mode', mode, ...more], quiet);
    assert.equal(await init(EXAMPLE_SPEC, 'PetOps', 'ops', 'operations'), 0);
    assert.equal(await init(EXAMPLE_SPEC, 'PetFind', 'find', 'discovery'), 0);
    assert.equal(await init(join(work, 'things.json'), 'Things', 'things', 'operations'), 0);
    assert.equal(await init(EXAMPLE_SPEC, 'PetShape', 'shape', 'operations', '--structured-output'), 0);
    zoomIndex = JSON.parse(await writeSearchHarness(join(work, 'harness'), join(REPO, 'test/fixtures/corpus/zoom.us.json.gz'), detectFramework())) as SearchIndex;
    // One build for the projects.
    await writeFile(join(work, 'all.slnx'), `<Solution>\n${['ops/PetOps', 'find/PetFind', 'things/Things', 'shape/PetShape', 'harness/Harness'].map((p) => `  <Project Path="${p}.csproj" />\n`).join('')}</Solution>\n`);
    const build = await promisify(execFile)('dotnet', ['build', join(work, 'all.slnx'), '-warnaserror', '-nologo', '-clp:NoSummary'], { maxBuffer: 64 * 1024 * 1024 })
      .then(({ stdout }) => stdout, (error: { stdout?: string; stderr?: string }) => assert.fail(`${error.stdout ?? ''}${error.stderr ?? ''}`));
    assert.doesNotMatch(build, /warning [A-Z]+\d+/);
    index = JSON.parse(await readFile(join(work, 'find/McpSearchIndex.g.json'), 'utf8')) as SearchIndex;
    api = await startPetstoreApi();
    operations = await connect(dll('ops', 'PetOps'), { [environmentVariables('PetOps').baseUrl]: api.url });
    discovery = await connect(dll('find', 'PetFind'), { [environmentVariables('PetFind').baseUrl]: api.url });
    big = await connect(dll('things', 'Things'), {});
    structured = await connect(dll('shape', 'PetShape'), { [environmentVariables('PetShape').baseUrl]: api.url, [environmentVariables('PetShape').maxResultLength]: '1000' });
  });

  after(async () => {
    await Promise.all([operations?.close(), discovery?.close(), big?.close(), structured?.close()]);
    await api?.close();
  });

  const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallResult> =>
    (await client.callTool({ name, arguments: args })) as CallResult;
  const text = (result: CallResult): string => result.content.map((c) => c.text ?? '').join('');

  test('tools/list has exactly the three discovery tools, as report sizes them, search_operations\' description with the map of the API', async () => {
    const list = await discovery.listTools();
    assert.deepEqual(list.tools.map((t) => t.name), ['call_operation', 'describe_operation', 'search_operations']);
    assert.equal(list.nextCursor, undefined);
    assert.match(list.tools[2]?.description ?? '', /call_operation calls it\.\nTags: pets \(6\), owners \(2\)\.$/);
    const published = list.tools.map(({ name, title, description, inputSchema, annotations }) => ({ name, title, description, inputSchema, annotations }));
    const listing = discoveryListing('Tags: pets (6), owners (2).').sort((a, b) => String(a.name).localeCompare(String(b.name)));
    assert.deepEqual(published, listing);
    assert.ok(Buffer.byteLength(JSON.stringify(list)) <= 2200, `${Buffer.byteLength(JSON.stringify(list))} bytes`);
  });

  test('search with detail "full" gives each hit the inputSchema describe_operation gives, in the answer the bench sizes', async () => {
    for (const query of ['pets', 'create a pet', "an owner's pets"]) {
      const summaryText = text(await call(discovery, 'search_operations', { query }));
      const fullText = text(await call(discovery, 'search_operations', { query, detail: 'full' }));
      const full = JSON.parse(fullText) as { name: string; inputSchema?: unknown }[];
      assert.ok(full.length > 1, query);
      assert.deepEqual(full.map(({ inputSchema: _, ...hit }) => hit), JSON.parse(summaryText), 'the same hits, the same fields beside it');
      assert.equal(text(await call(discovery, 'search_operations', { query, detail: 'summary' })), summaryText, 'summary is the default');
      const schemas = new Map<string, unknown>();
      for (const hit of full) {
        const described = JSON.parse(text(await call(discovery, 'describe_operation', { name: hit.name }))) as { inputSchema: unknown };
        assert.deepEqual(hit.inputSchema, described.inputSchema, `${query}: ${hit.name}`);
        schemas.set(hit.name, described.inputSchema);
      }
      const found = searchIndexed(index, query, 10);
      assert.equal(summaryText, searchAnswer(index, found));
      assert.equal(fullText, searchAnswer(index, found, (name) => schemas.get(name)));
    }
    const created = (JSON.parse(text(await call(discovery, 'search_operations', { query: 'create pet', detail: 'full', limit: 1 }))) as { inputSchema: { required?: string[] } }[])[0];
    assert.deepEqual(created?.inputSchema.required, ['body']);
    const bad = await call(discovery, 'search_operations', { query: 'pets', detail: 'brief' });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /^Error: invalid arguments for search_operations: 'detail' /);
  });

  test('search finds the intended operation first, and ranks as the generator\'s reference search does', async () => {
    const first = async (args: Record<string, unknown>): Promise<string[]> =>
      (JSON.parse(text(await call(discovery, 'search_operations', args))) as { name: string }[]).map((r) => r.name);
    assert.equal((await first({ query: 'add a new pet' }))[0], 'create_pet');
    assert.equal((await first({ query: 'remove a pet' }))[0], 'delete_pet');
    assert.equal((await first({ query: "show an owner's pets" }))[0], 'list_owner_pets');
    assert.equal((await first({ query: 'Change the name of a pet' }))[0], 'update_pet');
    assert.deepEqual(await first({ query: 'pets', tag: 'owners' }), ['list_owner_pets', 'list_owners']);
    assert.deepEqual(await first({ query: 'pets', limit: 2 }), ['list_pets', 'list_owner_pets']);
    assert.deepEqual(await first({ query: 'zebra' }), []);
    const [created] = JSON.parse(text(await call(discovery, 'search_operations', { query: 'create pet' }))) as unknown[];
    assert.deepEqual(created, { name: 'create_pet', title: 'Create a pet', method: 'POST', path: '/pets', tags: ['pets'], summary: 'Create a pet' });
    // The server's query side (McpSearch.cs) splits, stems and scores as src/emit/discovery/search-*.ts does, and leaves out
    // the same operations below the limit (limits under the number of matches).
    for (const query of ['Creating pets', 'listOwnerPets', "owner's pets updated", 'HTTPPets deleted', 'the pet_id of a new-born cat', 'stopped running dogs']) {
      for (const limit of [1, 2, 10]) {
        const expected = searchIndexed(index, query, limit).map((i) => index.operations[i]?.[0]);
        assert.deepEqual(await first({ query, limit }), expected, `${query} (limit ${limit})`);
      }
    }
  });

  test('the server\'s search (McpSearch.cs) answers as the reference ranking does, over a real API\'s index and every request of the query sets', async () => {
    const sets = await Promise.all(['search-queries.json', 'search-queries-holdout.json', 'search-queries-blind.json', 'search-queries-gitea.json', 'search-queries-trakt.json', 'search-queries-jellyfin.json']
      .map(async (file) => (JSON.parse(await readFile(join(REPO, 'test/fixtures', file), 'utf8')) as { queries: { query: string }[] }).queries.map((q) => q.query)));
    // And the reading rules at their edges: contractions, possessives, phrasal verbs, negations, questions, past participles, sub- words, who, stop -ing, singulars, prepositions.
    const edges = ["don't send it", "what's in my inbox?", 'tear the old meeting down', 'log me out', "I can't find the subfolder’s recordings", "Who's attending?", "it's the team's webinars", "won't you delete it", 'show users without meetings', 'the deleted meetings', 'subaccounts', 'HTTPServer v2beta', '',
      'who am I following', 'who do', 'who', 'stop following the webinar', 'stop', 'stop sharing', 'put Ann on the webinar', 'remove the panelists of webinar 12', 'all webinars panelists', 'add a poll to the webinar', 'create a webinar for the user', 'invite someone to 10am', 'to'];
    const queries = [...new Set([...sets.flat(), ...edges])];
    const lines = queries.flatMap((query) => [1, 3, 10].map((limit) => `${limit}\t${query.replace(/[\t\n]/g, ' ')}`));
    const expected = lines.map((line) => {
      const [limit, query] = line.split('\t');
      return searchIndexed(zoomIndex, query ?? '', Number(limit)).map((i) => zoomIndex.operations[i]?.[0]).join(' ');
    });
    const child = spawn('dotnet', [join(work, 'harness/bin/Debug', detectFramework(), 'Harness.dll')], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end(`${lines.join('\n')}\n`);
    assert.equal(await exited, 0);
    const actual = out.split('\n').slice(0, -1);
    assert.equal(actual.length, lines.length);
    const differences = lines.flatMap((line, i) => (actual[i] === expected[i] ? [] : [`${line}: C# ${actual[i]} / TS ${expected[i]}`]));
    assert.deepEqual(differences, []);
    assert.ok(expected.filter((e) => e !== '').length > lines.length / 2, 'most requests find something');
  });

  test('the server stems every word of the dev corpus\'s operations as the generator does (Porter2: Lucene.Net\'s Snowball English and snowball-stemmers)', async () => {
    const words = gunzipSync(await readFile(join(REPO, 'test/fixtures/stem-words.txt.gz'))).toString('utf8').split('\n').slice(0, -1);
    assert.ok(words.length > 100_000, String(words.length));
    const child = spawn('dotnet', [join(work, 'harness/bin/Debug', detectFramework(), 'Harness.dll'), 'stem'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => void chunks.push(chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end(`${words.join('\n')}\n`);
    assert.equal(await exited, 0);
    const actual = Buffer.concat(chunks).toString('utf8').split('\n').slice(0, -1);
    assert.equal(actual.length, words.length);
    const differences = words.flatMap((word, i) => (actual[i] === stem(word) ? [] : [`${word}: C# ${actual[i]} / TS ${stem(word)}`]));
    assert.deepEqual(differences.slice(0, 20), []);
    // Word forms that the light stemmer before it kept apart meet.
    for (const [word, form] of [['remind', 'reminder'], ['follow', 'followers'], ['generous', 'generously']]) assert.equal(stem(word ?? ''), stem(form ?? ''), word);
  });

  test('describe_operation gives the operation tool\'s own title, description, input schema and annotations', async () => {
    const own = (await operations.listTools()).tools.find((t) => t.name === 'list_pets');
    const described = JSON.parse(text(await call(discovery, 'describe_operation', { name: 'list_pets' }))) as Record<string, unknown>;
    assert.deepEqual(described, { name: 'list_pets', title: own?.title, method: 'GET', path: '/pets', description: own?.description, inputSchema: own?.inputSchema, annotations: own?.annotations });
  });

  test('call_operation answers exactly as the operation\'s own tool: success, not found, invalid arguments, bad request', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['list_pets', { species: 'cat', limit: 10 }],
      ['get_pet', { petId: 1 }],
      ['get_pet', { petId: 99999 }],
      ['get_pet', { petId: 'one' }],
      ['list_pets', { limit: 500 }],
      ['get_pet', {}],
      ['list_owners', {}],
    ];
    for (const [name, args] of cases) {
      const direct = await call(operations, name, args);
      const through = await call(discovery, 'call_operation', { name, arguments: args });
      assert.deepEqual(through, direct, `${name} ${JSON.stringify(args)}`);
    }
    assert.match(text(await call(operations, 'get_pet', { petId: 99999 })), /^Error: .*404/);
  });

  test('an unknown operation name answers with the nearest names', async () => {
    for (const tool of ['describe_operation', 'call_operation']) {
      const result = await call(discovery, tool, { name: 'get_pets' });
      assert.equal(result.isError, true);
      assert.equal(text(result), "Error: no operation named 'get_pets'; did you mean 'get_pet', 'list_pets', 'create_pet'? (search_operations finds operations by what they do)");
    }
    const bad = await call(discovery, 'search_operations', { query: 'pets', limit: 51 });
    assert.equal(text(bad), "Error: invalid arguments for search_operations: 'limit' must be at least 1 and at most 50 (not 51)");
    const long = await call(discovery, 'search_operations', { query: 'set up '.repeat(200) });
    assert.equal(long.isError, true);
    assert.match(text(long), /^Error: invalid arguments for search_operations: 'query' must have at most 1000 characters/);
  });

  test('--structured-output: outputSchema on tools with a JSON answer, structuredContent that fits it, the same text as without', async () => {
    // The SDK client checks structuredContent against outputSchema itself, and fails a call whose does not fit.
    const tools = new Map((await structured.listTools()).tools.map((t) => [t.name, t]));
    assert.deepEqual(tools.get('get_pet')?.outputSchema?.type, 'object');
    assert.deepEqual(Object.keys(tools.get('list_pets')?.outputSchema?.properties ?? {}), ['result'], 'an array answer is {result: […]}');
    assert.equal(tools.get('delete_pet')?.outputSchema, undefined, 'no JSON answer, no outputSchema');
    assert.equal((await operations.listTools()).tools.some((t) => t.outputSchema !== undefined), false, 'off by default');
    const pet = await call(structured, 'get_pet', { petId: 1 }) as CallResult & { structuredContent?: unknown };
    assert.deepEqual(pet.structuredContent, JSON.parse(text(pet)));
    assert.deepEqual(pet.content, (await call(operations, 'get_pet', { petId: 1 })).content);
    const list = await call(structured, 'list_pets', { limit: 10 }) as CallResult & { structuredContent?: unknown };
    assert.deepEqual(list.structuredContent, { result: JSON.parse(text(list)) });
    const missing = await call(structured, 'get_pet', { petId: 99999 }) as CallResult & { structuredContent?: unknown };
    assert.equal(missing.isError, true);
    assert.equal(missing.structuredContent, undefined);
    // An answer cut at the result limit (1,000 characters here) is not whole JSON: its structuredContent is {}.
    for (let i = 0; i < 20; i++) await call(operations, 'create_pet', { body: { name: `Pet number ${i} with a long name`, species: 'dog' } });
    const cut = await call(structured, 'list_pets', { limit: 100 }) as CallResult & { structuredContent?: unknown };
    assert.match(text(cut), /\[truncated: /);
    assert.deepEqual(cut.structuredContent, {});
  });

  test(`tools/list of ${OPERATION_COUNT.toLocaleString('en-US')} operations comes in bounded pages, in name order, each tool once`, async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await big.listTools(cursor === undefined ? {} : { cursor });
      pages++;
      assert.ok(page.tools.length <= 200, `page ${pages}: ${page.tools.length} tools`);
      assert.ok(Buffer.byteLength(JSON.stringify(page.tools)) <= 256 * 1024, `page ${pages} bytes`);
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    assert.equal(names.length, OPERATION_COUNT);
    assert.equal(new Set(names).size, OPERATION_COUNT);
    assert.deepEqual(names, [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    assert.equal(pages, OPERATION_COUNT / 200);
    assert.ok(names.includes('get_things_4999') && names.includes('delete_things_0'), names.slice(0, 3).join());
    await assert.rejects(big.listTools({ cursor: '%%%' }), /Invalid cursor "%%%"/);
  });
});
