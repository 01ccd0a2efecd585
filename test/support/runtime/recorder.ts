/**
 * A recording HTTP proxy between a generated server and the mock: what the server sent and what it got
 * back, for each call, so that a failed call can be put down to its cause.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

const KEPT_BYTES = 4096;

export interface Exchange {
  readonly method: string;
  /** Path and query as sent. */
  readonly url: string;
  readonly requestHeaders: IncomingHttpHeaders;
  /** The first 4 KB of the request body, as text. */
  readonly requestBody: string;
  /** -1 while the mock has not answered. */
  readonly status: number;
  readonly contentType: string;
  /** Prism's request validation messages (`sl-violations`), errors only. */
  readonly violations: readonly string[];
  /** The first 4 KB of the response body, as text. */
  readonly responseBody: string;
}

export interface Recorder {
  readonly url: string;
  /** The exchanges since the last call, which are then forgotten. */
  take(): Exchange[];
  close(): Promise<void>;
}

function violationsOf(header: string | string[] | undefined): string[] {
  if (typeof header !== 'string') return [];
  // Past a size, Prism writes `Too many violations! [...]`, the list perhaps cut short.
  const text = header.replace(/^Too many violations! /, '');
  try {
    const list = JSON.parse(text) as { severity?: string; message?: string; location?: string[] }[];
    return list.filter((v) => v.severity === 'Error').map((v) => `${(v.location ?? []).join('.')}: ${v.message ?? ''}`);
  } catch {
    // A cut list: its complete entries still tell request from response.
    return [...text.matchAll(/\{"location":\[([^\]]*)\],"severity":"Error","code":"[^"]*","message":"((?:[^"\\]|\\.)*)"\}/g)]
      .map((m) => `${(JSON.parse(`[${m[1]}]`) as string[]).join('.')}: ${JSON.parse(`"${m[2]}"`) as string}`);
  }
}

const head = (bytes: Buffer): string => bytes.subarray(0, KEPT_BYTES).toString('utf8');

export async function startRecorder(target: string): Promise<Recorder> {
  const upstream = new URL(target);
  let exchanges: Exchange[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const sent = { method: incoming.method ?? '', url: incoming.url ?? '', requestHeaders: incoming.headers, requestBody: head(body) };
      // Recorded at once, so that a request the mock never answers is seen too.
      const index = exchanges.push({ ...sent, status: -1, contentType: '', violations: [], responseBody: '' }) - 1;
      const list = exchanges;
      const headers = { ...incoming.headers, host: upstream.host };
      const forward = request({ host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers }, async (answer) => {
        const responseChunks: Buffer[] = [];
        for await (const chunk of answer) responseChunks.push(chunk as Buffer);
        const responseBody = Buffer.concat(responseChunks);
        list[index] = {
          ...sent,
          status: answer.statusCode ?? 0,
          contentType: String(answer.headers['content-type'] ?? ''),
          violations: violationsOf(answer.headers['sl-violations']),
          responseBody: head(responseBody),
        };
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        outgoing.end(responseBody);
      });
      forward.on('error', (error) => {
        list[index] = { ...sent, status: 0, contentType: '', violations: [], responseBody: `proxy: ${error.message}` };
        if (!outgoing.headersSent) outgoing.writeHead(502);
        outgoing.end();
      });
      outgoing.on('close', () => forward.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take: () => {
      const taken = exchanges;
      exchanges = [];
      return taken;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
