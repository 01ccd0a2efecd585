/**
 * The generated server under faults, driven through the MCP client: timeouts, connections closed
 * mid-body, gateway errors, empty and oversized bodies, cancellation, and 1,000 calls in flight.
 * The fault API picks its misbehaviour from the X-Request-Id header that list_pets sends.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, rm } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { startPetstoreApi } from '../examples/petstore-api.js';
import { callText, connect, dotnetBuild } from '../examples/harness.js';
import { EXAMPLE_SPEC } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api` };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function rssKiB(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('generated server under faults', () => {
  let directory = '';
  let dll = '';
  const abandoned: string[] = [];
  let faults: { server: Server; url: string };
  let client: Client;

  before(async () => {
    directory = scratchDir('faults');
    assert.equal(await runCli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', directory], { out: () => {}, err: () => {} }), 0);
    const build = await dotnetBuild(directory);
    assert.ok(build.ok, build.output);
    dll = /-> (\S+Petstore\.dll)/.exec(build.output)?.[1] ?? '';
    assert.ok(dll.endsWith('Petstore.dll'), build.output);
    faults = await listen((request, response) => {
      const fault = String(request.headers['x-request-id'] ?? '');
      response.on('close', () => { if (!response.writableEnded) abandoned.push(fault); });
      const json = (status: number, body: string, headers: Record<string, string> = {}): void => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(body);
      };
      switch (fault) {
        case 'slow': return void setTimeout(() => json(200, '[]'), 3000);
        case 'cut':
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
          response.write('[{"id": 1, "na');
          return void setTimeout(() => response.destroy(), 50);
        case 'gateway': response.writeHead(502, { 'content-type': 'text/html' }); return void response.end('<html><body>Bad gateway</body></html>');
        case 'unavailable': return json(503, '', { 'retry-after': '7' });
        case 'empty': return json(200, '');
        case 'not-json': return json(200, '<html>oops</html>', { 'content-type': 'text/html' });
        case 'huge': return json(200, JSON.stringify([{ id: 1, name: 'x'.repeat(200_000), species: 'dog' }]));
        case 'hang': return;
        default: return json(200, '[{"id":1,"name":"Rex","species":"dog"}]');
      }
    });
    client = await connect({ command: 'dotnet', args: [dll] }, { PETSTORE_BASE_URL: faults.url, PETSTORE_TIMEOUT_SECONDS: '1', PETSTORE_MAX_RESULT_LENGTH: '1000' });
  });

  after(async () => {
    await client?.close();
    if (faults) await close(faults.server);
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const call = (fault: string): Promise<string> => callText(client, 'list_pets', { xRequestId: fault });

  test('timeout (PETSTORE_TIMEOUT_SECONDS), connection closed mid-body, 502 page, 503 with Retry-After', async () => {
    assert.equal(await call('slow'), 'Error: GET /pets timed out after 1 s');
    assert.match(await call('cut'), /^Error: GET \/pets failed before a complete response arrived: /);
    assert.equal(await call('gateway'), 'Error: The API failed on GET /pets: Bad Gateway (HTTP 502)');
    assert.equal(await call('unavailable'), 'Error: The API failed on GET /pets: Service Unavailable; retry after 7 seconds (HTTP 503)');
  });

  test('empty success body, invalid JSON on success, an answer over the size limit', async () => {
    assert.equal(await call('empty'), '{"status":200}');
    // A success that is not JSON is read as its Content-Type says: here text.
    assert.equal(await call('not-json'), '"<html>oops</html>"');
    const huge = await call('huge');
    assert.ok(huge.startsWith('[{"id":1,"name":"xxxx'), huge.slice(0, 40));
    // Read no further than 64 KB (the larger of 4 × the limit and 64 KB), then cut to the limit.
    assert.match(huge, /\n\[truncated: the response was cut at 65536 bytes and not read further; ask for less, e.g. with filters or paging\]$/);
    assert.ok(huge.length < 1200);
  });

  test('cancellation from the client cancels the HTTP call', async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: 'list_pets', arguments: { xRequestId: 'hang' } }, undefined, { signal: controller.signal, timeout: 30_000 });
    await sleep(500);
    controller.abort();
    await assert.rejects(pending);
    for (let i = 0; i < 40 && !abandoned.includes('hang'); i++) await sleep(50);
    assert.ok(abandoned.includes('hang'), 'the API did not see the request abandoned');
    assert.match(await call('fine'), /^\[\{"id":1,"name":"Rex"/);
  });

  test('1,000 tool calls in flight: every answer right, no crash, memory back to steady state', async () => {
    const api = await startPetstoreApi();
    const loaded = await connect({ command: 'dotnet', args: [dll] }, { PETSTORE_BASE_URL: api.url });
    try {
      const pid = (loaded.transport as unknown as { pid: number | null }).pid ?? 0;
      assert.ok(pid > 0);
      const round = async (): Promise<void> => {
        const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => callText(loaded, 'get_pet', { petId: (i % 3) + 1 })));
        answers.forEach((answer, i) => assert.equal(JSON.parse(answer).id, (i % 3) + 1));
      };
      await round();
      const afterFirst = await rssKiB(pid);
      await round();
      await round();
      const afterThird = await rssKiB(pid);
      assert.ok(afterThird < afterFirst * 1.25 + 20_000, `RSS grew from ${afterFirst} KiB to ${afterThird} KiB`);
      assert.equal(JSON.parse(await callText(loaded, 'get_pet', { petId: 2 })).name, 'Tom');
    } finally {
      await loaded.close();
      await api.close();
    }
  });
});
