/**
 * The limits of a generated HTTP server, end to end: the server of test/fixtures/library.yaml, built once, started on
 * 127.0.0.1 and called with the SDK's Streamable HTTP client from several loopback addresses (each its own caller).
 * One caller over the rate limit gets 429 with Retry-After while another is served; a body over the size limit gets
 * 413 before it is sent; on SIGTERM a call in flight finishes, a new one is refused, and the process exits 0.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseAllDocuments } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { dotnetBuild } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import { LIBRARY_KEY, LIBRARY_SPEC, startLibraryApi, type LibraryApi } from './support/library-api.js';
import { startReplica, type Replica } from './support/replicas.js';

/** fetch over node:http from a given local address: the server sees each address as another caller. */
function fetchFrom(localAddress: string): FetchLike {
  return (url, init) => new Promise((resolve, reject) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const req = request(url, { method: init?.method ?? 'GET', headers, localAddress }, (res) => {
      const answer = new Headers();
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) answer.set(name, Array.isArray(value) ? value.join(', ') : value);
      const empty = res.statusCode === 204 || res.statusCode === 304;
      resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream), { status: res.statusCode, headers: answer }));
    });
    req.on('error', reject);
    init?.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')));
    req.end(typeof init?.body === 'string' ? init.body : undefined);
  });
}

async function connectFrom(url: string, localAddress: string): Promise<Client> {
  const client = new Client({ name: 'openapi-mcp-dotnet-limits-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { fetch: fetchFrom(localAddress) }));
  return client;
}

const TOOL_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_book', arguments: { bookId: 1 } } });
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/** A POST to /mcp from `localAddress` that announces `length` bytes and sends `sent` of them; the answer, whenever it comes. */
function postPart(url: string, localAddress: string, headers: Record<string, string>, sent: Buffer, end: boolean): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, localAddress }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.write(sent);
    if (end) req.end();
  });
}

