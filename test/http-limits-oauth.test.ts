/**
 * The rate limit of an HTTP server with `--auth oauth` counts by the token's subject: the server of
 * test/fixtures/library.yaml, built once, started on 127.0.0.1 against a real authorization server (oidc-provider);
 * two users signed in from the same address each have a bucket of their own.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { dotnetBuild } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import { LIBRARY_KEY, LIBRARY_SPEC, startLibraryApi, type LibraryApi } from './support/library-api.js';
import { freePort, startReplica, type Replica } from './support/replicas.js';
import { startAuthorizationServer, type AuthorizationServer } from './support/authorization-server.js';

describe('the rate limit of an HTTP server with --auth oauth', () => {
  const work = scratchDir('http-limits-oauth');
  let api: LibraryApi;
  let authority: AuthorizationServer;
  let server: Replica;
  let resource = '';

  before(async () => {
    api = await startLibraryApi();
    assert.equal(await runCli(['init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Limits', '--output-dir', work, '--transport', 'http', '--auth', 'oauth'], { out: () => {}, err: () => {} }), 0);
    const build = await dotnetBuild(work);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    authority = await startAuthorizationServer({ resources: [{ url: resource, scopes: ['library'] }] });
    server = await startReplica('oauth', join(work, 'bin/Debug', detectFramework(), 'Limits.dll'), {
      LIMITS_BASE_URL: api.url, LIMITS_API_KEY: LIBRARY_KEY, LIMITS_AUTH_AUTHORITY: authority.issuer, LIMITS_RESOURCE_URL: resource,
      // Three requests at once, then one a minute: the test ends long before a fourth is earned.
      LIMITS_RATE_LIMIT_PER_MINUTE: '1', LIMITS_RATE_LIMIT_BURST: '3', Logging__LogLevel__Default: 'Warning',
    }, '127.0.0.1', port);
  });

  after(async () => {
    server?.process.kill('SIGKILL');
    await authority?.stop();
    await api?.close();
  });

  const call = (token: string | undefined, bookId: number): Promise<Response> => fetch(resource, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token !== undefined && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_book', arguments: { bookId } } }),
  });

  test('two users at one address: one over the limit gets 429, the other is served; requests without a token are not counted', async () => {
    const alice = (await authority.authorizationCodeToken({ resource, user: 'alice' })).accessToken;
    const bob = (await authority.authorizationCodeToken({ resource, user: 'bob' })).accessToken;
    // Refused before the limit (401): they take nothing from anyone's bucket.
    for (let i = 0; i < 5; i++) assert.equal((await call(undefined, 1)).status, 401);
    for (let i = 0; i < 3; i++) {
      const answer = await call(alice, 1);
      assert.equal(answer.status, 200);
      assert.match(await answer.text(), /Book 1/);
    }
    const refused = await call(alice, 1);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '60');
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /^Too many requests: this server takes 1 requests a minute from one caller \(3 at once\)/);
    const served = await call(bob, 2);
    assert.equal(served.status, 200);
    assert.match(await served.text(), /Book 2/);
    assert.deepEqual(api.requests.filter((r) => r.startsWith('GET /books/')), ['GET /books/1', 'GET /books/1', 'GET /books/1', 'GET /books/2']);
  });
});
