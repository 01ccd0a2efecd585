/**
 * `--transport http` and `--forward-auth`, end to end: a project generated for test/fixtures/shared.yaml, built
 * once, run as two replicas behind nginx (round robin) on 127.0.0.1, called with the SDK's Streamable HTTP
 * client. Each caller's own key reaches the API and nowhere else; 1,000 calls with 100 in flight are all
 * answered, right, by both replicas; a replica killed mid-run fails only the calls it was serving.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { scratchDir } from './support/scratch.js';
import { connectHttp, runCalls, startNginx, startReplica, type Balancer, type Replica } from './support/replicas.js';
import { FORWARD_HEADER as HEADER, SHARED_KEYS as KEYS, SHARED_SPEC as SPEC, sharedInitArgs, sharedReplicaEnv, startSharedApi, type SharedApi } from './support/shared-api.js';

describe('HTTP transport behind a load balancer', () => {
  let work = '';
  let api: SharedApi;
  let replicas: Replica[] = [];
  let balancer: Balancer | undefined;
  const clients: Client[] = [];

  before(async () => {
    work = scratchDir('http');
    api = await startSharedApi();
    let out = '';
    assert.equal(await runCli(sharedInitArgs(join(work, 'shared')), { out: (t) => void (out += t), err: () => {} }), 0);
    assert.match(out, /claude mcp add --transport http shared http:\/\/localhost:5000\/mcp --header "X-Api-Token: <your-api-credential>"/);
    const mcp = JSON.parse(await readFile(join(work, 'shared', 'mcp.json'), 'utf8')) as unknown;
    assert.deepEqual(mcp, { mcpServers: { shared: { type: 'http', url: 'http://localhost:5000/mcp', headers: { [HEADER]: '<your-api-credential>' } } } });
    await promisify(execFile)('dotnet', ['build', join(work, 'shared'), '-nologo', '-v:q', '-clp:NoSummary', '-warnaserror'], { maxBuffer: 64 * 1024 * 1024 });
    const dll = join(work, 'shared', 'bin/Debug', detectFramework(), 'Shared.dll');
    // No credential in the settings: each caller brings their own. Each replica tells the API who it is.
    replicas = await Promise.all(['a', 'b'].map((name) => startReplica(name, dll, sharedReplicaEnv(name, api.url, 'Information'))));
    balancer = await startNginx(join(work, 'nginx'), replicas.map((r) => r.url));
  });

  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    balancer?.stop();
    for (const replica of replicas) replica.process.kill('SIGKILL');
    await api?.close();
  });

  const client = async (headers: Record<string, string>): Promise<Client> => {
    const c = await connectHttp(balancer?.url ?? '', headers);
    clients.push(c);
    return c;
  };

  test('/healthz answers through the balancer, and tools/list has the operations', async () => {
    const health = await fetch(`${balancer?.url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), 'ok');
    const alice = await client({ [HEADER]: KEYS.alice });
    assert.deepEqual((await alice.listTools()).tools.map((t) => t.name).sort(), ['get_health', 'get_item']);
  });

  test("each call carries its caller's own key, redacted from what comes back; a call without one is an error naming the header", async () => {
    const alice = await client({ [HEADER]: KEYS.alice });
    const bob = await client({ [HEADER]: `Bearer ${KEYS.bob}` });
    const anonymous = await client({});
    // Interleaved, so that a value kept across calls would show.
    const results = await runCalls(alice, 'get_item', 1, 1, () => ({ id: 1 }));
    const both = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => (i % 2 === 0 ? alice : bob).callTool({ name: 'get_item', arguments: { id: i, delayMs: 50 } })));
    for (const [i, result] of both.entries()) {
      const text = (result.content as { text: string }[])[0]?.text ?? '';
      const owner = (i + 1) % 2 === 0 ? 'alice' : 'bob';
      assert.equal(result.isError, undefined, text);
      assert.deepEqual(JSON.parse(text), { id: i + 1, owner, key: '[redacted]' }, 'the answer echoes the key: it is redacted');
    }
    assert.equal(results[0]?.ok, true, results[0]?.text);
    assert.ok(!results[0]?.text.includes(KEYS.alice));
    const keysBefore = api.keys.length;
    const refused = await anonymous.callTool({ name: 'get_item', arguments: { id: 1 } });
    assert.equal(refused.isError, true);
    assert.match((refused.content as { text: string }[])[0]?.text ?? '', /was not sent: it needs the caller's API credential: send it in the X-Api-Token header of the MCP request/);
    assert.equal(api.keys.length, keysBefore, 'nothing reached the API');
    const open = await anonymous.callTool({ name: 'get_health', arguments: {} });
    assert.equal(open.isError, undefined, 'an operation that needs no credential works without one');
    assert.deepEqual(new Set(api.keys), new Set([KEYS.alice, KEYS.bob]), "the API saw each caller's key, the Bearer prefix taken off");
    for (const replica of replicas) {
      assert.ok(!replica.log().includes(KEYS.alice) && !replica.log().includes(KEYS.bob), `replica ${replica.name}'s log holds no key`);
    }
  });

  test('1,000 calls with 100 in flight: none lost, none wrong, both replicas serving', async () => {
    const alice = await client({ [HEADER]: KEYS.alice });
    const before = new Map(api.byReplica);
    const outcomes = await runCalls(alice, 'get_item', 1000, 100, (i) => ({ id: i, delayMs: 20 }));
    assert.equal(outcomes.length, 1000);
    const wrong = outcomes.filter((o) => !o.ok || (JSON.parse(o.text) as { id: number }).id !== o.index);
    assert.deepEqual(wrong.slice(0, 3), []);
    const served = ['a', 'b'].map((r) => (api.byReplica.get(r) ?? 0) - (before.get(r) ?? 0));
    assert.equal(served[0]! + served[1]!, 1000);
    for (const share of served) assert.ok(share >= 300, `each replica served a share: ${served.join(' / ')}`);
  });

  test('a replica killed mid-run fails only calls sent to it before it died, with an error; every later call succeeds', async () => {
    const alice = await client({ [HEADER]: KEYS.alice });
    let killedAt = Infinity;
    const victim = replicas[0];
    // The answer of a call is an event stream whose headers are already sent: a call in flight on the dead
    // replica ends at the client's request timeout (10 s here), not at once; nginx resends no POST.
    const outcomes = await runCalls(alice, 'get_item', 1000, 100, (i) => ({ id: i, delayMs: 200 }), (done) => {
      if (done === 120 && victim) {
        killedAt = performance.now();
        victim.process.kill('SIGKILL');
      }
    }, 10_000);
    assert.equal(outcomes.length, 1000, 'every call settled');
    const failed = outcomes.filter((o) => !o.ok);
    for (const o of outcomes.filter((x) => x.ok)) assert.equal((JSON.parse(o.text) as { id: number }).id, o.index);
    assert.ok(failed.length > 0 && failed.length <= 100, `only calls in flight on the killed replica fail: ${failed.length}`);
    // A process killed takes a moment to close its sockets: what was sent to it in that moment fails too.
    for (const f of failed) assert.ok(f.startedAt < killedAt + 1000, `a call started ${Math.round(f.startedAt - killedAt)} ms after the kill failed: ${f.text}`);
    for (const f of failed) assert.match(f.text, /502 Bad Gateway|Request timed out/);
    assert.ok(outcomes.filter((o) => o.startedAt > killedAt + 1000).length > 100, 'many calls were made after the kill');
  });
});

test('--forward-auth needs --transport http, a header name and an API with credentials; Claude Desktop takes no HTTP entry', async () => {
  const work = scratchDir('http-usage');
  const errors: string[] = [];
  const io = { out: () => {}, err: (t: string) => void errors.push(t) };
  const init = (...more: string[]): Promise<number> => runCli(['init', '--openapi-url', SPEC, '--server-name', 'Shared', '--output-dir', join(work, 'p'), '--framework', 'net10.0', ...more], io);
  assert.equal(await init('--forward-auth', HEADER), 2);
  assert.equal(await init('--transport', 'http', '--forward-auth', 'X Token'), 2);
  assert.equal(await init('--transport', 'grpc'), 2);
  assert.equal(await init('--transport', 'http', '--client', 'claude-desktop'), 2);
  assert.equal(await runCli(['init', '--openapi-url', join(import.meta.dirname, '../../examples/petstore.yaml'), '--server-name', 'P', '--output-dir', join(work, 'q'), '--framework', 'net10.0', '--transport', 'http', '--forward-auth', HEADER], io), 2);
  assert.deepEqual(errors.map((e) => e.trim()), [
    'error: --forward-auth needs --transport http: a stdio server has one user, whose credentials are its settings',
    'error: --forward-auth "X Token" is not an HTTP header name',
    'error: --transport "grpc" is not one of stdio, http',
    "error: --client claude-desktop: Claude Desktop's configuration file starts stdio servers only; add an HTTP server in its Connectors settings",
    'error: --forward-auth: the API declares no security scheme whose credential could be forwarded (give --openapi-url for host)',
  ]);
});