/** The API behind a gate: a request for book 7 waits until `open()`; `reached` settles when one has come. */
async function startGate(apiUrl: string): Promise<{ url: string; reached: Promise<void>; open(): void; close(): void }> {
  const waiting: (() => void)[] = [];
  let arrived: () => void = () => {};
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const gate: Server = createServer((req, res) => {
    const forward = (): void => {
      if (res.destroyed) return; // its caller is gone
      const upstream = request(`${apiUrl}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (req.url === '/books/7') {
      waiting.push(forward);
      arrived();
    } else {
      forward();
    }
  });
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(gate.address() as AddressInfo).port}`,
    reached,
    open: () => waiting.splice(0).forEach((forward) => forward()),
    close: () => {
      gate.close();
      gate.closeAllConnections();
    },
  };
}

/** The error code of a new tool call to the server, once one fails to connect (within 15 s). */
async function refusal(url: string): Promise<string | undefined> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      await fetchFrom('127.0.0.1')(`${url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: TOOL_CALL });
      await new Promise((r) => setTimeout(r, 100));
    } catch (error) {
      return (error as NodeJS.ErrnoException).code;
    }
  }
  return undefined;
}

describe('limits of the HTTP server', () => {
  const work = scratchDir('http-limits');
  let dll = '';
  let api: LibraryApi;
  const servers: Replica[] = [];
  const clients: Client[] = [];
  const settings = (more: Record<string, string>): Record<string, string> => ({ LIMITS_BASE_URL: api.url, LIMITS_API_KEY: LIBRARY_KEY, ...more });

  before(async () => {
    api = await startLibraryApi();
    assert.equal(await runCli(['init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Limits', '--output-dir', work, '--transport', 'http'], { out: () => {}, err: () => {} }), 0);
    const build = await dotnetBuild(work);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    dll = join(work, 'bin/Debug', detectFramework(), 'Limits.dll');
  });

  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    for (const server of servers) server.process.kill('SIGKILL');
    await api?.close();
  });

  test('a caller over the rate limit gets 429 with Retry-After and a JSON-RPC error its client shows; another caller is served', async () => {
    // Five requests at once, then one a minute: the test ends long before a sixth is earned.
    const server = await startReplica('rate', dll, settings({ LIMITS_RATE_LIMIT_PER_MINUTE: '1', LIMITS_RATE_LIMIT_BURST: '5' }));
    servers.push(server);
    const alice = await connectFrom(server.url, '127.0.0.1'); // initialize and notifications/initialized: two requests
    clients.push(alice);
    const before = api.requests.filter((r) => r === 'GET /books/1').length;
    for (let i = 0; i < 3; i++) {
      const result = await alice.callTool({ name: 'get_book', arguments: { bookId: 1 } });
      assert.equal(result.isError, undefined, JSON.stringify(result));
    }
    await assert.rejects(alice.callTool({ name: 'get_book', arguments: { bookId: 1 } }), (error: Error) => {
      assert.equal((error as Error & { code?: number }).code, 429);
      assert.match(error.message, /Too many requests: this server takes 1 requests a minute from one caller \(5 at once\); retry after 60 s/);
      return true;
    });
    const refused = await fetchFrom('127.0.0.1')(`${server.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: TOOL_CALL });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '60');
    assert.deepEqual(await refused.json(), { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Too many requests: this server takes 1 requests a minute from one caller (5 at once); retry after 60 s' } });
    assert.equal(api.requests.filter((r) => r === 'GET /books/1').length - before, 3, 'refused calls never reached the API');
    // Another address is another caller, with a bucket of its own.
    const bob = await connectFrom(server.url, '127.0.0.2');
    clients.push(bob);
    const served = await bob.callTool({ name: 'get_book', arguments: { bookId: 2 } });
    assert.equal(served.isError, undefined, JSON.stringify(served));
    assert.equal((JSON.parse((served.content as { text: string }[])[0]?.text ?? '{}') as { title: string }).title, 'Book 2');
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200, '/healthz is not counted');
  });

  test('a body over the size limit gets 413 before it is sent; a chunked one when it grows past it; one under it is served', async () => {
    const server = await startReplica('size', dll, settings({ LIMITS_MAX_REQUEST_BYTES: '65536' }));
    servers.push(server);
    // 50 MB announced, 1 KB sent, the request left open: the answer comes anyway.
    const announced = await postPart(server.url, '127.0.0.3', { 'Content-Length': String(50_000_000) }, Buffer.alloc(1024, 0x20), false);
    assert.equal(announced.status, 413);
    assert.equal(announced.headers.connection, 'close');
    assert.deepEqual(JSON.parse(announced.body), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request too large: 50000000 bytes, over the limit of 65536' } });
    // JSON may carry any amount of whitespace: the same call, 100 KB long.
    const big = Buffer.from(TOOL_CALL + ' '.repeat(100_000));
    const chunked = await postPart(server.url, '127.0.0.4', { 'Transfer-Encoding': 'chunked' }, big, true);
    assert.equal(chunked.status, 413);
    assert.deepEqual(JSON.parse(chunked.body), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request too large: over the limit of 65536 bytes' } });
    const small = Buffer.from(TOOL_CALL.replace('"bookId":1', '"bookId":3') + ' '.repeat(60_000));
    const served = await postPart(server.url, '127.0.0.5', { 'Content-Length': String(small.length) }, small, true);
    assert.equal(served.status, 200, served.body);
    assert.match(served.body, /Book 3/);
  });

  test('on SIGTERM a call in flight finishes, a new call is refused, and the process exits 0', async () => {
    const gate = await startGate(api.url);
    try {
      const server = await startReplica('drain', dll, settings({ LIMITS_BASE_URL: gate.url, LIMITS_DRAIN_SECONDS: '30' }));
      servers.push(server);
      const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));
      const client = await connectFrom(server.url, '127.0.0.1');
      clients.push(client);
      const inFlight = client.callTool({ name: 'get_book', arguments: { bookId: 7 } }, undefined, { timeout: 60_000 });
      await gate.reached;
      server.process.kill('SIGTERM');
      // The server stops listening at once: a new call cannot connect, while the one in flight is still served.
      // (A connection the kernel took into the backlog just before the listener closed is reset instead.)
      assert.match(String(await refusal(server.url)), /^(ECONNREFUSED|ECONNRESET)$/, 'a new call during the drain is refused');
      assert.equal(server.process.exitCode, null, 'the server is still finishing the call in flight');
      gate.open();
      const result = await inFlight;
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.equal((JSON.parse((result.content as { text: string }[])[0]?.text ?? '{}') as { title: string }).title, 'Book 7');
      assert.equal(await exited, 0, server.log());
      assert.match(server.log(), /Stopping: no new connections; requests in flight have 30 s to finish/);
    } finally {
      gate.close();
    }
  });

  test('a call that outlasts the drain is cut off when it ends, and the process exits', async () => {
    const gate = await startGate(api.url);
    try {
      const server = await startReplica('cut', dll, settings({ LIMITS_BASE_URL: gate.url, LIMITS_DRAIN_SECONDS: '2' }));
      servers.push(server);
      const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));
      const client = await connectFrom(server.url, '127.0.0.1');
      clients.push(client);
      const inFlight = client.callTool({ name: 'get_book', arguments: { bookId: 7 } }, undefined, { timeout: 60_000 }).then(() => 'answered', (error: Error) => error.message);
      await gate.reached;
      const stopped = Date.now();
      server.process.kill('SIGTERM');
      // The API never answers: the server gives up on the call after the drain, not after the default 30 s.
      const code = await exited;
      assert.ok(Date.now() - stopped < 15_000, `exited ${Date.now() - stopped} ms after SIGTERM`);
      assert.equal(code, 0, server.log());
      // Its connection was cut: the client never gets an answer.
      assert.equal(await Promise.race([inFlight, new Promise((r) => setTimeout(() => r('unanswered'), 1000))]), 'unanswered');
      assert.match(server.log(), /requests in flight have 2 s to finish/);
    } finally {
      gate.open();
      gate.close();
    }
  });

  test('the Kubernetes manifest gives a stopping pod the preStop wait, the drain and a margin', async () => {
    const [deployment] = parseAllDocuments(await readFile(join(work, 'kubernetes.yaml'), 'utf8')).map((d) => d.toJS() as Record<string, any>);
    const pod = deployment?.spec.template.spec;
    const [container] = pod.containers;
    assert.deepEqual(container.lifecycle, { preStop: { exec: { command: ['sleep', '5'] } } });
    assert.equal(pod.terminationGracePeriodSeconds, 5 + 25 + 5);
    const readme = await readFile(join(work, 'README.md'), 'utf8');
    for (const row of ['| `LIMITS_RATE_LIMIT_PER_MINUTE` | 300 |', '| `LIMITS_RATE_LIMIT_BURST` | 60 |', '| `LIMITS_MAX_REQUEST_BYTES` | 1048576 |', '| `LIMITS_DRAIN_SECONDS` | 25 |']) assert.ok(readme.includes(row), row);
  });
});
