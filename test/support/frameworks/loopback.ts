/**
 * A LoopBack 4 app of our own (test/fixtures/frameworks/loopback): todos and todo lists, written in LoopBack's
 * ordinary style (models with @model/@property, repositories with a hasMany/belongsTo relation and inclusion
 * resolvers, the REST CRUD controllers `lb4 controller` writes, a bulk DELETE by `where`, a multipart file upload
 * parsed by multer as in LoopBack's file transfer example), its state kept by the
 * memory connector in a JSON file. It serves at /openapi.json the OpenAPI 3.0 document LoopBack generates, whose
 * `filter` and `where` query parameters are declared with `content: {"application/json": …}`.
 *
 * On first use its packages are installed from its committed lockfile (`npm ci` in the app's folder, when its
 * node_modules is missing); each start compiles it with the repository's TypeScript (its own tsconfig:
 * experimentalDecorators, emitDecoratorMetadata). The app runs on 127.0.0.1 on a free port with its state file, the
 * files uploaded to it, and a request log (each request's method and URL as received, and each JSON body as sent) in a
 * scratch folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../golden.js';
import { scratchDir } from '../scratch.js';
import { fetchJson, freePort, startProcess, withFreshPorts, type RealServer } from '../real-apis.js';

/** The app's folder (package.json, package-lock.json, tsconfig.json, src/). */
export const LOOPBACK_APP = join(REPO, 'test/fixtures/frameworks/loopback');
const TSC = join(REPO, 'node_modules/.bin/tsc');

/** Installs the app's packages when missing (npm ci from its lockfile), then compiles it (dist/). */
export function ensureLoopback(): void {
  if (!existsSync(join(LOOPBACK_APP, 'node_modules/@loopback/rest/package.json'))) {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: LOOPBACK_APP, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  execFileSync(TSC, ['-p', LOOPBACK_APP], { stdio: ['ignore', 'inherit', 'inherit'] });
}

/** The version of a package the app depends on, as its package.json pins it (`@loopback/rest` → `15.0.12`). */
export function loopbackVersion(name: string): string {
  return (JSON.parse(readFileSync(join(LOOPBACK_APP, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies[name] ?? '?';
}

/** One line of the app's request log: a request as it arrived, or a JSON body exactly as it was sent. */
export type LoggedRequest =
  | { kind: 'request'; method: string; url: string; headers: string[] }
  | { kind: 'body'; method: string; url: string; body: string };

export interface LoopbackServer extends RealServer {
  /** The URL of the OpenAPI document LoopBack serves. */
  readonly specUrl: string;
  /** The API key the delete operations need in X-API-Key. */
  readonly apiKey: string;
  /** The folder uploaded files are stored in (`todo-<id>/<file name>`; each has an `Attachment` row). */
  readonly uploads: string;
  /** The rows of a model as the memory connector's state file has them, by id order (none before the first write). */
  rows(model: 'Todo' | 'TodoList' | 'Attachment'): Record<string, unknown>[];
  /** The request log from its start. */
  requests(): LoggedRequest[];
  /** A request to the app's REST API: the JSON answer, or undefined for an empty one; throws on an error status. */
  api(path: string, init?: Parameters<typeof fetchJson>[1]): Promise<any>;
}

/** The app on a free port of 127.0.0.1, with a fresh state file. */
export function startLoopback(): Promise<LoopbackServer> {
  return withFreshPorts(startOnce);
}

async function startOnce(): Promise<LoopbackServer> {
  const folder = scratchDir('loopback');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const state = join(folder, 'state.json');
  const log = join(folder, 'requests.jsonl');
  const uploads = join(folder, 'uploads');
  const apiKey = `key-${process.pid}-${Date.now()}`;
  const server = await startProcess('LoopBack todo app', process.execPath, [join(LOOPBACK_APP, 'dist/index.js')], folder, origin,
    async () => (await fetch(`${origin}/openapi.json`, { signal: AbortSignal.timeout(1_000) })).ok,
    { ...process.env, HOST: '127.0.0.1', PORT: String(port), TODO_STATE_FILE: state, TODO_API_KEY: apiKey, TODO_UPLOAD_DIR: uploads, TODO_REQUEST_LOG: log, DEBUG: '' });
  return {
    ...server,
    specUrl: `${origin}/openapi.json`,
    apiKey,
    uploads,
    rows(model) {
      if (!existsSync(state)) return [];
      const saved = JSON.parse(readFileSync(state, 'utf8')) as { models: Record<string, Record<string, string>> };
      return Object.values(saved.models[model] ?? {}).map((row) => JSON.parse(row) as Record<string, unknown>).sort((a, b) => Number(a.id) - Number(b.id));
    },
    requests: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as LoggedRequest) : []),
    api: (path, init) => fetchJson(`${origin}${path}`, init),
  };
}
