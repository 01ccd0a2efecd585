/**
 * Who may reach an HTTP server (DNS-rebinding protection), on a project generated for test/fixtures/shared.yaml and
 * built once: every request's Host and Origin are checked before anything else reads it. A web page's Origin that is
 * not loopback or listed is refused; a Host that is not loopback is refused by a server listening on loopback only,
 * accepted by one listening on every address until <NAME>_ALLOWED_HOSTS lists the names; refused requests never
 * reach the API. The official MCP conformance suite's server scenarios that apply to a generated server pass,
 * DNS-rebinding protection among them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { scratchDir } from './support/scratch.js';
import { connectHttp, startReplica, type Replica } from './support/replicas.js';
import { runScenario, SERVER_SCENARIOS } from './support/conformance.js';
import { SHARED_KEYS, sharedInitArgs, sharedReplicaEnv, startSharedApi, type SharedApi } from './support/shared-api.js';

interface Answer { status: number; body: string }

/** A POST of one JSON-RPC message to `url` with exactly these headers (Host included). */
function post(url: string, headers: Record<string, string>, message: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(message);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => void (text += chunk)).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject).end(body);
  });
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'access-test', version: '1.0.0' } } };
const CALL = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_item', arguments: { id: 7 } } };

describe('Host and Origin checks of the HTTP server', () => {
  let work = '';
  let dll = '';
  let api: SharedApi;
  const replicas: Replica[] = [];

  before(async () => {
    work = scratchDir('http-access');
    api = await startSharedApi();
    assert.equal(await runCli(sharedInitArgs(join(work, 'shared')), { out: () => {}, err: () => {} }), 0);
    await promisify(execFile)('dotnet', ['build', join(work, 'shared'), '-nologo', '-v:q', '-clp:NoSummary', '-warnaserror'], { maxBuffer: 64 * 1024 * 1024 });
    dll = join(work, 'shared', 'bin/Debug', detectFramework(), 'Shared.dll');
  });

  after(async () => {
    for (const replica of replicas) replica.process.kill('SIGKILL');
    await api?.close();
  });

  const start = async (name: string, settings: Record<string, string> = {}, listen?: string): Promise<Replica> => {
    const replica = await startReplica(name, dll, { ...sharedReplicaEnv(name, api.url, 'Warning'), ...settings }, listen);
    replicas.push(replica);
    return replica;
  };
  const port = (replica: Replica): string => new URL(replica.url).port;
  /** The API's requests from `replica` so far. */
  const reached = (replica: Replica): number => api.byReplica.get(replica.name) ?? 0;

  test('listening on loopback: a foreign Origin or Host is refused with 403 and a JSON-RPC error, and nothing reaches the API', async () => {
    const local = await start('local');
    const key = { 'x-api-token': SHARED_KEYS.alice };
    const refused: Record<string, string>[] = [{ origin: 'http://evil.example' }, { host: `evil.example:${port(local)}` }, { host: 'evil.example', origin: 'http://evil.example' }, { origin: 'null' }];
    for (const headers of refused) {
      const answer = await post(`${local.url}/mcp`, { ...key, ...headers }, CALL);
      assert.equal(answer.status, 403, JSON.stringify(headers));
      const error = JSON.parse(answer.body) as { jsonrpc: string; error: { message: string } };
      assert.equal(error.jsonrpc, '2.0');
      assert.match(error.error.message, headers.origin !== undefined ? /^Forbidden: the Origin ".*" is not allowed .*SHARED_ALLOWED_ORIGINS/ : /^Forbidden: the Host "evil\.example" is not allowed .*SHARED_ALLOWED_HOSTS/);
    }
    assert.equal(reached(local), 0);
  });

  test('listening on loopback: loopback Hosts and Origins, any port, are served; a client that sends no Origin works', async () => {
    const local = replicas.find((r) => r.name === 'local') ?? await start('local');
    const served: Record<string, string>[] = [{}, { host: `localhost:${port(local)}` }, { host: `[::1]:${port(local)}` }, { origin: 'http://localhost:3000' }, { origin: `http://127.0.0.1:${port(local)}` }, { origin: 'https://[::1]' }];
    for (const headers of served) {
      assert.equal((await post(`${local.url}/mcp`, headers, INITIALIZE)).status, 200, JSON.stringify(headers));
    }
    const client = await connectHttp(local.url, { 'X-Api-Token': SHARED_KEYS.bob });
    try {
      const result = await client.callTool({ name: 'get_item', arguments: { id: 3 } });
      assert.equal(JSON.parse((result.content as { text: string }[])[0]!.text).owner, 'bob');
    } finally {
      await client.close();
    }
  });

  test('/healthz answers a probe by any Host (orchestrators reach it by address)', async () => {
    const local = replicas.find((r) => r.name === 'local') ?? await start('local');
    const answer = await new Promise<number>((resolve, reject) => request(`${local.url}/healthz`, { headers: { host: '10.1.2.3:8080' } }, (res) => resolve(res.resume().statusCode ?? 0)).on('error', reject).end());
    assert.equal(answer, 200);
  });

  test('listening on every address: any Host until the setting lists some, foreign Origins still refused', async () => {
    const open = await start('open', {}, '0.0.0.0');
    assert.equal((await post(`${open.url}/mcp`, { host: 'mcp.internal.example' }, INITIALIZE)).status, 200);
    assert.equal((await post(`${open.url}/mcp`, { host: 'mcp.internal.example', origin: 'https://evil.example' }, INITIALIZE)).status, 403);
    const listed = await start('listed', { SHARED_ALLOWED_HOSTS: 'mcp.example.com, Other.Example.com', SHARED_ALLOWED_ORIGINS: 'https://app.example.com,http://tools.example.com:8080' }, '0.0.0.0');
    const status = async (headers: Record<string, string>): Promise<number> => (await post(`${listed.url}/mcp`, headers, INITIALIZE)).status;
    assert.equal(await status({ host: 'mcp.example.com' }), 200);
    assert.equal(await status({ host: 'other.example.com:443' }), 200);
    assert.equal(await status({ host: `localhost:${port(listed)}` }), 200);
    assert.equal(await status({ host: 'mcp.internal.example' }), 403);
    assert.equal(await status({ host: 'mcp.example.com', origin: 'https://app.example.com' }), 200);
    assert.equal(await status({ host: 'mcp.example.com', origin: 'https://APP.example.com:443' }), 200);
    assert.equal(await status({ host: 'mcp.example.com', origin: 'http://tools.example.com:8080' }), 200);
    assert.equal(await status({ host: 'mcp.example.com', origin: 'https://app.example.com:8443' }), 403);
    assert.equal(await status({ host: 'mcp.example.com', origin: 'http://app.example.com' }), 403);
  });

  test('a setting that is not a list of host names or origins: one line naming it and the entry, and no start', () => {
    for (const [name, value, entry] of [['SHARED_ALLOWED_ORIGINS', 'https://app.example.com, app.example.com', 'app.example.com'], ['SHARED_ALLOWED_ORIGINS', 'https://app.example.com/mcp', 'https://app.example.com/mcp'], ['SHARED_ALLOWED_HOSTS', 'mcp.example.com:443', 'mcp.example.com:443'], ['SHARED_ALLOWED_HOSTS', 'https://mcp.example.com', 'https://mcp.example.com']] as const) {
      const run = spawnSync('dotnet', [dll, '--urls', 'http://127.0.0.1:0'], { env: { ...process.env, ...sharedReplicaEnv('bad', api.url, 'Warning'), [name]: value }, encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.equal(run.stderr.trim(), `error: ${name}: "${entry}" is not ${name.endsWith('HOSTS') ? 'a host name (give names without scheme or port, separated by commas)' : 'an origin (give scheme://host[:port], separated by commas)'}`);
    }
  });

  test(`the MCP conformance suite: ${SERVER_SCENARIOS.join(', ')} pass`, async () => {
    const local = replicas.find((r) => r.name === 'local') ?? await start('local');
    for (const scenario of SERVER_SCENARIOS) {
      const run = await runScenario(`${local.url}/mcp`, scenario);
      assert.equal(run.code, 0, `${scenario}:\n${run.output}`);
      assert.match(run.output, /Passed: (\d+)\/\1, 0 failed, 0 warnings/, `${scenario}:\n${run.output}`);
    }
  });
});
