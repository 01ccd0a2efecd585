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
 *
 * Below the app, what the framework test needs of the server generated from its document: its generation, build and
 * start, readers of the request log, and the assertions its checks share.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { environmentVariables } from '../../../src/names/environment.js';
import { connect, serverLog } from '../../../examples/harness.js';
import { REPO } from '../golden.js';
import { scratchDir } from '../scratch.js';
import { buildProjects, credentialVariable, initProject, projectDll } from '../real-api-projects.js';
import { fetchJson, freePort, startProcess, withFreshPorts, type Answer, type RealServer } from '../real-apis.js';

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

/** The tools of the generated server, one per operation of the document, sorted. */
export const TODO_TOOLS = [
  'create_todo', 'create_todo_attachment', 'create_todo_list', 'create_todo_list_todo', 'delete_todo', 'delete_todos', 'get_todo', 'get_todo_count', 'get_todo_list',
  'get_todo_list_count', 'get_todo_todo_list', 'list_todo_list_todos', 'list_todo_lists', 'list_todos', 'patch_todo', 'patch_todos', 'update_todo',
];

/** `init` of the project from the document `app` serves into `work/todos`, and its build: the variable its mcp.json names for the API key. */
export async function generateTodoProject(work: string, app: LoopbackServer): Promise<string> {
  const init = await initProject(work, app.specUrl, 'Todos', 'todos');
  assert.equal(init.code, 0, init.errors);
  const output = await buildProjects(work, ['todos/Todos.csproj']);
  assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
  const key = await credentialVariable(work, 'todos', 'Todos');
  assert.notEqual(key, '', 'the generated mcp.json names no credential variable for the API key');
  return key;
}

/** The server built by generateTodoProject, started against `app` with `apiKey` in the variable `key`. */
export function connectTodos(work: string, app: LoopbackServer, key: string, apiKey: string): Promise<Client> {
  return connect(projectDll(work, 'todos', 'Todos'), { [environmentVariables('Todos').baseUrl]: app.origin, [key]: apiKey });
}

/** What the app received, read from its request log. */
export interface RequestLog {
  /** The position in the request log now: what a call sends is what is logged after it. */
  logMark(): number;
  /** The URLs of the requests `method path` that arrived since `since` (path without the query). */
  received(since: number, method: string, path: string): string[];
  /** The one request `method path` since `since`: its query parameters, each with every value it had. */
  receivedQuery(since: number, method: string, path: string): Record<string, string[]>;
  /** The JSON bodies `method path` sent since `since`, exactly as sent. */
  receivedBodies(since: number, method: string, path: string): string[];
}

/** The request log of the app `app()` returns (called at each read: the app starts in the test's `before`). */
export function requestLog(app: () => LoopbackServer): RequestLog {
  const received = (since: number, method: string, path: string): string[] =>
    app().requests().slice(since).filter((r) => r.kind === 'request' && r.method === method && new URL(r.url, app().origin).pathname === path).map((r) => r.url);
  return {
    logMark: () => app().requests().length,
    received,
    receivedQuery(since, method, path) {
      const urls = received(since, method, path);
      assert.equal(urls.length, 1, `expected one ${method} ${path}, the app received: ${JSON.stringify(urls)}`);
      const query: Record<string, string[]> = {};
      for (const [name, value] of new URL(urls[0]!, app().origin).searchParams) (query[name] ??= []).push(value);
      return query;
    },
    receivedBodies: (since, method, path) =>
      app().requests().slice(since).flatMap((r) => (r.kind === 'body' && r.method === method && new URL(r.url, app().origin).pathname === path ? [r.body] : [])),
  };
}

/** The query parameter `name` sent as ONE JSON value, as the document declares it (`content: application/json`). */
export function assertJsonParameter(query: Record<string, string[]>, name: string, value: unknown, url: string): void {
  assert.deepEqual(Object.keys(query), [name], `the app should receive only ?${name}=<JSON>; it received ${url}`);
  assert.equal(query[name]!.length, 1, `?${name} more than once: ${url}`);
  assert.deepEqual(JSON.parse(query[name]![0]!), value, `?${name} is not the JSON given: ${url}`);
}

/** That the answer is an error whose text matches each reason. */
export function assertError(answer: Answer, ...reasons: RegExp[]): void {
  assert.equal(answer.isError, true, `not an error: ${answer.text.slice(0, 500)}`);
  for (const reason of reasons) assert.match(answer.text, reason);
}

/** That the answer is a success, whose text need not be JSON (LoopBack's 204s); on an error, with the end of `client`'s log. */
export function assertDone(answer: Answer, client: Client): void {
  assert.equal(answer.isError, false, `the tool answered with an error: ${answer.text}\n${serverLog(client).slice(-2_000)}`);
  assert.doesNotMatch(answer.text, /^Error:/, answer.text);
}

/** `rows` latest first by `key` (ISO date-time strings), each with only `fields`, in that order. */
export function latestFirst(rows: Record<string, unknown>[], key: string, fields: readonly string[]): Record<string, unknown>[] {
  return [...rows].sort((a, b) => String(b[key]).localeCompare(String(a[key]))).map((row) => Object.fromEntries(fields.map((field) => [field, row[field]])));
}
