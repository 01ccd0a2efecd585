/**
 * A generated server against a hostile API: a raw TCP server on 127.0.0.1 that redirects to other origins,
 * drips its body, sends 50 MB or never stops, and repeats the credentials it was sent. The server keeps
 * every credential to the API's origin and out of every answer, bounds every call in time and in memory,
 * and refuses to start with a base URL that is not an absolute http(s) URL or a number setting out of range.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { connect, dotnetBuild } from '../examples/harness.js';
import { REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

const SECRETS = { key: 'SENTINEL-header-key-7731', query: 'SENTINEL query/key+7732', cookie: 'SENTINEL-cookie-7733', user: 'sentinel-user', password: 'SENTINEL-password-7734' };
const BASIC = Buffer.from(`${SECRETS.user}:${SECRETS.password}`).toString('base64');

interface Raw { server: Server; port: number; seen: { path: string; head: string }[] }

/** A raw HTTP/1.1 server: each request gets the socket, to answer however badly it likes. */
async function rawServer(answer: (path: string, head: string, socket: Socket) => void): Promise<Raw> {
  const seen: Raw['seen'] = [];
  const server = createServer((socket) => {
    let head = '';
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      if (head.includes('\r\n\r\n')) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const path = head.split(' ')[1] ?? '';
      seen.push({ path, head });
      answer(path, head, socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, seen };
}

const json = (socket: Socket, status: string, body: string): void =>
  void socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);

/** Writes `chunk` for as long as the peer reads. */
function flood(socket: Socket, chunk: Buffer): void {
  const pump = (): void => { while (!socket.destroyed && socket.write(chunk)) { /* until the pipe is full */ } };
  socket.on('drain', pump);
  pump();
}

async function rssMiB(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

describe('generated server against a hostile API', () => {
  let dll = '';
  let api: Raw;
  let elsewhere: Raw;
  let client: Client;
  let pid = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x61);

  before(async () => {
    const directory = scratchDir('red-server');
    assert.equal(await runCli(['init', '--openapi-url', join(REPO, 'test/fixtures/hostile.yaml'), '--server-name', 'Hostile', '--output-dir', directory], { out: () => {}, err: () => {} }), 0);
    const build = await dotnetBuild(directory);
    assert.ok(build.ok, build.output);
    dll = /-> (\S+Hostile\.dll)/.exec(build.output)?.[1] ?? '';
    elsewhere = await rawServer((_, __, socket) => json(socket, '200 OK', '{"stolen":true}'));
    api = await rawServer((path, head, socket) => {
      const route = path.split('?')[0];
      if (route === '/away') return void socket.end(`HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:${elsewhere.port}/steal\r\nContent-Length: 0\r\n\r\n`);
      if (route === '/around') return void socket.end('HTTP/1.1 307 Temporary Redirect\r\nLocation: /landing\r\nContent-Length: 0\r\n\r\n');
      if (route === '/landing') return json(socket, '200 OK', JSON.stringify({ landed: true, header: head.includes(`X-API-Key: ${SECRETS.key}`) }));
      if (route === '/drip') {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[');
        const timer = setInterval(() => socket.write(' '), 1000);
        return void socket.on('close', () => clearInterval(timer));
      }
      if (route === '/huge') {
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n["`);
        return flood(socket, chunk);
      }
      if (route === '/endless' || route === '/file') {
        socket.write(`HTTP/1.1 ${route === '/file' ? '200 OK\r\nContent-Type: application/octet-stream' : '500 Internal Server Error\r\nContent-Type: text/plain'}\r\nTransfer-Encoding: chunked\r\n\r\n`);
        return flood(socket, Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
      }
      if (route === '/echo') return json(socket, '401 Unauthorized', JSON.stringify({ message: `rejected: ${head}` }));
      return json(socket, '200 OK', JSON.stringify({ path }));
    });
    client = await connect({ command: 'dotnet', args: [dll] }, {
      HOSTILE_BASE_URL: `http://127.0.0.1:${api.port}`, HOSTILE_API_KEY: SECRETS.key, HOSTILE_QUERY_KEY: SECRETS.query, HOSTILE_SESSION_COOKIE_KEY: SECRETS.cookie,
      HOSTILE_BASIC_AUTH_USERNAME: SECRETS.user, HOSTILE_BASIC_AUTH_PASSWORD: SECRETS.password, HOSTILE_TIMEOUT_SECONDS: '3', HOSTILE_MAX_RESULT_LENGTH: '2000',
    });
    pid = (client.transport as unknown as { pid: number | null }).pid ?? 0;
  });

  after(async () => {
    await client?.close();
    for (const raw of [api, elsewhere]) raw?.server.close();
  });

  const answer = async (name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    return { text: (result.content as { text: string }[])[0]?.text ?? '', isError: result.isError === true };
  };

  test('credentials go only to the API\'s origin: a redirect elsewhere is refused, one within the origin followed', async () => {
    const away = await answer('get_away');
    assert.deepEqual(away, { isError: true, text: `Error: GET /away was redirected to http://127.0.0.1:${elsewhere.port}, another origin than the API's, and the redirect was not followed (HTTP 302)` });
    assert.deepEqual(elsewhere.seen, [], 'the other origin received a request');
    assert.deepEqual(JSON.parse((await answer('get_around')).text), { landed: true, header: true });
    const landing = api.seen.at(-1)?.head ?? '';
    assert.ok(landing.startsWith(`GET /landing?key=${encodeURIComponent(SECRETS.query)} `), landing);
  });

  test('the timeout covers the body: headers then one byte a second ends at 3 s', async (t) => {
    const started = performance.now();
    assert.deepEqual(await answer('get_drip'), { isError: true, text: 'Error: GET /drip timed out after 3 s' });
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds >= 2.5 && seconds < 8, `${seconds} s`);
    t.diagnostic(`dripping body ended after ${seconds.toFixed(1)} s`);
  });

  test('memory is bounded whatever the API sends: 50 MB, an endless error body, endless files, 20 at a time', async (t) => {
    const before = await rssMiB(pid);
    const huge = await answer('get_huge');
    assert.ok(huge.text.startsWith('["aaaa') && huge.text.length < 2200, huge.text.slice(0, 60));
    assert.match(huge.text, /\n\[truncated: the response was cut at 65536 bytes and not read further; ask for less, e\.g\. with filters or paging\]$/);
    assert.deepEqual(await answer('get_endless'), { isError: true, text: 'Error: The API failed on GET /endless: Internal Server Error (HTTP 500)' });
    const file = JSON.parse((await answer('get_file')).text) as { length?: number; base64?: string; note?: string };
    assert.deepEqual([file.length, file.base64, file.note], [undefined, undefined, 'The content is over 65536 bytes and is not returned.']);
    await Promise.all(Array.from({ length: 20 }, (_, i) => answer(['get_huge', 'get_endless', 'get_file'][i % 3] ?? 'get_huge')));
    const grown = (await rssMiB(pid)) - before;
    assert.ok(grown < 150, `RSS grew by ${grown.toFixed(0)} MiB`);
    t.diagnostic(`server RSS ${before.toFixed(0)} MiB before, grew by ${grown.toFixed(0)} MiB`);
  });

  test('credentials the API repeats are redacted: the key, the query key, the Basic header', async () => {
    const echoed = await answer('get_echo');
    assert.equal(echoed.isError, true);
    assert.match(echoed.text, /^Error: rejected: GET \/echo\?key=\[redacted\] HTTP\/1\.1/);
    for (const secret of [SECRETS.key, SECRETS.query, encodeURIComponent(SECRETS.query), SECRETS.password, BASIC]) assert.ok(!echoed.text.includes(secret), secret);
    assert.ok(echoed.text.includes('Authorization: Basic [redacted]'), echoed.text);
  });

  test('a text argument holding a lone surrogate is an invalid argument, not a protocol error', async () => {
    assert.deepEqual(await answer('get_search', { q: 'a\ud800b' }), { isError: true, text: "Error: invalid arguments for get_search: 'q' is not valid text (it holds half of a UTF-16 surrogate pair)" });
  });

  test('a base URL that is not an absolute http(s) URL, a number setting out of range: the server refuses to start, in one line', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ HOSTILE_BASE_URL: '/api/v2' }, 'error: the base URL "/api/v2" is not an absolute http(s) URL: set HOSTILE_BASE_URL'],
      [{ HOSTILE_BASE_URL: 'javascript:alert(1)' }, 'error: the base URL "javascript:alert(1)" is not an absolute http(s) URL: set HOSTILE_BASE_URL'],
      [{ HOSTILE_BASE_URL: 'http://127.0.0.1:9/', HOSTILE_TIMEOUT_SECONDS: '-5' }, 'error: HOSTILE_TIMEOUT_SECONDS is "-5": give a number from 1 to 3600'],
      [{ HOSTILE_BASE_URL: 'http://127.0.0.1:9/', HOSTILE_MAX_RESULT_LENGTH: 'lots' }, 'error: HOSTILE_MAX_RESULT_LENGTH is "lots": give a number from 1000 to 50000000'],
    ];
    for (const [settings, message] of cases) {
      const child = spawn('dotnet', [dll], { env: { ...process.env, ...settings }, stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => void (stderr += c.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.equal(code, 1, stderr);
      assert.equal(stderr, `${message}\n`);
    }
  });
});
