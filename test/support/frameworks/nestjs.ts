/**
 * The NestJS app of the framework tests (test/fixtures/frameworks/nestjs: tasks with their assignee, checklist and
 * attachments), an ordinary Nest 11 app in TypeScript on Express: DTOs with class-validator decorators and
 * @ApiProperty, a global ValidationPipe, a bearer-token guard, a FileInterceptor upload, and the OpenAPI 3.0 document
 * that @nestjs/swagger 11 builds at run time (SwaggerModule.createDocument) served at /api-json. Its packages are
 * installed with `npm ci` from the app's own package-lock.json when its node_modules is missing, and the app is
 * compiled with its own TypeScript (tsc -p, its tsconfig.json with experimentalDecorators and
 * emitDecoratorMetadata) into its dist/ at every start. It runs on the Node that runs the tests, on 127.0.0.1, and
 * writes its state as JSON after every change (STATE_FILE) and the attachments' bytes as files (UPLOAD_DIR), in a
 * scratch folder which the tests read.
 *
 * Below the app, what the framework test needs of the servers generated from its document: their generation, build
 * and start, and the helpers its checks share.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { environmentVariables } from '../../../src/names/environment.js';
import { connect } from '../../../examples/harness.js';
import { REPO } from '../golden.js';
import { scratchDir } from '../scratch.js';
import { buildProjects, credentialVariable, initProject, projectDll } from '../real-api-projects.js';
import { fetchJson, freePort, startProcess, withFreshPorts, type Answer, type RealServer } from '../real-apis.js';

/** The app's folder: package.json, package-lock.json, tsconfig.json and src/. */
export const NESTJS_APP = join(REPO, 'test/fixtures/frameworks/nestjs');
/** Types the ids, page and limit as the integers the app takes, and drops the PATCH's default status (see the file). */
export const INTEGER_PARAMS_OVERLAY = join(NESTJS_APP, 'integer-params.overlay.yaml');

/** The packages the app is installed with, as its package-lock.json pins them. */
const PACKAGES = ['@nestjs/core', '@nestjs/common', '@nestjs/platform-express', '@nestjs/swagger', 'class-validator', 'class-transformer', 'typescript'] as const;

/** `npm ci` into the app's folder when a package is missing (install scripts not run: none is needed, and
 * swagger-ui-dist's @scarf/scarf would report the install over the network), then `tsc -p` of the app. */
