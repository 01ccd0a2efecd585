/**
 * The FastAPI app of the framework tests (test/fixtures/frameworks/fastapi/tasks_app.py, a task tracker), on the
 * FastAPI Debian bookworm ships: python3-fastapi 0.92 (Pydantic 1.10, Starlette 0.26), served by uvicorn 0.17
 * (python3-uvicorn), with python3-multipart for its file upload. The packages are installed with apt-get on first
 * use (as root, as CI runs); the app runs on Debian's own Python (/usr/bin/python3, whatever python3 comes first on
 * PATH), on 127.0.0.1, with its SQLite database and uploaded files in a scratch folder, which the tests read (the
 * sqlite3 CLI, and the files themselves).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../golden.js';
import { scratchDir } from '../scratch.js';
import { fetchJson, freePort, requireFile, requireProgram, startProcess, withFreshPorts, type RealServer } from '../real-apis.js';

/** The app's folder (its Python module, and the overlay that fixes its document). */
export const FASTAPI_APP = join(REPO, 'test/fixtures/frameworks/fastapi');
/** Declares as nullable the optional fields of TaskPatch, which the app clears when given null (Pydantic 1 says nothing of it). */
export const FASTAPI_NULLABLE_OVERLAY = join(FASTAPI_APP, 'nullable.overlay.yaml');

const PYTHON = '/usr/bin/python3';
const DIST_PACKAGES = '/usr/lib/python3/dist-packages';

/** Debian's Python with FastAPI, uvicorn and python-multipart (apt-get when missing), and the sqlite3 CLI. */
export function ensureFastApi(): void {
  requireFile(PYTHON, 'python3');
  requireFile(join(DIST_PACKAGES, 'fastapi/__init__.py'), 'python3-fastapi');
  requireFile(join(DIST_PACKAGES, 'uvicorn/__init__.py'), 'python3-uvicorn');
  requireFile(join(DIST_PACKAGES, 'multipart/__init__.py'), 'python3-multipart');
  requireProgram('sqlite3', 'sqlite3');
}

/** The versions of the packages the app runs on, as Python reports them. */
export function fastApiVersions(): { fastapi: string; pydantic: string; uvicorn: string } {
  const script = 'import json, fastapi, pydantic, uvicorn; print(json.dumps({"fastapi": fastapi.__version__, "pydantic": pydantic.VERSION, "uvicorn": uvicorn.__version__}))';
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { encoding: 'utf8', env: pythonEnv({}) })) as { fastapi: string; pydantic: string; uvicorn: string };
}

export interface FastApiServer extends RealServer {
  /** The document FastAPI serves. */
  readonly documentUrl: string;
  /** The bearer token the app's write routes accept. */
  readonly token: string;
  /** The SQLite database file (tables tasks, attachments, requests). */
  readonly database: string;
  /** The folder the app stores uploaded files in (attachments.stored_as names them). */
  readonly uploads: string;
  /** Rows of a query run on the database file with the sqlite3 CLI (JSON mode). */
  rows(sql: string): Record<string, unknown>[];
  /** A request to the app (path from the root), with the bearer token. */
  api(path: string, init?: Parameters<typeof fetchJson>[1]): Promise<any>;
}

/** The app on a free port of 127.0.0.1, its database and uploads in a new scratch folder. */
export function startFastApi(): Promise<FastApiServer> {
  return withFreshPorts(startOnce);
}

/** The environment for Debian's Python: no bytecode written into the repository, nothing of another Python's. */
function pythonEnv(more: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1', ...more };
  for (const name of ['PYTHONPATH', 'PYTHONHOME', 'PYTHONSTARTUP', 'VIRTUAL_ENV']) delete env[name];
  return env;
}

async function startOnce(): Promise<FastApiServer> {
  ensureFastApi();
  const sqlite3 = requireProgram('sqlite3', 'sqlite3');
  const folder = scratchDir('fastapi');
  const database = join(folder, 'tasks.sqlite');
  const uploads = join(folder, 'uploads');
  mkdirSync(uploads);
  const token = `tasks-${process.pid}-${Date.now()}`;
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const documentUrl = `${origin}/openapi.json`;
  const server = await startProcess('FastAPI (uvicorn)', PYTHON, [
    '-m', 'uvicorn', 'tasks_app:app', '--app-dir', FASTAPI_APP, '--host', '127.0.0.1', '--port', String(port), '--log-level', 'warning',
  ], folder, origin, async () => (await fetch(documentUrl, { signal: AbortSignal.timeout(1_000) })).ok,
  pythonEnv({ TASKS_DATABASE: database, TASKS_UPLOADS: uploads, TASKS_TOKEN: token }));
  return {
    ...server,
    documentUrl,
    token,
    database,
    uploads,
    rows: (sql) => JSON.parse(execFileSync(sqlite3, ['-json', database, sql], { encoding: 'utf8' }) || '[]') as Record<string, unknown>[],
    api: (path, init = {}) => fetchJson(`${origin}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } }),
  };
}
