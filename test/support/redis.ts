/**
 * A real Redis server (Debian's redis-server) on 127.0.0.1 for the tests of state shared by replicas: started on a
 * free port with no persistence, stopped and started again on the same port (an outage), read with redis-cli.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { debianBinary } from './debian.js';
import { freePort } from './replicas.js';

/** redis-server, installed from Debian's packages when missing and this runs as root (as CI does). */
export function redisBinary(): string {
  return debianBinary(['/usr/bin/redis-server', '/usr/local/bin/redis-server'], '--version', 'redis-server', 'the replica tests need it');
}

export interface Redis {
  /** host:port, as the servers' REDIS setting takes it. */
  readonly address: string;
  readonly port: number;
  /** Stops the server (its data is gone: it keeps none on disk), as an outage does. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** A redis-cli command's output (`KEYS *`, `GET key`), raw. */
  cli(...args: string[]): string;
}

export async function startRedis(directory: string): Promise<Redis> {
  const binary = redisBinary();
  mkdirSync(directory, { recursive: true });
  const port = await freePort();
  let child: ChildProcess | undefined;
  const cli = (...args: string[]): string => {
    const run = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), '--raw', ...args], { encoding: 'utf8' });
    return `${run.stdout}${run.stderr}`;
  };
  const start = async (): Promise<void> => {
    child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', directory], { stdio: 'ignore' });
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (cli('PING').trim() === 'PONG') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not answer on port ${port} within 15 s`);
  };
  const stop = async (): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { address: `127.0.0.1:${port}`, port, stop, start, cli };
}
