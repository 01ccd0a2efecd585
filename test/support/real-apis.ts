/**
 * Real API servers for the real-API tests: Prometheus Alertmanager and etcd, installed from their Debian
 * packages (apt-get, as root, as CI runs) and started on 127.0.0.1 on free ports, with their data in a
 * scratch folder. Each start waits (bounded) until the server answers, and `stop` ends the process and
 * removes its folder; a process still running when the test process exits is killed then.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { aptInstall } from './debian.js';
import { REPO } from './golden.js';
import { scratchDir } from './scratch.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** The documents the servers publish, at the versions Debian bookworm ships (see test/fixtures/real-apis/README.md). */
export const ALERTMANAGER_SPEC = join(REPO, 'test/fixtures/real-apis/alertmanager-v0.25.0.yaml');
export const ETCD_SPEC = join(REPO, 'test/fixtures/real-apis/etcd-v3.4.23.swagger.json');
/** An overlay that makes etcd's ApiKey optional (the document requires it; etcd with auth off refuses it). */
export const ETCD_ANONYMOUS_OVERLAY = join(REPO, 'test/fixtures/real-apis/etcd-anonymous.overlay.yaml');

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Where a program is on PATH (or in /usr/sbin, /usr/bin), or undefined. */
function which(program: string): string | undefined {
  for (const folder of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin']) {
    if (folder && existsSync(join(folder, program))) return join(folder, program);
  }
  return undefined;
}

/**
 * The path of `program`, installing the Debian package that has it when it is missing; throws, saying what
 * to do, when it cannot be had (not root, no network, no such package).
 */
export function requireProgram(program: string, debianPackage: string): string {
  return requireInstalled(program, debianPackage, () => which(program));
}

/** A file a Debian package installs at a fixed path (a schema, a plugin), installing the package when it is missing. */
export function requireFile(path: string, debianPackage: string): string {
  return requireInstalled(path, debianPackage, () => (existsSync(path) ? path : undefined));
}

function requireInstalled(what: string, debianPackage: string, find: () => string | undefined): string {
  const found = find();
  if (found) return found;
  aptInstall(debianPackage);
  const installed = find();
  if (installed) return installed;
  const why = process.getuid?.() === 0
    ? `apt-get install ${debianPackage} did not provide it (no network, or no such package in the configured Debian sources?)`
    : 'the tests install it with apt-get only when they run as root';
  throw new Error(`${what} (Debian package ${debianPackage}) is not installed and could not be installed: ${why}. Install it with: sudo apt-get install ${debianPackage}`);
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface RealServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** The scratch folder with the server's data and configuration. */
  readonly folder: string;
  /** The last 20 KB of the server's output. */
  log(): string;
  /** Ends the server (SIGTERM, then SIGKILL after 5 s) and removes its folder. */
  stop(): Promise<void>;
}

/** Starts `program`, then waits until `ready` is true (at most 30 s), failing with the server's log if it exits or never gets ready. */
export async function startProcess(name: string, program: string, args: string[], folder: string, origin: string, ready: () => Promise<boolean>, env: NodeJS.ProcessEnv = process.env): Promise<RealServer> {
  const child = spawn(program, args, { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: string | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = `exited with ${signal ?? `code ${code}`}`;
      running.delete(child);
      resolve();
    });
    child.once('error', (error) => {
      exited = `could not be started: ${error.message}`;
      running.delete(child);
      resolve();
    });
  });
  const server: RealServer = {
    origin,
    folder,
    log: () => output,
    async stop() {
      if (exited === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exit;
        clearTimeout(timer);
      }
      await rm(folder, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (exited !== undefined) {
      await server.stop();
      throw new Error(`${name} (${program} ${args.join(' ')}) ${exited} before it was ready:\n${output}`);
    }
    if (await ready().catch(() => false)) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${name} was not ready at ${origin} after ${READY_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    await sleep(200);
  }
}

/** Up to three starts: a free port can be taken by another process between {@link freePort} and the server's bind. */
export async function withFreshPorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 3 || !/address already in use/i.test(String(error))) throw error;
    }
  }
}

