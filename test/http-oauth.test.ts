/**
 * `--auth oauth`, end to end: a project generated for test/fixtures/shared.yaml with `--transport http --auth oauth`,
 * built once and run on 127.0.0.1, against a real authorization server (oidc-provider, test/support/authorization-server.ts).
 * The server publishes its RFC 9728 metadata; the SDK's client finds the authority from the 401, registers, signs the
 * user in and calls a tool that reaches the API; every token that is not valid for this server is refused with 401
 * and a missing scope with 403 (insufficient_scope), nothing reaching the API; the API never sees the MCP token.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { scratchDir } from './support/scratch.js';
import { connectHttp, freePort, runCalls, startNginx, startReplica, type Balancer, type Replica } from './support/replicas.js';
import { runScenario, SERVER_SCENARIOS } from './support/conformance.js';
import { startTokenProxy } from './support/token-proxy.js';
import { SHARED_KEYS, sharedInitArgs, sharedReplicaEnv, startSharedApi, type SharedApi } from './support/shared-api.js';
import { startAuthorizationServer, type AuthorizationServer } from './support/authorization-server.js';

/** What an MCP client keeps between sign-ins, in memory; the authorization URL it was sent to, for the test to follow. */
class MemoryProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'http-oauth test', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation(): OAuthClientInformationMixed | undefined { return this.information; }
  saveClientInformation(information: OAuthClientInformationMixed): void { this.information = information; }
  tokens(): OAuthTokens | undefined { return this.saved; }
  saveTokens(tokens: OAuthTokens): void { this.saved = tokens; }
  redirectToAuthorization(url: URL): void { this.authorizationUrl = url; }
  saveCodeVerifier(verifier: string): void { this.verifier = verifier; }
  codeVerifier(): string { return this.verifier; }
}

