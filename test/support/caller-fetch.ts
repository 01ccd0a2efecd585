/**
 * MCP clients over HTTP that each come from a loopback address of their own (127.0.0.1, 127.0.0.2, …), so that a
 * generated HTTP server sees them as different callers (McpCaller: `ip:<address>`) without listening anywhere but
 * 127.0.0.1. The SDK's Streamable HTTP transport takes a fetch; this one is node:http with a local address.
 */
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** fetch, sending from `localAddress` (any 127.x.y.z works on Linux loopback). */
export function fetchFrom(localAddress: string): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return (url, init = {}) => new Promise((resolve, reject) => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = typeof init.body === 'string' ? init.body : undefined;
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const sent = request(url, { method: init.method ?? 'GET', headers, localAddress, signal: init.signal ?? undefined }, (answer) => {
      const got = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) {
        for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) got.append(name, one);
      }
      const status = answer.statusCode ?? 500;
      const empty = status === 204 || status === 304 || init.method === 'HEAD';
      if (empty) answer.resume();
      resolve(new Response(empty ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>), { status, headers: got }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** An MCP client of `url` (the server's base, /mcp added) whose requests come from `localAddress`. */
export async function connectFrom(url: string, localAddress: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { fetch: fetchFrom(localAddress) });
  const client = new Client({ name: `caller-${localAddress}`, version: '1.0.0' });
  await client.connect(transport);
  return client;
}
