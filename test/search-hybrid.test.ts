/**
 * The hybrid search (`--search hybrid`): Alertmanager's API (test/fixtures/real-apis) generated in discovery and in
 * code mode with it, built once each (no warnings); the build writes the operations' vectors and publish takes them
 * along; a real MCP client's search finds an operation from a request that shares no word with it, which the lexical
 * search (the generator's reference ranking, and the same server without its vectors) does not find; without the
 * vectors file the server says so in its log and answers with the lexical ranking; tag and limit apply to it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { searchIndexed } from '../src/emit/discovery/search-query.js';
import type { SearchIndex } from '../src/emit/discovery/search-index.js';
import { callText, connect, dotnetBuild, serverLog } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';

const run = promisify(execFile);
const SPEC = 'test/fixtures/real-apis/alertmanager-v0.25.0.yaml';
/** Shares no word, after stemming and the thesaurus, with DELETE /silence/{silenceID} (delete_silence, no summary). */
const REQUEST = 'unmute the disk warning';
const MEANT = 'delete_silence';
const quiet = { out: () => {}, err: () => {} };

interface Built { dir: string; out: string; dll: string }

async function generateAndBuild(name: string, mode: string): Promise<Built> {
  const dir = scratchDir(`hybrid-${mode}`);
  assert.equal(await runCli(['init', '--openapi-url', SPEC, '--server-name', name, '--output-dir', dir, '--mode', mode, '--search', 'hybrid'], quiet), 0);
  const build = await dotnetBuild(dir);
  assert.ok(build.ok, build.output);
  assert.equal(build.warnings, 0, build.output);
  const out = join(dir, 'bin/Debug', detectFramework());
  return { dir, out, dll: join(out, `${name}.dll`) };
}

let discovery: Built;
let code: Built;
const clients: Client[] = [];

async function start(built: Built, prefix: string): Promise<Client> {
  const client = await connect({ command: 'dotnet', args: [built.dll] }, { [`${prefix}_BASE_URL`]: 'http://127.0.0.1:9/' });
  clients.push(client);
  return client;
}

/** The server's log once it matches `pattern` (the console logger writes in the background), within 10 s. */
async function logMatching(client: Client, pattern: RegExp): Promise<string> {
  for (let waited = 0; waited < 10_000 && !pattern.test(serverLog(client)); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  return serverLog(client);
}

async function search(client: Client, query: string): Promise<string[]> {
  return (JSON.parse(await callText(client, 'search_operations', { query })) as { name: string }[]).map((hit) => hit.name);
}

before(async () => {
  [discovery, code] = await Promise.all([generateAndBuild('Alerts', 'discovery'), generateAndBuild('AlertsCode', 'code')]);
});

after(async () => {
  for (const client of clients) await client.close();
});

test('--search hybrid needs discovery or code mode, and is recorded for regenerate', async () => {
  const errors: string[] = [];
  const code = await runCli(['init', '--openapi-url', SPEC, '--server-name', 'Ops', '--output-dir', scratchDir('hybrid-ops'), '--search', 'hybrid'], { out: () => {}, err: (text) => void errors.push(text) });
  assert.notEqual(code, 0);
  assert.match(errors.join(''), /--search hybrid: operations mode has no search/);
  const record = JSON.parse(readFileSync(join(discovery.dir, 'openapi-mcp.json'), 'utf8')) as { options: { search?: string } };
  assert.equal(record.options.search, 'hybrid');
});

test('the build writes the operations\' vectors of the embedded index, and publish takes them along', async () => {
  const vectors = join(discovery.out, 'McpSearchEmbeddings.bin');
  const index = JSON.parse(readFileSync(join(discovery.dir, 'McpSearchIndex.g.json'), 'utf8')) as SearchIndex;
  const bytes = readFileSync(vectors);
  assert.equal(bytes.subarray(0, 4).toString('ascii'), 'MCPV');
  assert.equal(bytes.readInt32LE(8), index.operations.length);
  assert.equal(bytes.readInt32LE(12), 384);
  // Header, a scale per operation, 384 int8 components per operation.
  assert.equal(statSync(vectors).size, 16 + 32 + index.operations.length * (4 + 384));
  const published = scratchDir('hybrid-published');
  await run('dotnet', ['publish', discovery.dir, '--no-build', '-c', 'Debug', '-nologo', '-v:q', '-o', published], { maxBuffer: 16 * 1024 * 1024 });
  assert.deepEqual(readFileSync(join(published, 'McpSearchEmbeddings.bin')), bytes);
});

test('a request in none of the operation\'s words: the hybrid search finds it first, the lexical search not at all', async () => {
  const index = JSON.parse(readFileSync(join(discovery.dir, 'McpSearchIndex.g.json'), 'utf8')) as SearchIndex;
  const lexical = searchIndexed(index, REQUEST, 10).map((i) => index.operations[i]?.[0]);
  assert.ok(!lexical.includes(MEANT), `the lexical search found ${MEANT}: ${lexical.join(', ')}`);
  const client = await start(discovery, 'ALERTS');
  assert.equal((await search(client, REQUEST))[0], MEANT, serverLog(client));
  // A request in the API's own words is still answered as the lexical search answers it first.
  assert.equal((await search(client, 'list silences'))[0], 'list_silences');
  assert.match(await logMatching(client, /Hybrid search ready/), /Hybrid search ready/);
});

test('tag and limit apply to the hybrid search as to the lexical one', async () => {
  const client = await start(discovery, 'ALERTS');
  const answer = async (args: Record<string, unknown>): Promise<{ name: string; tags: string[] }[]> =>
    JSON.parse(await callText(client, 'search_operations', { query: REQUEST, ...args })) as { name: string; tags: string[] }[];
  // Silences: delete_silence still first, and only the four silence operations, though the cosine ranking orders all nine.
  const silences = await answer({ tag: 'silence' });
  assert.equal(silences[0]?.name, MEANT, JSON.stringify(silences));
  assert.deepEqual(silences.map((hit) => hit.tags), [['silence'], ['silence'], ['silence'], ['silence']]);
  // Another tag: none of the silences, whatever their cosine.
  const alerts = await answer({ tag: 'alert' });
  assert.ok(alerts.length > 0 && alerts.every((hit) => hit.tags.includes('alert')), JSON.stringify(alerts));
  assert.equal((await answer({ limit: 2 })).length, 2);
});

test('code mode\'s search_operations is the hybrid search too', async () => {
  const client = await start(code, 'ALERTS_CODE');
  assert.equal((await search(client, REQUEST))[0], MEANT, serverLog(client));
});

test('without the vectors file the server logs it and answers with the lexical ranking', async () => {
  const vectors = join(discovery.out, 'McpSearchEmbeddings.bin');
  renameSync(vectors, `${vectors}.away`);
  try {
    const client = await start(discovery, 'ALERTS');
    const index = JSON.parse(readFileSync(join(discovery.dir, 'McpSearchIndex.g.json'), 'utf8')) as SearchIndex;
    for (const query of [REQUEST, 'list silences', 'create an alert']) {
      assert.deepEqual(await search(client, query), searchIndexed(index, query, 10).map((i) => index.operations[i]?.[0]), query);
    }
    assert.match(await logMatching(client, /Hybrid search off/), /Hybrid search off, search_operations answers with the lexical ranking: .*McpSearchEmbeddings\.bin is missing/);
  } finally {
    renameSync(`${vectors}.away`, vectors);
  }
  assert.ok(existsSync(vectors));
});
