/**
 * Stoplight Prism as a validating mock of an API: `prism mock --dynamic` validates every request against
 * the spec (violations come back in the `sl-violations` header, and as a 4xx) and answers valid ones with
 * data generated from the response schemas.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { REPO } from '../golden.js';

const PRISM = join(REPO, 'node_modules/@stoplight/prism-cli/dist/index.js');

export interface Mock {
  /** Root URL of the mock: Prism serves the spec's paths at the root, whatever the servers' base paths. */
  readonly url: string;
  /** The end of Prism's log. */
  log(): string;
  /** False once Prism has exited (it can die on a request). */
  alive(): boolean;
  close(): Promise<void>;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/** Starts Prism on `spec` and waits until it listens (big specs take a while to load). */
export async function startPrism(spec: string, port?: number, seed = 'openapi-mcp-dotnet'): Promise<Mock> {
  port ??= await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--max-old-space-size=4096', PRISM, 'mock', '--dynamic', '--seed', seed, '--json-schema-faker-fillProperties=false', '-h', '127.0.0.1', '-p', String(port), spec], {
    env: { ...process.env, SCARF_ANALYTICS: 'false', FORCE_COLOR: '0', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const append = (chunk: Buffer): void => {
    log = (log + chunk.toString('utf8')).slice(-50_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const close = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      void close();
      reject(new Error(`Prism did not start within 180 s on ${spec}: ${log.slice(-2000)}`));
    }, 180_000);
    const check = (): void => {
      if (log.includes('Prism is listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited (${code}) on ${spec}: ${log.slice(-2000)}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, log: () => log, alive: () => child.exitCode === null && child.signalCode === null, close };
}
