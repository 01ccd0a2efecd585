/**
 * The Hono app of the framework tests (test/fixtures/frameworks/hono: meeting rooms and their cover pictures), plain
 * JavaScript (ESM) on Hono 4 served by @hono/node-server, its routes declared with @hono/zod-openapi (zod 4), which
 * validates each request with zod and writes the OpenAPI 3.1 document from the same schemas at run time. The API sits
 * under /api, and the document (served at /api/openapi.json) names its server relative to it (`/api`). The cover
 * upload is read with Hono's parseBody, which is the fetch API's `Request.formData()`: Node's own multipart parser,
 * the one fetch-style servers share. Its packages are installed with `npm ci` from the app's own package-lock.json
 * when its node_modules is missing; the app runs on the Node that runs the tests, on 127.0.0.1, and writes its state
 * as JSON after every change (STATE_FILE) and the covers' bytes as files (UPLOAD_DIR), in a scratch folder which the
 * tests read.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../golden.js';
import { scratchDir } from '../scratch.js';
import { fetchJson, freePort, startProcess, withFreshPorts, type RealServer } from '../real-apis.js';

/** The app's folder: package.json, package-lock.json, server.js and the rest of its source. */
export const HONO_APP = join(REPO, 'test/fixtures/frameworks/hono');

/** The packages the app is installed with, as its package-lock.json pins them. */
const PACKAGES = ['hono', '@hono/zod-openapi', '@hono/node-server', 'zod'] as const;

/** `npm ci` into the app's folder when a package is missing (its install scripts are not run: none is needed). */
export function ensureHonoApp(): void {
  if (PACKAGES.every((name) => existsSync(join(HONO_APP, 'node_modules', name, 'package.json')))) return;
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: HONO_APP, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The versions installed, by package name. */
export function honoVersions(): Record<(typeof PACKAGES)[number], string> {
  return Object.fromEntries(PACKAGES.map((name) => [name, (JSON.parse(readFileSync(join(HONO_APP, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version])) as Record<(typeof PACKAGES)[number], string>;
}

export interface StoredRoom {
  id: number;
  name: string;
  capacity: number;
  floor: number | null;
  notes: string | null;
  cover: { fileName: string; contentType: string; size: number; storedAs: string } | null;
}

export interface HonoServer extends RealServer {
  /** The document @hono/zod-openapi writes, as the app serves it. */
  readonly documentUrl: string;
  /** The API key the app's write routes accept (header x-api-key). */
  readonly apiKey: string;
  /** The folder the app writes covers to (StoredRoom.cover.storedAs names them). */
  readonly uploads: string;
  /** The app's rooms as it last wrote them. */
  rooms(): StoredRoom[];
  /** A request to the app's API (path under /api), with the API key. */
  api(path: string, init?: Parameters<typeof fetchJson>[1]): Promise<any>;
}

/** The app on a free port of 127.0.0.1, its state and uploads in a new scratch folder. */
export function startHono(): Promise<HonoServer> {
  return withFreshPorts(startOnce);
}

async function startOnce(): Promise<HonoServer> {
  ensureHonoApp();
  const folder = scratchDir('hono');
  const stateFile = join(folder, 'state.json');
  const uploads = join(folder, 'uploads');
  const apiKey = `rooms-${process.pid}-${Date.now()}`;
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const documentUrl = `${origin}/api/openapi.json`;
  const server = await startProcess('Hono app', process.execPath, [join(HONO_APP, 'server.js')], folder, origin,
    async () => (await fetch(documentUrl, { signal: AbortSignal.timeout(1_000) })).ok,
    { ...process.env, HOST: '127.0.0.1', PORT: String(port), API_KEY: apiKey, STATE_FILE: stateFile, UPLOAD_DIR: uploads });
  return {
    ...server,
    documentUrl,
    apiKey,
    uploads,
    rooms: () => (JSON.parse(readFileSync(stateFile, 'utf8')) as { rooms: StoredRoom[] }).rooms,
    api: (path, init = {}) => fetchJson(`${origin}/api${path}`, { ...init, headers: { 'x-api-key': apiKey, ...init.headers } }),
  };
}
