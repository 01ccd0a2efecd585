/**
 * The Fastify app of the framework tests (test/fixtures/frameworks/fastify: events with their venue, speakers and a
 * poster), plain JavaScript (ESM) on Fastify 5 with @fastify/swagger 9 in dynamic mode, which writes the OpenAPI 3.1
 * document from the routes' JSON schemas at run time, and @fastify/multipart for the poster upload. Its packages are
 * installed with `npm ci` from the app's own package-lock.json when its node_modules is missing; the app runs on the
 * Node that runs the tests, on 127.0.0.1, and writes its state as JSON after every change (STATE_FILE) and the
 * posters' bytes as files (UPLOAD_DIR), in a scratch folder which the tests read.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../golden.js';
import { scratchDir } from '../scratch.js';
import { fetchJson, freePort, startProcess, withFreshPorts, type RealServer } from '../real-apis.js';

/** The app's folder: package.json, package-lock.json, server.js and the rest of its source. */
export const FASTIFY_APP = join(REPO, 'test/fixtures/frameworks/fastify');

/** The packages the app is installed with, as its package-lock.json pins them. */
const PACKAGES = ['fastify', '@fastify/swagger', '@fastify/multipart'] as const;

/** `npm ci` into the app's folder when a package is missing (its install scripts are not run: none is needed). */
export function ensureFastifyApp(): void {
  if (PACKAGES.every((name) => existsSync(join(FASTIFY_APP, 'node_modules', name, 'package.json')))) return;
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: FASTIFY_APP, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The versions installed: fastify, @fastify/swagger, @fastify/multipart. */
export function fastifyVersions(): Record<(typeof PACKAGES)[number], string> {
  return Object.fromEntries(PACKAGES.map((name) => [name, (JSON.parse(readFileSync(join(FASTIFY_APP, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version])) as Record<(typeof PACKAGES)[number], string>;
}

export interface StoredEvent {
  id: number;
  title: string;
  category: string;
  startsAt: string;
  endsAt: string | null;
  venue: { name: string; address: { street?: string; city: string; country: string } };
  speakers: { name: string; email: string; bio?: string | null }[];
  tags: string[];
  capacity?: number;
  price?: number;
  createdAt: string;
  poster: { fileName: string; contentType: string; size: number; sha256: string; alt: string | null; storedAs: string } | null;
}

export interface EventsState {
  nextId: number;
  events: StoredEvent[];
  /** Idempotency-Key → the id of the event the first request with it created. */
  idempotencyKeys: Record<string, number>;
}

export interface FastifyServer extends RealServer {
  /** The document @fastify/swagger writes, as the app serves it. */
  readonly documentUrl: string;
  /** The API key the app's write routes accept (header x-api-key). */
  readonly apiKey: string;
  /** The folder the app writes posters to (StoredEvent.poster.storedAs names them). */
  readonly uploads: string;
  /** The app's state as it last wrote it. */
  state(): EventsState;
  /** One event of the state, or undefined. */
  event(id: number): StoredEvent | undefined;
  /** A request to the app (path from the root), with the API key. */
  api(path: string, init?: Parameters<typeof fetchJson>[1]): Promise<any>;
}

/** The app on a free port of 127.0.0.1, its state and uploads in a new scratch folder. */
export function startFastify(): Promise<FastifyServer> {
  return withFreshPorts(startOnce);
}

async function startOnce(): Promise<FastifyServer> {
  ensureFastifyApp();
  const folder = scratchDir('fastify');
  const stateFile = join(folder, 'state.json');
  const uploads = join(folder, 'uploads');
  const apiKey = `events-${process.pid}-${Date.now()}`;
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const documentUrl = `${origin}/openapi.json`;
  const server = await startProcess('Fastify app', process.execPath, [join(FASTIFY_APP, 'server.js')], folder, origin,
    async () => (await fetch(documentUrl, { signal: AbortSignal.timeout(1_000) })).ok,
    { ...process.env, HOST: '127.0.0.1', PORT: String(port), API_KEY: apiKey, STATE_FILE: stateFile, UPLOAD_DIR: uploads, LOG_LEVEL: 'warn', NODE_ENV: 'production' });
  const state = (): EventsState => JSON.parse(readFileSync(stateFile, 'utf8')) as EventsState;
  return {
    ...server,
    documentUrl,
    apiKey,
    uploads,
    state,
    event: (id) => state().events.find((e) => e.id === id),
    api: (path, init = {}) => fetchJson(`${origin}${path}`, { ...init, headers: { 'x-api-key': apiKey, ...init.headers } }),
  };
}
