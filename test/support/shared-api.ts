/**
 * The API of test/fixtures/shared.yaml, which each caller reaches with their own key, and how its HTTP-transport
 * project is generated (`init --transport http --forward-auth X-Api-Token`). Used by the HTTP transport test and
 * the bench's load area.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** test/fixtures/shared.yaml (this file is dist/test/support/shared-api.js). */
export const SHARED_SPEC = join(import.meta.dirname, '../../../test/fixtures/shared.yaml');
/** The callers' keys the API knows. */
export const SHARED_KEYS = { alice: 'alice-SENTINEL-key-7f3a', bob: 'bob-SENTINEL-key-91c2' } as const;
/** The header each caller sends their key in to the MCP server (--forward-auth). */
export const FORWARD_HEADER = 'X-Api-Token';

/** The arguments of `init` for the HTTP-transport project of shared.yaml (server name Shared) in `outputDir`. */
export function sharedInitArgs(outputDir: string): string[] {
  return ['init', '--openapi-url', SHARED_SPEC, '--server-name', 'Shared', '--output-dir', outputDir, '--transport', 'http', '--forward-auth', FORWARD_HEADER];
}

/**
 * The settings of replica `name`: no credential (each caller brings their own); it tells the API who it is (X-Replica).
 * No per-caller rate limit: the load tests send thousands of calls from one address (nginx's) to measure the server.
 */
export function sharedReplicaEnv(name: string, apiUrl: string, logLevel: string): Record<string, string> {
  return { SHARED_BASE_URL: apiUrl, SHARED_HEADERS: `X-Replica: ${name}`, SHARED_RATE_LIMIT_PER_MINUTE: '0', Logging__LogLevel__Default: logLevel };
}

export interface SharedApi {
  url: string;
  /** Requests by the X-Replica header that came with them. */
  byReplica: Map<string, number>;
  /** The X-API-Key of every request that had one. */
  keys: string[];
  /** The Authorization header of every request that had one (the API takes none: none must come). */
  authorizations: string[];
  close(): Promise<void>;
}

/** The API of shared.yaml: who asked (by X-API-Key), which replica sent it (X-Replica), after delayMs. */
export async function startSharedApi(): Promise<SharedApi> {
  const state = { byReplica: new Map<string, number>(), keys: [] as string[], authorizations: [] as string[] };
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const replica = String(request.headers['x-replica'] ?? '');
    state.byReplica.set(replica, (state.byReplica.get(replica) ?? 0) + 1);
    const key = String(request.headers['x-api-key'] ?? '');
    if (key !== '') state.keys.push(key);
    if (request.headers.authorization !== undefined) state.authorizations.push(request.headers.authorization);
    const reply = (status: number, body: unknown): void => void response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/health') return reply(200, { up: true });
    const match = /^\/items\/(\d+)$/.exec(url.pathname);
    if (!match) return reply(404, { error: 'not found' });
    const owner = Object.entries(SHARED_KEYS).find(([, value]) => value === key)?.[0];
    if (owner === undefined) return reply(401, { error: 'unknown key' });
    setTimeout(() => reply(200, { id: Number(match[1]), owner, key }), Number(url.searchParams.get('delayMs') ?? 0));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ...state,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
