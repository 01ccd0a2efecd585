/**
 * Replicas of a generated HTTP server behind nginx on 127.0.0.1, as a shared deployment runs them: each replica
 * a `dotnet <dll> --urls …` process, nginx round-robin in front. Used by the HTTP transport test and the bench.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { debianBinary } from './debian.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/**
 * The nginx binary; installed from Debian's packages (nginx-light) when missing and this runs as root, as CI
 * does. Throws, saying what to install, when there is none and none can be installed.
 */
export function nginxBinary(): string {
  return debianBinary(['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'], '-v', 'nginx-light', 'the load-balancer tests need it');
}

/**
 * The whole lines of a server's log: a line the server is still writing (the text after the last newline) is left
 * for the next read, so that a line is never parsed half-written, however loaded the machine.
 */
export function wholeLines(log: string): string[] {
  const end = log.lastIndexOf('\n');
  return end < 0 ? [] : log.slice(0, end).split('\n');
}

export interface Replica {
  readonly name: string;
  readonly url: string;
  readonly process: ChildProcess;
  log(): string;
}

/** Starts `dotnet <dll> --urls http://<listen>:<port>` (127.0.0.1 and a free port unless given) and waits until its /healthz answers; `url` is its loopback address. */
export async function startReplica(name: string, dll: string, env: Record<string, string>, listen = '127.0.0.1', port?: number): Promise<Replica> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('dotnet', [dll, '--urls', `http://${listen}:${port}`], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer): void => void (log = (log + chunk.toString('utf8')).slice(-200_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`replica ${name} exited with ${child.exitCode}: ${log}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { name, url, process: child, log: () => log };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`replica ${name} did not answer /healthz within 60 s: ${log}`);
}

export interface Balancer {
  readonly url: string;
  stop(): void;
  /** Sends the next requests to these replicas instead (nginx reloads its configuration; requests in flight finish). */
  reconfigure(upstreams: readonly string[]): Promise<void>;
}

/**
 * nginx round-robin over the replicas, its files in `directory`; POSTs are never resent to a second replica. With
 * `forward`, it connects to them from that loopback address and appends the client's to `X-Forwarded-For`, as reverse
 * proxies do.
 */
export async function startNginx(directory: string, upstreams: readonly string[], port?: number, forward?: { from: string }): Promise<Balancer> {
  const binary = nginxBinary();
  mkdirSync(directory, { recursive: true });
  port ??= await freePort();
  const temp = (name: string): string => `${name}_temp_path ${join(directory, name)};`;
  const config = (upstreams: readonly string[]): string => [
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    'worker_processes 1;',
    'daemon off;',
    `pid ${join(directory, 'nginx.pid')};`,
    `error_log ${join(directory, 'error.log')} warn;`,
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    `  ${temp('client_body')} ${temp('proxy')} ${temp('fastcgi')} ${temp('uwsgi')} ${temp('scgi')}`,
    '  upstream mcp {',
    ...upstreams.map((u) => `    server ${u.replace(/^http:\/\//, '')} max_fails=1 fail_timeout=30s;`),
    '    keepalive 64;',
    '  }',
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    location / {',
    '      proxy_pass http://mcp;',
    '      proxy_http_version 1.1;',
    // The Host the client asked for, as reverse proxies pass it: the servers check it (DNS-rebinding protection).
    '      proxy_set_header Host $http_host;',
    '      proxy_set_header Connection "";',
    ...(forward ? [`      proxy_bind ${forward.from};`, '      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;'] : []),
    '      proxy_buffering off;',
    '      proxy_read_timeout 60s;',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
  const file = join(directory, 'nginx.conf');
  writeFileSync(file, config(upstreams));
  const child = spawn(binary, ['-p', directory, '-c', file, '-e', join(directory, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr}${safeRead(join(directory, 'error.log'))}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) {
        const reconfigure = async (next: readonly string[]): Promise<void> => {
          writeFileSync(file, config(next));
          child.kill('SIGHUP');
          // nginx starts new workers with the new configuration and lets the old ones finish: give it a moment.
          await new Promise((r) => setTimeout(r, 500));
        };
        return { url, stop: () => void child.kill('SIGTERM'), reconfigure };
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`nginx did not start within 20 s: ${stderr}`);
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The SDK's Streamable HTTP client, sending these headers with every request. */
export async function connectHttp(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } });
  const client = new Client({ name: 'openapi-mcp-dotnet-http-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

export interface CallOutcome {
  readonly index: number;
  readonly startedAt: number;
  readonly ms: number;
  /** The result's text, or the error's message. */
  readonly text: string;
  readonly ok: boolean;
}

/** `count` calls, at most `inFlight` at a time; `arguments(i)` gives call i's arguments; each fails after `timeoutMs`. */
export async function runCalls(client: Client, tool: string, count: number, inFlight: number, args: (i: number) => Record<string, unknown>, onSettled?: (done: number) => void, timeoutMs = 60_000): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      const startedAt = performance.now();
      try {
        const result = (await client.callTool({ name: tool, arguments: args(index) }, undefined, { timeout: timeoutMs })) as { content: { text?: string }[]; isError?: boolean };
        outcomes.push({ index, startedAt, ms: performance.now() - startedAt, text: result.content.map((c) => c.text ?? '').join(''), ok: result.isError !== true });
      } catch (error) {
        outcomes.push({ index, startedAt, ms: performance.now() - startedAt, text: String(error), ok: false });
      }
      onSettled?.(outcomes.length);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return outcomes.sort((a, b) => a.index - b.index);
}
