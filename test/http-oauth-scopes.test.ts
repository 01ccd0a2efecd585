/**
 * `--auth oauth` and the scopes the spec requires per operation: test/fixtures/scoped.yaml (get_item needs items:read,
 * delete_item items:write or items:admin, get_health nothing), generated with `--transport http --auth oauth`, built
 * and run against oidc-provider with `--upstream-token-exchange`. A call whose token lacks its operation's scopes is
 * refused with 403 insufficient_scope before anything is sent; the API gets a token the server obtained for the
 * caller by RFC 8693 token exchange (cached per caller's token, redacted from answers), never the caller's own.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { promisify } from 'node:util';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';
import { freePort, startReplica, type Replica } from './support/replicas.js';
import { startAuthorizationServer, type AuthorizationServer } from './support/authorization-server.js';
import { startRedis } from './support/redis.js';

describe('per-operation OAuth scopes of an HTTP server with --auth oauth', () => {
  const received: { method: string; url: string; authorization: string }[] = [];
  let upstream: Server;
  let authority: AuthorizationServer;
  let replica: Replica;
  let discovery: Replica;
  let resource = '';
  let apiUrl = '';
  let discoveryPort = 0;
  let code: Replica;
  let codePort = 0;
  let work = '';
  let sharedResource = '';
  let settings: Record<string, string> = {};

  before(async () => {
    work = scratchDir('http-oauth-scopes');
    const init = ['init', '--openapi-url', join(REPO, 'test/fixtures/scoped.yaml'), '--server-name', 'Scoped', '--output-dir', join(work, 'scoped'), '--transport', 'http', '--auth', 'oauth', '--upstream-token-exchange'];
    assert.equal(await runCli(init, { out: () => {}, err: (t) => void process.stderr.write(t) }), 0);
    // The same in discovery mode, where call_operation reaches every operation.
    const discoveryInit = [...init.slice(0, 6), join(work, 'discovery'), ...init.slice(7), '--mode', 'discovery'];
    assert.equal(await runCli(discoveryInit, { out: () => {}, err: (t) => void process.stderr.write(t) }), 0);
    // And in code mode, where a script's api calls reach every operation.
    const codeInit = [...init.slice(0, 6), join(work, 'code'), ...init.slice(7), '--mode', 'code'];
    assert.equal(await runCli(codeInit, { out: () => {}, err: (t) => void process.stderr.write(t) }), 0);
    await writeFile(join(work, 'all.slnx'), `<Solution>\n${['scoped', 'discovery', 'code'].map((folder) => `  <Folder Name="/${folder}/">\n    <Project Path="${folder}/Scoped.csproj" />\n  </Folder>\n`).join('')}</Solution>\n`);
    const build = promisify(execFile)('dotnet', ['build', join(work, 'all.slnx'), '-nologo', '-v:q', '-clp:NoSummary', '-warnaserror'], { maxBuffer: 64 * 1024 * 1024 });
    upstream = createServer((request, response) => {
      received.push({ method: request.method ?? '', url: request.url ?? '', authorization: request.headers.authorization ?? '' });
      // An API that echoes the credential it got: the answer must not hand it to the AI.
      response.writeHead(request.method === 'DELETE' ? 204 : 200, { 'content-type': 'application/json' }).end(request.method === 'DELETE' ? undefined : JSON.stringify(request.url === '/health' ? { up: true } : { id: 1, seen: request.headers.authorization }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    apiUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
    discoveryPort = await freePort();
    const discoveryResource = `http://127.0.0.1:${discoveryPort}/mcp`;
    codePort = await freePort();
    const codeResource = `http://127.0.0.1:${codePort}/mcp`;
    // Replicas that share state on Redis: their MCP URL as a balancer in front of them would be.
    sharedResource = `http://127.0.0.1:${await freePort()}/mcp`;
    authority = await startAuthorizationServer({
      resources: [
        { url: resource, scopes: ['items:read', 'items:write', 'items:admin'] }, { url: apiUrl, scopes: ['items:read', 'items:write', 'items:admin'] },
        { url: discoveryResource, scopes: ['items:read', 'items:write', 'items:admin'] }, { url: codeResource, scopes: ['items:read', 'items:write', 'items:admin'] },
        { url: sharedResource, scopes: ['items:read', 'items:write', 'items:admin'] },
      ],
      tokenExchange: { subjectAudiences: [resource, discoveryResource, codeResource, sharedResource] },
    });
    await build;
    settings = {
      SCOPED_BASE_URL: apiUrl, SCOPED_AUTH_CLIENT_ID: authority.clients[0]!.clientId, SCOPED_AUTH_CLIENT_SECRET: authority.clients[0]!.clientSecret ?? '',
      SCOPED_AUTH_AUTHORITY: authority.issuer, SCOPED_RESOURCE_URL: resource, Logging__LogLevel__Default: 'Warning',
    };
    replica = await startReplica('scoped', join(work, 'scoped', 'bin/Debug', detectFramework(), 'Scoped.dll'), settings, '127.0.0.1', port);
    discovery = await startReplica('discovery', join(work, 'discovery', 'bin/Debug', detectFramework(), 'Scoped.dll'), { ...settings, SCOPED_RESOURCE_URL: discoveryResource }, '127.0.0.1', discoveryPort);
    code = await startReplica('code', join(work, 'code', 'bin/Debug', detectFramework(), 'Scoped.dll'), { ...settings, SCOPED_RESOURCE_URL: codeResource }, '127.0.0.1', codePort);
  });

  after(async () => {
    replica?.process.kill('SIGKILL');
    discovery?.process.kill('SIGKILL');
    code?.process.kill('SIGKILL');
    await authority?.stop();
    upstream?.closeAllConnections();
    await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  });

  const post = (token: string, body: string): Promise<Response> => fetch(resource, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body,
  });
  const call = (token: string, name: string, args: Record<string, unknown> = {}): Promise<Response> =>
    post(token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }));
  /** The text of the tool's answer, from the server's SSE reply. */
  const text = async (answer: Response): Promise<string> => {
    const data = (await answer.text()).split('\n').find((line) => line.startsWith('data: '));
    const message = JSON.parse(data?.slice(6) ?? '{}') as { result?: { content?: { text?: string }[] } };
    return message.result?.content?.[0]?.text ?? '';
  };
  const challenge = (scope: string): string => `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp"`;

  test("the metadata lists every scope the tools' operations require", async () => {
    const metadata = await (await fetch(`${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp`)).json() as { scopes_supported: string[] };
    assert.deepEqual(metadata.scopes_supported, ['items:read', 'items:write', 'items:admin']);
  });

  test("a token with the operation's scope: the call reaches the API with a token exchanged for the caller, never the caller's own, redacted from the answer", async () => {
    const token = await authority.clientCredentialsToken({ resource, scope: 'items:read' });
    for (const id of [1, 1]) {
      const answer = await call(token, 'get_item', { id });
      assert.equal(answer.status, 200);
      assert.deepEqual(JSON.parse(await text(answer)), { id: 1, seen: 'Bearer [redacted]' });
    }
    const sent = received.filter((r) => r.url === '/items/1');
    assert.equal(sent.length, 2);
    const upstreamToken = sent[0]!.authorization.replace(/^Bearer /, '');
    assert.notEqual(upstreamToken, token);
    assert.ok(!received.some((r) => r.authorization.includes(token)), 'the caller\'s token never reaches the API');
    const claims = decodeJwt(upstreamToken);
    assert.equal(claims.aud, apiUrl);
    assert.equal(claims.sub, decodeJwt(token).sub);
    assert.equal(sent[1]!.authorization, sent[0]!.authorization, 'the exchanged token is kept for the caller\'s token');
    assert.equal(authority.exchanges.length, 1);
  });

  test('with REDIS, a token exchanged on one replica serves the same caller\'s token on another; Redis holds it sealed', async () => {
    const redis = await startRedis(join(work, 'redis'));
    const dll = join(work, 'scoped', 'bin/Debug', detectFramework(), 'Scoped.dll');
    const pair = await Promise.all(['a', 'b'].map((name) => startReplica(`shared-${name}`, dll, { ...settings, SCOPED_RESOURCE_URL: sharedResource, SCOPED_REDIS: redis.address })));
    try {
      const token = await authority.clientCredentialsToken({ resource: sharedResource, scope: 'items:read' });
      const exchanged = authority.exchanges.length;
      const mark = received.length;
      for (const replica of [...pair, ...pair]) {
        const answer = await fetch(`${replica.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_item', arguments: { id: 1 } } }),
        });
        assert.equal(answer.status, 200);
        assert.deepEqual(JSON.parse(await text(answer)), { id: 1, seen: 'Bearer [redacted]' });
      }
      assert.equal(authority.exchanges.length - exchanged, 1, 'exchanged once for the caller\'s token, on whichever replica came first');
      const sent = received.slice(mark).map((r) => r.authorization);
      assert.equal(new Set(sent).size, 1, 'both replicas sent the one exchanged token');
      const upstreamToken = sent[0]!.replace(/^Bearer /, '');
      const keys = redis.cli('KEYS', 'scoped:token:*').split('\n').filter(Boolean);
      assert.equal(keys.length, 1, redis.cli('KEYS', '*'));
      const stored = redis.cli('GET', keys[0]!);
      for (const secret of [upstreamToken, token, settings.SCOPED_AUTH_CLIENT_SECRET ?? '']) assert.ok(!stored.includes(secret.slice(0, 40)), 'Redis holds no token in the clear');
    } finally {
      for (const replica of pair) replica.process.kill('SIGKILL');
      await redis.stop();
    }
  });

  test("a token without the operation's scopes: 403 insufficient_scope naming those it has and the first alternative's, nothing sent", async () => {
    const before = received.length;
    const reader = await authority.clientCredentialsToken({ resource, scope: 'items:read' });
    const refused = await call(reader, 'delete_item', { id: 2 });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('www-authenticate'), challenge('items:read items:write'));
    const writer = await authority.clientCredentialsToken({ resource, scope: 'items:write' });
    assert.equal((await call(writer, 'get_item', { id: 2 })).headers.get('www-authenticate'), challenge('items:write items:read'));
    assert.equal(received.length, before, 'nothing reached the API');
    const admin = await authority.clientCredentialsToken({ resource, scope: 'items:admin' });
    const deleted = await call(admin, 'delete_item', { id: 2 });
    assert.equal(deleted.status, 200, 'either alternative will do');
    assert.doesNotMatch(await text(deleted), /^Error/);
    assert.deepEqual(received.slice(before).map((r) => `${r.method} ${r.url}`), ['DELETE /items/2']);
  });

  test('an operation that needs no scope takes any valid token; a name given twice is refused before it is read', async () => {
    const token = await authority.clientCredentialsToken({ resource, scope: 'items:write' });
    assert.equal((await call(token, 'get_health')).status, 200);
    const twice = await post(token, '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_health","name":"delete_item","arguments":{"id":3}}}');
    assert.equal(twice.status, 400);
    assert.ok(!received.some((r) => r.url === '/items/3'));
  });

  test('discovery mode: call_operation needs the scopes of the operation it calls; search and describe need none', async () => {
    const url = `http://127.0.0.1:${discoveryPort}/mcp`;
    const reader = await authority.clientCredentialsToken({ resource: url, scope: 'items:read' });
    const send = (name: string, args: Record<string, unknown>): Promise<Response> => fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${reader}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    const before = received.length;
    const refused = await send('call_operation', { name: 'delete_item', arguments: { id: 4 } });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="items:read items:write", resource_metadata="http://127.0.0.1:${discoveryPort}/.well-known/oauth-protected-resource/mcp"`);
    assert.equal(received.length, before, 'nothing reached the API');
    assert.equal((await send('describe_operation', { name: 'delete_item' })).status, 200);
    const read = await send('call_operation', { name: 'get_item', arguments: { id: 1 } });
    assert.equal(read.status, 200);
    assert.deepEqual(JSON.parse(await text(read)), { id: 1, seen: 'Bearer [redacted]' });
  });

  test('code mode: each api call of a script needs the scopes of its operation; one the token lacks rejects with 403 and sends nothing', async () => {
    const url = `http://127.0.0.1:${codePort}/mcp`;
    const reader = await authority.clientCredentialsToken({ resource: url, scope: 'items:read' });
    const before = received.length;
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${reader}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'run_script', arguments: { code: `
        const item = await api.get_item({ id: 5 });
        try { await api.delete_item({ id: 5 }); } catch (e) { return { item, refused: e.message, status: e.status }; }` } } }),
    });
    assert.equal(answer.status, 200);
    const { result } = JSON.parse(await text(answer)) as { result: { item: unknown; refused: string; status: number } };
    assert.deepEqual(result.item, { id: 1, seen: 'Bearer [redacted]' });
    assert.equal(result.status, 403);
    assert.equal(result.refused, 'Error: insufficient scope: delete_item needs the OAuth scopes "items:write", which the caller\'s token does not have; sign in again asking for "items:read items:write"');
    assert.deepEqual(received.slice(before).map((r) => `${r.method} ${r.url}`), ['GET /items/5']);
  });
});
