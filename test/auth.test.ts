/**
 * Credentials end to end: every scheme against a local API that enforces it, per-operation
 * requirements, OAuth2 token caching and refresh on 401, extra headers, and a sentinel check that no
 * secret reaches a tool's input schema, a tool result, an error message or the server's log.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { callText, connect, dotnetBuild, readMcpEntry, serverLog, type ServerEntry } from '../examples/harness.js';
import { SECRETS, startAuthApi, type AuthApi } from './fixtures/auth-api.js';
import { REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

const SETTINGS = {
  AUTH_API_KEY: SECRETS.apiKey,
  AUTH_QUERY_KEY: SECRETS.queryKey,
  AUTH_SESSION_COOKIE_KEY: SECRETS.cookie,
  AUTH_BEARER_AUTH_TOKEN: SECRETS.bearer,
  AUTH_BASIC_AUTH_USERNAME: SECRETS.user,
  AUTH_BASIC_AUTH_PASSWORD: SECRETS.password,
  AUTH_OAUTH_CLIENT_ID: SECRETS.clientId,
  AUTH_OAUTH_CLIENT_SECRET: SECRETS.clientSecret,
};
const SENTINELS = Object.values(SECRETS).filter((s) => s.includes('SENTINEL'));

describe('credentials', () => {
  let directory = '';
  let entry: ServerEntry;
  let api: AuthApi;
  let client: Client;
  const answers: string[] = [];
  const call = async (c: Client, name: string): Promise<string> => {
    const text = await callText(c, name);
    answers.push(text);
    return text;
  };

  before(async () => {
    directory = scratchDir('auth');
    assert.equal(await runCli(['init', '--openapi-url', join(REPO, 'test/fixtures/auth.yaml'), '--server-name', 'Auth', '--output-dir', directory, '--client', 'vscode'], { out: () => {}, err: (t) => void process.stderr.write(t) }), 0);
    const build = await dotnetBuild(directory);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    entry = (await readMcpEntry(directory)).entry;
    api = await startAuthApi();
    client = await connect(entry, { ...SETTINGS, AUTH_BASE_URL: api.url, AUTH_HEADERS: 'X-Tenant: acme; X-Env: test', Logging__LogLevel__Default: 'Trace' });
  });

  after(async () => {
    await client?.close();
    await api?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  test('mcp.json and the VS Code file carry placeholders for every credential variable', async () => {
    assert.deepEqual(entry.args, ['run', '--project', directory]);
    const env = (entry as ServerEntry & { env?: Record<string, string> }).env ?? {};
    assert.deepEqual(Object.keys(env).sort(), Object.keys(SETTINGS).sort());
    const vscode = JSON.parse(await readFile(join(directory, '.vscode/mcp.json'), 'utf8')) as { servers: Record<string, { type: string; env: Record<string, string> }> };
    assert.equal(vscode.servers.auth?.type, 'stdio');
    assert.deepEqual(Object.keys(vscode.servers.auth?.env ?? {}).sort(), Object.keys(SETTINGS).sort());
    assert.match(await readFile(join(directory, 'README.md'), 'utf8'), /replace the placeholders in its `env` with your credentials/);
    const readme = await readFile(join(directory, 'README.md'), 'utf8');
    for (const name of Object.keys(SETTINGS)) assert.ok(readme.includes(`\`${name}\``), name);
  });

  test('each scheme is sent the way the spec says', async () => {
    assert.equal(await call(client, 'get_header'), '{"ok":true,"via":"header"}');
    assert.equal(await call(client, 'get_query'), '{"ok":true,"via":"query"}');
    assert.equal(api.requests.at(-1)?.url, `/query?key=${SECRETS.queryKey}`);
    assert.equal(await call(client, 'get_cookie'), '{"ok":true,"via":"cookie"}');
    assert.equal(await call(client, 'get_bearer'), '{"ok":true,"via":"bearer"}');
    assert.equal(await call(client, 'get_basic'), '{"ok":true,"via":"basic"}');
    assert.equal(await call(client, 'get_both'), '{"ok":true,"via":"both"}');
  });

  test('an operation that needs no security sends none; extra headers go on every request', async () => {
    assert.equal(await call(client, 'get_open'), '{"ok":true,"via":"open"}');
    const open = api.requests.at(-1)!;
    assert.equal(open.headers.authorization, undefined);
    assert.equal(open.headers['x-api-key'], undefined);
    assert.equal(open.headers.cookie, undefined);
    assert.equal(open.headers['x-tenant'], 'acme');
    assert.equal(open.headers['x-env'], 'test');
    assert.equal(await call(client, 'get_optional'), '{"ok":true,"via":"optional: key"}');
  });

  test('OAuth2 client credentials: fetched once, cached, fetched again after a 401', async () => {
    // The API echoes the token: the answer has it redacted, the request carried it.
    const bearer = (): unknown => api.requests.at(-1)?.headers.authorization;
    assert.equal(await call(client, 'get_oauth'), '{"ok":true,"via":"oauth [redacted]"}');
    assert.equal(bearer(), 'Bearer tok-1');
    assert.equal(await call(client, 'get_either'), '{"ok":true,"via":"either: oauth"}');
    assert.equal(api.tokensIssued, 1);
    api.revokeTokens();
    assert.equal(await call(client, 'get_oauth'), '{"ok":true,"via":"oauth [redacted]"}');
    assert.equal(bearer(), 'Bearer tok-2');
    assert.equal(api.tokensIssued, 2);
    const token = api.requests.find((r) => r.url === '/oauth/token');
    assert.equal(token?.method, 'POST');
  });

  test('OAuth2: a token from AUTH_OAUTH_TOKEN is sent as it is; AUTH_OAUTH_TOKEN_URL replaces the spec\'s token URL', async () => {
    const basic = Buffer.from(`${SECRETS.clientId}:${SECRETS.clientSecret}`).toString('base64');
    const issued = await fetch(`${api.url}/oauth/token`, { method: 'POST', headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    const { access_token: ready } = (await issued.json()) as { access_token: string };
    const before = api.tokensIssued;
    const withToken = await connect(entry, { AUTH_BASE_URL: api.url, AUTH_OAUTH_TOKEN: ready });
    try {
      assert.equal(await call(withToken, 'get_oauth'), '{"ok":true,"via":"oauth [redacted]"}');
      assert.equal(api.requests.at(-1)?.headers.authorization, `Bearer ${ready}`);
      assert.equal(api.tokensIssued, before, 'no token was asked for');
    } finally {
      await withToken.close();
    }
    // A token service elsewhere: the spec's token URL is on the API's host; this one forwards to it.
    const forwarded: string[] = [];
    const tokenService = createServer((request, response) => {
      forwarded.push(request.url ?? '');
      request.pipe(httpRequest(`${api.url}/oauth/token`, { method: 'POST', headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      }));
    });
    await new Promise<void>((resolve) => tokenService.listen(0, '127.0.0.1', resolve));
    const tokenUrl = `http://127.0.0.1:${(tokenService.address() as AddressInfo).port}/issue`;
    const elsewhere = await connect(entry, { AUTH_BASE_URL: api.url, AUTH_OAUTH_CLIENT_ID: SECRETS.clientId, AUTH_OAUTH_CLIENT_SECRET: SECRETS.clientSecret, AUTH_OAUTH_TOKEN_URL: tokenUrl });
    try {
      assert.equal(await call(elsewhere, 'get_oauth'), '{"ok":true,"via":"oauth [redacted]"}');
      assert.match(String(api.requests.at(-1)?.headers.authorization), /^Bearer tok-\d+$/);
      assert.deepEqual(forwarded, ['/issue']);
    } finally {
      await elsewhere.close();
      await new Promise<void>((resolve) => tokenService.close(() => resolve()));
    }
  });

  test('a missing credential names the variable to set and calls nothing', async () => {
    const bare = await connect(entry, { AUTH_BASE_URL: api.url, AUTH_API_KEY: SECRETS.apiKey });
    try {
      const count = api.requests.length;
      assert.equal(await call(bare, 'get_bearer'), 'Error: GET /bearer was not sent: it needs credentials: set AUTH_BEARER_AUTH_TOKEN');
      assert.equal(await call(bare, 'get_oauth'), 'Error: GET /oauth was not sent: it needs credentials: set AUTH_OAUTH_CLIENT_ID and AUTH_OAUTH_CLIENT_SECRET (or AUTH_OAUTH_TOKEN)');
      assert.equal(await call(bare, 'get_both'), 'Error: GET /both was not sent: it needs credentials: set AUTH_API_KEY and AUTH_BASIC_AUTH_USERNAME and AUTH_BASIC_AUTH_PASSWORD');
      assert.equal(api.requests.length, count);
      assert.equal(await call(bare, 'get_either'), '{"ok":true,"via":"either: key"}');
      assert.equal(await call(bare, 'get_optional'), '{"ok":true,"via":"optional: key"}');
      assert.equal(await call(bare, 'get_open'), '{"ok":true,"via":"open"}');
    } finally {
      await bare.close();
    }
  });

  test('wrong credentials give the API\'s error, without the secret', async () => {
    const wrong = await connect(entry, { AUTH_BASE_URL: api.url, AUTH_BEARER_AUTH_TOKEN: 'nope-SENTINEL-bad' });
    try {
      assert.equal(await call(wrong, 'get_bearer'), 'Error: invalid credentials (HTTP 401)');
    } finally {
      await wrong.close();
    }
  });

  test('no secret appears in input schemas, results, error messages or the log', async () => {
    const schemas = JSON.stringify((await client.listTools()).tools);
    const log = serverLog(client);
    assert.ok(log.length > 0, 'the server logged nothing at Trace level');
    for (const secret of [...SENTINELS, 'nope-SENTINEL-bad']) {
      assert.ok(!schemas.includes(secret), `tools/list contains ${secret}`);
      assert.ok(!answers.some((a) => a.includes(secret)), `a tool answer contains ${secret}`);
      assert.ok(!log.includes(secret), `the log contains ${secret}`);
    }
  });
});