export function ensureNestApp(): void {
  if (!PACKAGES.every((name) => existsSync(join(NESTJS_APP, 'node_modules', name, 'package.json')))) {
    execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: NESTJS_APP, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  execFileSync(process.execPath, [join(NESTJS_APP, 'node_modules/typescript/bin/tsc'), '-p', NESTJS_APP], { cwd: NESTJS_APP, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** The versions installed, by package name. */
export function nestVersions(): Record<(typeof PACKAGES)[number], string> {
  return Object.fromEntries(PACKAGES.map((name) => [name, (JSON.parse(readFileSync(join(NESTJS_APP, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version])) as Record<(typeof PACKAGES)[number], string>;
}

export interface StoredAttachment {
  id: number;
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
  note: string | null;
}

export interface StoredTask {
  id: number;
  title: string;
  description: string | null;
  priority: string;
  status: string;
  tags: string[];
  assignee: { name: string; email: string } | null;
  checklist: { text: string; done: boolean }[];
  dueAt: string | null;
  estimateHours: number | null;
  attachments: StoredAttachment[];
  createdAt: string;
  updatedAt: string;
}

export interface TasksState {
  nextId: number;
  tasks: StoredTask[];
  /** Attachment id → the file its bytes are stored in, under the upload folder. */
  files: Record<string, string>;
}

export interface NestServer extends RealServer {
  /** The document @nestjs/swagger builds, as SwaggerModule.setup serves it. */
  readonly documentUrl: string;
  /** The bearer token the app's guard accepts. */
  readonly token: string;
  /** The folder the app writes attachments to (TasksState.files names them). */
  readonly uploads: string;
  /** The app's state as it last wrote it. */
  state(): TasksState;
  /** One task of the state, or undefined. */
  task(id: number): StoredTask | undefined;
  /** A request to the app (path from the root), with the bearer token. */
  api(path: string, init?: Parameters<typeof fetchJson>[1]): Promise<any>;
}

/** The app on a free port of 127.0.0.1, its state and uploads in a new scratch folder. */
export function startNest(): Promise<NestServer> {
  return withFreshPorts(startOnce);
}

async function startOnce(): Promise<NestServer> {
  if (!existsSync(join(NESTJS_APP, 'dist/main.js'))) ensureNestApp();
  const folder = scratchDir('nestjs');
  const stateFile = join(folder, 'state.json');
  const uploads = join(folder, 'uploads');
  const token = `tasks-${process.pid}-${Date.now()}`;
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const documentUrl = `${origin}/api-json`;
  const server = await startProcess('NestJS app', process.execPath, [join(NESTJS_APP, 'dist/main.js')], folder, origin,
    async () => (await fetch(documentUrl, { signal: AbortSignal.timeout(1_000) })).ok,
    { ...process.env, HOST: '127.0.0.1', PORT: String(port), API_TOKEN: token, STATE_FILE: stateFile, UPLOAD_DIR: uploads, NODE_ENV: 'production' });
  const state = (): TasksState => JSON.parse(readFileSync(stateFile, 'utf8')) as TasksState;
  return {
    ...server,
    documentUrl,
    token,
    uploads,
    state,
    task: (id) => state().tasks.find((t) => t.id === id),
    api: (path, init = {}) => fetchJson(`${origin}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } }),
  };
}

/** The tools of the generated server, one per operation of the document, sorted. */
export const TASK_TOOLS = ['create_task', 'create_task_attachment', 'delete_task', 'get_task', 'list_tasks', 'patch_task'];

/**
 * `init` of two projects from the document `app` serves, `work/tasks` as published and `work/tasks-overlaid` with
 * INTEGER_PARAMS_OVERLAY, and one build of both: the variable their mcp.json names for the bearer token.
 */
export async function generateTaskProjects(work: string, app: NestServer): Promise<string> {
  for (const init of [await initProject(work, app.documentUrl, 'Tasks', 'tasks'), await initProject(work, app.documentUrl, 'Tasks', 'tasks-overlaid', '--overlay', INTEGER_PARAMS_OVERLAY)]) {
    assert.equal(init.code, 0, init.errors);
  }
  const output = await buildProjects(work, ['tasks/Tasks.csproj', 'tasks-overlaid/Tasks.csproj']);
  assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
  const tokenVariable = await credentialVariable(work, 'tasks', 'Tasks');
  assert.equal(tokenVariable, 'TASKS_BEARER_TOKEN');
  return tokenVariable;
}

/**
 * The servers built by generateTaskProjects, started against `app`: the published one with the app's token, with a
 * wrong token and with none, and the overlaid one with the app's token.
 */
export function connectTasks(work: string, app: NestServer, tokenVariable: string): Promise<[Client, Client, Client, Client]> {
  const base = { [environmentVariables('Tasks').baseUrl]: app.origin };
  const dll = projectDll(work, 'tasks', 'Tasks');
  return Promise.all([
    connect(dll, { ...base, [tokenVariable]: app.token }),
    connect(dll, { ...base, [tokenVariable]: 'not-the-token' }),
    connect(dll, base),
    connect(projectDll(work, 'tasks-overlaid', 'Tasks'), { ...base, [tokenVariable]: app.token }),
  ]);
}

/** A multipart upload made directly to the app as browsers send it (Node's FormData is the WHATWG one): the file name in UTF-8, a quote as %22. */
export async function uploadDirectly(app: NestServer, path: string, fileName: string): Promise<void> {
  const form = new FormData();
  form.set('file', new File([Buffer.from('direct')], fileName, { type: 'text/plain' }));
  const response = await fetch(`${app.origin}${path}`, { method: 'POST', headers: { authorization: `Bearer ${app.token}` }, body: form });
  assert.ok(response.ok, await response.text());
}

/** That the answer is an error whose text matches `reason`. */
export function assertError(answer: Answer, reason: RegExp): void {
  assert.equal(answer.isError, true, `not an error: ${answer.text.slice(0, 300)}`);
  assert.match(answer.text, reason);
}

/** What a task's fields are in the state, without what the app keeps itself (id, times, attachments). */
export function fields(task: StoredTask | undefined): Record<string, unknown> {
  assert.ok(task, 'no such task in the state');
  const { id: _id, createdAt: _createdAt, updatedAt: _updatedAt, attachments: _attachments, ...rest } = task;
  return rest;
}
