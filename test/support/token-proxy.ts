/**
 * A proxy that adds `Authorization: Bearer <token>` to every request and passes it on to a server, headers (Host and
 * Origin included) and bodies as they are, streaming the answers back: how a signed-in client's requests look to a
 * server, for a client that cannot sign in (the MCP conformance suite).
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startTokenProxy(target: string, token: string): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const forwarded = request({
      host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url,
      headers: { ...incoming.headers, authorization: `Bearer ${token}` },
    }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