/** GET or POST with a 5 s bound; the JSON answer, or an error with the status and body. */
export async function fetchJson(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<any> {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.body !== undefined && { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: HTTP ${response.status}: ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** Alertmanager with one receiver (`default`, which sends nothing), clustering off, data in a scratch folder. */
export function startAlertmanager(): Promise<RealServer> {
  return withFreshPorts(startAlertmanagerOnce);
}

async function startAlertmanagerOnce(): Promise<RealServer> {
  const program = requireProgram('prometheus-alertmanager', 'prometheus-alertmanager');
  const folder = scratchDir('alertmanager');
  await writeFile(join(folder, 'alertmanager.yml'), 'route:\n  receiver: default\nreceivers:\n  - name: default\n');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  return startProcess('Alertmanager', program, [
    `--config.file=${join(folder, 'alertmanager.yml')}`,
    `--storage.path=${join(folder, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--cluster.listen-address=',
  ], folder, origin, async () => (await fetch(`${origin}/-/ready`, { signal: AbortSignal.timeout(1_000) })).ok);
}

export interface EtcdServer extends RealServer {
  /** The token of the root user when auth is on (etcd's `Authorization` header), else ''. */
  readonly token: string;
  /** The root user's password when auth is on, else ''. */
  readonly password: string;
  /** POST to the gRPC JSON gateway (/v3/...) with the root user's token. */
  call(path: string, body?: unknown): Promise<any>;
}

/**
 * A one-member etcd cluster on free client and peer ports. With `auth`, user `root` (role root) is added
 * and auth enabled, as the gateway's OpenAPI document expects (every operation needs the `Authorization`
 * header); the token is the root user's, valid for an hour.
 */
export function startEtcd(options: { auth: boolean }): Promise<EtcdServer> {
  return withFreshPorts(() => startEtcdOnce(options));
}

async function startEtcdOnce(options: { auth: boolean }): Promise<EtcdServer> {
  const program = requireProgram('etcd', 'etcd-server');
  const folder = scratchDir('etcd');
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  // etcd reads ETCD_* variables as flags: leave out any the test process has (ETCD_BASE_URL of the MCP server, say).
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('ETCD_')));
  const server = await startProcess('etcd', program, [
    '--name=real-apis',
    `--data-dir=${join(folder, 'data')}`,
    `--listen-client-urls=${origin}`,
    `--advertise-client-urls=${origin}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=real-apis=${peer}`,
    '--auth-token-ttl=3600',
    '--logger=zap',
    '--log-outputs=stderr',
  ], folder, origin, async () => (await fetchJson(`${origin}/health`) as { health?: string }).health === 'true', env);
  let token = '';
  const password = options.auth ? `pw-${process.pid}-${Date.now()}` : '';
  const call = (path: string, body: unknown = {}): Promise<any> =>
    fetchJson(`${origin}${path}`, { body, headers: token ? { authorization: token } : {} });
  try {
    if (options.auth) {
      await call('/v3/auth/role/add', { name: 'root' });
      await call('/v3/auth/user/add', { name: 'root', password });
      await call('/v3/auth/user/grant', { user: 'root', role: 'root' });
      await call('/v3/auth/enable', {});
      token = ((await call('/v3/auth/authenticate', { name: 'root', password })) as { token: string }).token;
      if (!token) throw new Error('etcd gave no token for root');
    }
  } catch (error) {
    await server.stop();
    throw new Error(`etcd: enabling auth failed: ${String(error)}\n${server.log()}`);
  }
  return { ...server, token, password, call };
}

export interface Answer { isError: boolean; text: string }

/** A tool's answer: whether it is flagged isError, and its text (the answer's own block, not the headers beside it). */
export async function call(client: Client, tools: ReadonlySet<string>, name: string, args: Record<string, unknown>): Promise<Answer> {
  assert.ok(tools.has(name), `no tool ${name} in tools/list: ${[...tools].join(', ')}`);
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 });
  return { isError: result.isError === true, text: (result.content as { text?: string }[])[0]?.text ?? '' };
}

/** The JSON of a successful answer; fails with the answer's text when it is an error. */
export function success(answer: Answer): any {
  assert.equal(answer.isError, false, `the tool answered with an error: ${answer.text}`);
  assert.doesNotMatch(answer.text, /^Error:/, answer.text);
  return JSON.parse(answer.text);
}
