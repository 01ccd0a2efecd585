/**
 * What real servers send, beyond what their specs say, through generated servers driven by the MCP client:
 * answers read by their Content-Type (JSON of another shape, NDJSON, HTML, XML, text, images, no type at all),
 * gzip/deflate/brotli and a compression bomb, the User-Agent, credentials given as headers redacted, a base URL
 * with a query, cookies that never outlive a call (nor reach another caller of a shared server), arguments a tool
 * does not take refused, text kept as it is, and the response headers the spec declares handed on beside the JSON.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { packageVersion } from '../src/package.js';
import { callBlocks, callText, connect, dotnetBuild } from '../examples/harness.js';
import { BOMB_BYTES, PNG, startWireApi, type WireApi } from './fixtures/wire-api.js';
import { connectHttp, startReplica, type Replica } from './support/replicas.js';
import { scratchDir } from './support/scratch.js';

const SPEC = fileURLToPath(new URL('../../test/fixtures/wire.yaml', import.meta.url));
const URL_TOKEN = 'T0ken-in-url-123';
const HEADER_TOKEN = 'gh-s3cret-token-value';

async function rssKiB(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

describe('generated servers against what real servers send', () => {
  let api: WireApi;
  let stdioDll = '';
  let httpDll = '';
  let client: Client;
  let replica: Replica | undefined;
  const clients: Client[] = [];

  before(async () => {
    api = await startWireApi();
    const work = scratchDir('wire');
    const quiet = { out: () => {}, err: () => {} };
    assert.equal(await runCli(['init', '--openapi-url', SPEC, '--server-name', 'Wire', '--output-dir', join(work, 'stdio')], quiet), 0);
    assert.equal(await runCli(['init', '--openapi-url', SPEC, '--server-name', 'Wire', '--output-dir', join(work, 'http'), '--transport', 'http', '--structured-output'], quiet), 0);
    const builds = await Promise.all([dotnetBuild(join(work, 'stdio')), dotnetBuild(join(work, 'http'))]);
    for (const build of builds) assert.ok(build.ok, build.output);
    [stdioDll, httpDll] = builds.map((build) => /-> (\S+Wire\.dll)/.exec(build.output)?.[1] ?? '') as [string, string];
    client = await start({});
  });

  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    replica?.process.kill('SIGKILL');
    await api?.close();
  });

  /** A stdio server whose base URL carries a token in its query, with an Authorization header from the settings. */
  const start = async (env: Record<string, string>): Promise<Client> => {
    const started = await connect({ command: 'dotnet', args: [stdioDll] }, {
      WIRE_BASE_URL: `${api.url}?token=${URL_TOKEN}`,
      WIRE_HEADERS: `Authorization: token ${HEADER_TOKEN}; X-Trace: trace-1`,
      ...env,
    });
    clients.push(started);
    return started;
  };
  const last = (): WireApi['requests'][number] => api.requests.at(-1)!;

  test('JSON of another shape than the spec declares reaches the assistant as sent, every property kept', async () => {
    const result = await client.callTool({ name: 'get_answer', arguments: { kind: 'mismatch' } });
    assert.notEqual(result.isError, true);
    assert.deepEqual(JSON.parse((result.content as { text: string }[])[0]!.text), { name: 'listing', content: [{ id: 1 }, { id: 2 }], more: true });
  });

  test('answers are read by the Content-Type the API sent', async () => {
    const raw = async (kind: string): Promise<unknown> => JSON.parse(await callText(client, 'get_raw', { kind }));
    // Text comes as it is, not as a JSON string of it: no escaped newline or quote.
    const text = (kind: string): Promise<string> => callText(client, 'get_raw', { kind });
    assert.deepEqual(await raw('ndjson'), [{ id: 1, name: 'a' }, { id: 2, name: 'b' }]);
    assert.deepEqual(await raw('json-seq'), [{ id: 1 }, { id: 2 }]);
    assert.equal(await text('html'), '<html><body><h1>Hello</h1></body></html>');
    assert.equal(await text('xml'), '<items><item id="1"/></items>');
    assert.equal(await text('text'), 'plain words');
    assert.equal(await text('lines'), 'first "line"\nsecond line\n');
    // A success whose text reads like an error answer stays a JSON string, and is no error.
    const errorLike = await client.callTool({ name: 'get_raw', arguments: { kind: 'error-like-text' } }) as { content: { text: string }[]; isError?: boolean };
    assert.deepEqual([errorLike.isError ?? false, errorLike.content[0]?.text], [false, JSON.stringify('Error: this page explains an error code')]);
    assert.deepEqual(await raw('png'), { status: 200, contentType: 'image/png', length: PNG.length, base64: PNG.toString('base64') });
    assert.deepEqual(await raw('octet'), { status: 200, contentType: 'application/octet-stream', length: 5, base64: 'AAEC/v8=' });
    // JSON values one after the other (a gRPC gateway's stream), said to be JSON: an array of them.
    assert.deepEqual(await raw('stream'), [{ result: { n: 1 } }, { result: { n: 2 } }]);
    // No Content-Type: JSON if it parses, else text, else (not UTF-8) a file.
    assert.deepEqual(await raw('untyped-json'), { name: 'listing', content: 'two items' });
    assert.equal(await text('untyped-text'), 'just words');
    assert.deepEqual(await raw('untyped-bytes'), { status: 200, length: 4, base64: '//4AgQ==' });
    // The spec says JSON; the API sends HTML: the HTML, as text.
    assert.equal(await callText(client, 'get_answer', { kind: 'html' }), '<html><body><h1>Hello</h1></body></html>');
  });

  test('an error body that is a JSON string is the message', async () => {
    assert.equal(await callText(client, 'get_raw', { kind: 'string-error' }), 'Error: no such listing (HTTP 404)');
  });

  test('mcp.json has a placeholder for the base URL the spec does not give', async () => {
    const entry = (JSON.parse(await readFile(join(stdioDll, '..', '..', '..', '..', 'mcp.json'), 'utf8')) as { mcpServers: Record<string, { env?: Record<string, string> }> }).mcpServers.wire;
    assert.deepEqual(entry?.env, { WIRE_BASE_URL: '<base-url-of-the-api>' });
  });

  test('gzip, deflate and brotli are asked for and read', async () => {
    for (const kind of ['gzip', 'deflate', 'br']) {
      assert.deepEqual(JSON.parse(await callText(client, 'get_answer', { kind })), { name: 'listing', content: 'two items' }, kind);
      assert.match(String(last().headers['accept-encoding']), /gzip.*deflate.*br|gzip, deflate, br/);
    }
  });

  test('a compression bomb is cut at the byte cap of its decompressed bytes, memory bounded', async (t) => {
    const pid = (clients[0] as unknown as { _transport: { pid: number | null } })._transport.pid ?? 0;
    assert.ok(pid > 0);
    const text = await callText(client, 'get_answer', { kind: 'bomb' });
    assert.ok(text.startsWith('{"name":"bomb","content":"aaaa'), text.slice(0, 40));
    // MaxResponseBytes is 4 × WIRE_MAX_RESULT_LENGTH (100,000): 400,000 decompressed bytes are read, no more.
    assert.match(text, /\n\[truncated: the response was cut at 400000 bytes and not read further; ask for less, e\.g\. with filters or paging\]$/);
    // Read whole, the bomb alone would hold 256 MiB of bytes and twice that as a string.
    const rss = await rssKiB(pid);
    t.diagnostic(`server RSS after the bomb: ${Math.round(rss / 1024)} MiB`);
    assert.ok(rss < 200 * 1024, `the server holds ${rss} KiB after a ${BOMB_BYTES / 1024 / 1024} MiB bomb`);
    assert.deepEqual(JSON.parse(await callText(client, 'get_answer', { kind: 'fits' })), { name: 'listing', content: 'two items' });
  });

  test('requests carry a User-Agent; the headers setting and WIRE_USER_AGENT override it', async () => {
    JSON.parse(await callText(client, 'get_echo'));
    assert.equal(last().headers['user-agent'], `Wire/2.1.0 openapi-mcp-dotnet/${packageVersion()}`);
    assert.equal(last().headers['x-trace'], 'trace-1');
    const custom = await start({ WIRE_USER_AGENT: 'my-agent/3.0 (ops team)' });
    await callText(custom, 'get_echo');
    assert.equal(last().headers['user-agent'], 'my-agent/3.0 (ops team)');
    const fromHeaders = await start({ WIRE_USER_AGENT: 'my-agent/3.0', WIRE_HEADERS: 'User-Agent: from-headers/1.0' });
    await callText(fromHeaders, 'get_echo');
    assert.equal(last().headers['user-agent'], 'from-headers/1.0');
  });

  test('a credential given in the headers setting, or in the base URL\'s query, is sent and never echoed', async () => {
    const echoed = await callText(client, 'get_echo');
    assert.equal(last().headers.authorization, `token ${HEADER_TOKEN}`);
    assert.equal(last().url, `/api/echo?token=${URL_TOKEN}`);
    assert.ok(!echoed.includes(HEADER_TOKEN) && !echoed.includes(URL_TOKEN), echoed);
    const answer = JSON.parse(echoed) as { url: string; headers: Record<string, string> };
    assert.equal(answer.headers.authorization, '[redacted]');
    assert.equal(answer.url, '/api/echo?token=[redacted]');
  });

  test('the base URL\'s query goes with every request, before the operation\'s own', async () => {
    await callText(client, 'get_answer', { kind: 'fits', page: 2 });
    assert.equal(last().url, `/api/answers/fits?token=${URL_TOKEN}&page=2`);
  });

  test('a cookie the API sets does not outlive the call', async () => {
    assert.deepEqual(JSON.parse(await callText(client, 'create_session')), { started: true });
    assert.match(String(api.requests.at(-1)?.method), /POST/);
    await callText(client, 'get_echo');
    assert.equal(last().headers.cookie, undefined);
  });

  test('a cookie set on a redirect goes with the redirects of that call, and no further', async () => {
    assert.deepEqual(JSON.parse(await callText(client, 'get_raw', { kind: 'cookie-set' })), { cookies: 'flavour=oat' });
    assert.deepEqual(api.requests.slice(-2).map((r) => [r.url, r.headers.cookie]), [[`/api/raw/cookie-set?token=${URL_TOKEN}`, undefined], ['/api/raw/cookie-echo', 'flavour=oat']]);
    assert.deepEqual(JSON.parse(await callText(client, 'get_raw', { kind: 'cookie-echo' })), { cookies: null });
  });

  test('arguments a tool does not take are refused before anything is sent', async () => {
    const before = api.requests.length;
    const echo = await client.callTool({ name: 'get_echo', arguments: { page: '2', q: 'mcp tools' } });
    assert.equal(echo.isError, true);
    assert.equal((echo.content as { text: string }[])[0]!.text, "Error: invalid arguments for get_echo: 'page' is not an argument of get_echo (it takes none); 'q' is not an argument of get_echo (it takes none)");
    assert.equal(await callText(client, 'get_answer', { kind: 'fits', q: 'x' }), "Error: invalid arguments for get_answer: 'q' is not an argument of get_answer (it takes: kind, page)");
    assert.equal(api.requests.length, before);
  });

  test('text comes back as it is, not \\u-escaped', async () => {
    const text = await callText(client, 'get_answer', { kind: 'unicode' });
    assert.equal(text, '{"name":"héllo","content":"東京 — ü"}');
  });

  test('the response headers the spec declares, and Link, come beside the JSON, which stays as it was', async () => {
    const blocks = await callBlocks(client, 'get_answer', { kind: 'fits' });
    assert.deepEqual(JSON.parse(blocks[0]!), { name: 'listing', content: 'two items' });
    assert.equal(blocks[1], `Response headers:\nLink: <${api.url}/answers/fits?page=2>; rel="next"\nX-Total-Count: 42`);
    assert.equal(blocks.length, 2);
    // An operation that declares none, with no Link in its answer: the JSON alone.
    assert.equal((await callBlocks(client, 'get_echo')).length, 1);
  });

  test('GET and PUT answered 429/503 with a Retry-After that fits are sent again after it; POST never is', async () => {
    const count = (method: string, path: string): number => api.requests.filter((r) => r.method === method && r.url.startsWith(`/api${path}`)).length;
    let started = Date.now();
    assert.deepEqual(JSON.parse(await callText(client, 'get_answer', { kind: 'busy-get' })), { served: 3 });
    assert.ok(Date.now() - started >= 1900, `answered after ${Date.now() - started} ms: the Retry-After waits were not kept`);
    assert.equal(count('GET', '/answers/busy-get'), 3);
    assert.deepEqual(JSON.parse(await callText(client, 'update_answer', { kind: 'busy-put' })), { served: 3 });
    assert.equal(count('PUT', '/answers/busy-put'), 3);
    assert.equal(await callText(client, 'create_answer', { kind: 'busy-post' }), 'Error: busy; retry after 1 seconds (HTTP 429)');
    assert.equal(count('POST', '/answers/busy-post'), 1);
    // A wait past the call's time (120 s against 30 s) is not waited for: the answer says when to retry.
    started = Date.now();
    assert.match(await callText(client, 'get_answer', { kind: 'busy-long' }), /^Error: .*retry after 120 seconds \(HTTP 503\)$/);
    assert.ok(Date.now() - started < 5000);
    assert.equal(count('GET', '/answers/busy-long'), 1);
  });

  describe('a shared server (--transport http, --structured-output)', () => {
    before(async () => {
      replica = await startReplica('wire', httpDll, { WIRE_BASE_URL: api.url });
    });

    const caller = async (): Promise<Client> => {
      const c = await connectHttp(replica?.url ?? '');
      clients.push(c);
      return c;
    };

    test('a cookie one caller\'s call receives is never sent with another caller\'s calls', async () => {
      const [alice, bob] = [await caller(), await caller()];
      assert.deepEqual(JSON.parse(await callText(alice, 'create_session')), { started: true });
      await callText(bob, 'get_echo');
      assert.equal(last().headers.cookie, undefined);
      await callText(alice, 'get_echo');
      assert.equal(last().headers.cookie, undefined);
    });

    test('an answer that fits is structuredContent; one that does not is given whole and flagged', async () => {
      const alice = await caller();
      const fits = await alice.callTool({ name: 'get_answer', arguments: { kind: 'fits' } });
      assert.deepEqual(fits.structuredContent, { name: 'listing', content: 'two items' });
      const mismatch = await alice.callTool({ name: 'get_answer', arguments: { kind: 'mismatch' } });
      assert.equal(mismatch.isError, true);
      assert.equal(mismatch.structuredContent, undefined);
      const text = (mismatch.content as { text: string }[])[0]!.text;
      assert.match(text, /^Error: the API answered \(HTTP 200\), but the answer to GET \/answers\/mismatch does not fit GetAnswerResponse: .*Path: \$\.content.*; the answer as sent: \{"name":"listing","content":\[\{"id":1\},\{"id":2\}\],"more":true\}$/s);
    });
  });
});