describe('MCP authorization of an HTTP server (--auth oauth)', () => {
  let api: SharedApi;
  let authority: AuthorizationServer;
  let replica: Replica;
  let resource = '';
  let work = '';
  const more: Replica[] = [];
  let balancer: Balancer | undefined;
  /** The balancer's MCP URL (a second resource of the authority): its port is chosen first. */
  let front = 0;
  let readme = '';

  before(async () => {
    work = scratchDir('http-oauth');
    api = await startSharedApi();
    assert.equal(await runCli([...sharedInitArgs(join(work, 'shared')), '--auth', 'oauth'], { out: () => {}, err: (t) => void process.stderr.write(t) }), 0);
    readme = await readFile(join(work, 'shared', 'README.md'), 'utf8');
    const build = promisify(execFile)('dotnet', ['build', join(work, 'shared'), '-nologo', '-v:q', '-clp:NoSummary', '-warnaserror'], { maxBuffer: 64 * 1024 * 1024 });
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    front = await freePort();
    authority = await startAuthorizationServer({ resources: [{ url: resource, scopes: ['items:read', 'items:admin'] }, { url: `http://127.0.0.1:${front}/mcp`, scopes: ['items:read'] }] });
    await build;
    const settings = { SHARED_AUTH_AUTHORITY: authority.issuer, SHARED_RESOURCE_URL: resource, SHARED_AUTH_SCOPES: 'items:read' };
    replica = await startReplica('oauth', join(work, 'shared', 'bin/Debug', detectFramework(), 'Shared.dll'), { ...sharedReplicaEnv('oauth', api.url, 'Warning'), ...settings }, '127.0.0.1', port);
  });

  after(async () => {
    replica?.process.kill('SIGKILL');
    for (const r of more) r.process.kill('SIGKILL');
    balancer?.stop();
    await authority?.stop();
    await api?.close();
  });

  const metadataUrl = (): string => `${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp`;
  const call = (token: string | undefined): Promise<Response> => fetch(resource, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-token': SHARED_KEYS.alice, ...(token !== undefined && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_item', arguments: { id: 1 } } }),
  });
  const reached = (): number => api.byReplica.get('oauth') ?? 0;

  test("the project's README says how callers are admitted and lists the settings", () => {
    assert.match(readme, /## Authorization\n\nOnly callers with an OAuth 2\.1 access token for this server get through/);
    for (const setting of ['SHARED_AUTH_AUTHORITY', 'SHARED_RESOURCE_URL', 'SHARED_AUTH_SCOPES']) assert.match(readme, new RegExp(`\\| \`${setting}\` \\|`));
  });

  test('RFC 9728 metadata: the resource, its authority, the scopes and the header as the bearer method; /healthz stays open', async () => {
    for (const url of [metadataUrl(), `${new URL(resource).origin}/.well-known/oauth-protected-resource`]) {
      const metadata = await (await fetch(url)).json() as Record<string, unknown>;
      assert.equal(metadata.resource, resource, url);
      assert.deepEqual(metadata.authorization_servers, [authority.issuer], url);
      assert.deepEqual(metadata.scopes_supported, ['items:read'], url);
      assert.deepEqual(metadata.bearer_methods_supported, ['header'], url);
    }
    assert.equal((await fetch(`${new URL(resource).origin}/healthz`)).status, 200);
  });

  test('no token: 401 naming the metadata, nothing reaches the API', async () => {
    const answer = await call(undefined);
    assert.equal(answer.status, 401);
    assert.equal(answer.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl()}"`);
    assert.equal(reached(), 0);
  });

  test('a token for another audience, expired, forged, unsigned (alg none) or from another issuer: 401 invalid_token, nothing reaches the API', async () => {
    const refused = await authority.refusedTokens(resource, 'items:read');
    for (const [kind, token] of Object.entries(refused)) {
      const answer = await call(token);
      assert.equal(answer.status, 401, kind);
      assert.equal(answer.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl()}", error="invalid_token"`, kind);
    }
    assert.equal(reached(), 0);
  });

  test('a valid token without a scope every call needs: 403 insufficient_scope naming the scopes to ask for, nothing reaches the API', async () => {
    const token = await authority.clientCredentialsToken({ resource, scope: 'items:admin' });
    const answer = await call(token);
    assert.equal(answer.status, 403);
    assert.equal(answer.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="items:admin items:read", resource_metadata="${metadataUrl()}"`);
    assert.equal(reached(), 0);
  });

  test("the SDK's client: 401, metadata, registration, sign-in with PKCE, then a call that reaches the API without the MCP token", async () => {
    const provider = new MemoryProvider('http://127.0.0.1:38123/callback');
    const transport = (): StreamableHTTPClientTransport => new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider, requestInit: { headers: { 'X-Api-Token': SHARED_KEYS.bob } } });
    const first = transport();
    await assert.rejects(new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first), UnauthorizedError);
    assert.ok(provider.authorizationUrl, 'the client was sent to sign in');
    assert.equal(provider.authorizationUrl.searchParams.get('resource'), resource);
    const callback = await authority.completeAuthorization(provider.authorizationUrl, 'bob');
    await first.finishAuth(callback.searchParams.get('code') ?? '');
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(transport());
    try {
      const result = await client.callTool({ name: 'get_item', arguments: { id: 5 } });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.deepEqual(JSON.parse((result.content as { text: string }[])[0]!.text), { id: 5, owner: 'bob', key: '[redacted]' });
    } finally {
      await client.close();
    }
    assert.ok(reached() > 0);
    assert.deepEqual(api.authorizations, [], 'the API never receives an Authorization header, the MCP token least of all');
    assert.ok(!api.keys.some((key) => key.includes(provider.saved?.access_token ?? '?')));
  });

  test(`the MCP conformance suite, signed in (a proxy adds a valid token, as a signed-in client sends it): ${SERVER_SCENARIOS.join(', ')} pass`, async () => {
    const token = await authority.clientCredentialsToken({ resource, scope: 'items:read' });
    const proxy = await startTokenProxy(resource, token);
    try {
      for (const scenario of SERVER_SCENARIOS) {
        const run = await runScenario(`${proxy.url}/mcp`, scenario);
        assert.equal(run.code, 0, `${scenario}:\n${run.output}`);
        assert.match(run.output, /Passed: (\d+)\/\1, 0 failed, 0 warnings/, `${scenario}:\n${run.output}`);
      }
    } finally {
      await proxy.close();
    }
  });

  test('behind nginx (round robin, no affinity): each replica validates the tokens itself; 200 calls with 20 in flight all answered, by both', async () => {
    // The resource is the balancer's URL, as clients reach the replicas: known before anything starts.
    const ports = [await freePort(), await freePort()];
    const dll = join(work, 'shared', 'bin/Debug', detectFramework(), 'Shared.dll');
    const settings = { SHARED_AUTH_AUTHORITY: authority.issuer, SHARED_RESOURCE_URL: `http://127.0.0.1:${front}/mcp`, SHARED_AUTH_SCOPES: 'items:read' };
    more.push(...await Promise.all(['a', 'b'].map((name, i) => startReplica(`lb-${name}`, dll, { ...sharedReplicaEnv(`lb-${name}`, api.url, 'Warning'), ...settings }, '127.0.0.1', ports[i]))));
    balancer = await startNginx(join(work, 'nginx'), ports.map((port) => `http://127.0.0.1:${port}`), front);
    const token = await authority.clientCredentialsToken({ resource: `${balancer.url}/mcp`, scope: 'items:read' });
    assert.equal((await fetch(`${balancer.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 401);
    const client = await connectHttp(balancer.url, { Authorization: `Bearer ${token}`, 'X-Api-Token': SHARED_KEYS.alice });
    try {
      const outcomes = await runCalls(client, 'get_item', 200, 20, (i) => ({ id: i }));
      assert.deepEqual(outcomes.filter((o) => !o.ok || JSON.parse(o.text).id !== o.index).map((o) => o.text), []);
    } finally {
      await client.close();
    }
    assert.ok((api.byReplica.get('lb-a') ?? 0) > 0 && (api.byReplica.get('lb-b') ?? 0) > 0, JSON.stringify([...api.byReplica]));
    assert.deepEqual(api.authorizations, []);
  });

  test('without the authority or the resource setting, or with an authority that is not https (but on loopback): one line naming it, and no start', () => {
    const dll = join(work, 'shared', 'bin/Debug', detectFramework(), 'Shared.dll');
    const start = (settings: Record<string, string>): { status: number | null; stderr: string } =>
      spawnSync('dotnet', [dll, '--urls', 'http://127.0.0.1:0'], { env: { ...process.env, ...sharedReplicaEnv('bad', api.url, 'Warning'), ...settings }, encoding: 'utf8', timeout: 60_000 });
    const cases: [Record<string, string>, string][] = [
      [{ SHARED_RESOURCE_URL: resource }, 'error: SHARED_AUTH_AUTHORITY is not set: give the authorization server\'s issuer URL (https://…)'],
      [{ SHARED_AUTH_AUTHORITY: authority.issuer }, 'error: SHARED_RESOURCE_URL is not set: give this server\'s MCP URL as clients reach it (https://…/mcp)'],
      [{ SHARED_AUTH_AUTHORITY: 'http://auth.example.com', SHARED_RESOURCE_URL: resource }, 'error: SHARED_AUTH_AUTHORITY is "http://auth.example.com": give the authorization server\'s issuer URL, https:// (http:// only on a loopback address)'],
      [{ SHARED_AUTH_AUTHORITY: authority.issuer, SHARED_RESOURCE_URL: 'mcp.example.com/mcp' }, 'error: SHARED_RESOURCE_URL is "mcp.example.com/mcp": give this server\'s MCP URL as clients reach it (https://…/mcp)'],
    ];
    for (const [settings, line] of cases) {
      const run = start(settings);
      assert.equal(run.status, 1, JSON.stringify(settings));
      assert.equal(run.stderr.trim(), line);
    }
  });
});

test('--auth oauth needs --transport http, takes no other kind, and never forwards the Authorization header it reads the MCP token from; --upstream-token-exchange needs it and excludes --forward-auth', async () => {
  const errors: string[] = [];
  const run = (...more: string[]): Promise<number> => runCli(['init', '--openapi-url', 'test/fixtures/shared.yaml', '--server-name', 'Shared', '--output-dir', join(scratchDir('oauth-usage'), 'p'), ...more], { out: () => {}, err: (t) => void errors.push(t.trim()) });
  assert.equal(await run('--auth', 'oauth'), 2);
  assert.equal(errors.pop(), 'error: --auth oauth needs --transport http: a stdio server is started by its one user\'s own client');
  assert.equal(await run('--transport', 'http', '--auth', 'basic'), 2);
  assert.equal(errors.pop(), 'error: --auth "basic" is not one of oauth');
  assert.equal(await run('--transport', 'http', '--auth', 'oauth', '--forward-auth', 'authorization'), 2);
  assert.equal(errors.pop(), 'error: --forward-auth Authorization with --auth oauth: that header carries the caller\'s MCP access token, which is never sent to the API; forward another header');
  assert.equal(await run('--transport', 'http', '--upstream-token-exchange'), 2);
  assert.equal(errors.pop(), 'error: --upstream-token-exchange needs --auth oauth: it exchanges the caller\'s MCP access token');
  assert.equal(await run('--transport', 'http', '--auth', 'oauth', '--upstream-token-exchange', '--forward-auth', 'X-Api-Token'), 2);
  assert.equal(errors.pop(), 'error: --upstream-token-exchange and --forward-auth both give each call\'s API credential: choose one');
});
