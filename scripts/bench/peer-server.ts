/**
 * The peer's Streamable HTTP server: what openapi-mcp-generator (npm) writes with `-t streamable-http` for a spec,
 * installed and built as its package.json says (npm install, tsc), started with `node build/index.js` on the port given
 * at generation, its API at API_BASE_URL. Its package.json asks for @modelcontextprotocol/sdk ^1.10.0, and the server it
 * writes fails on its first request with 1.25 and later (`ReadableStream is locked`): the SDK is held at 1.24.3, the
 * last it works with. It keeps one session (initialize once), whose concurrent requests need ids of their own.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { BenchContext } from './context.js';

export interface PeerServer {
  readonly url: string;
  readonly sessionId: string;
  readonly process: ChildProcess;
  /** The name the peer gives the tool of `operationId`. */
  readonly tool: string;
}

/** Generates, installs and builds the peer's server of `spec` into `dir`, to listen on `port`; null and why not, when it cannot. */
export function buildPeerServer(context: BenchContext, spec: string, dir: string, port: number): string | null {
  const run = (command: string, args: string[], cwd: string): void => void execFileSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    run(process.execPath, [context.paths.peerBin, '-i', spec, '-o', dir, '-t', 'streamable-http', '-p', String(port), '--force'], context.paths.repo);
    run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts'], dir);
    run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--save-exact', '@modelcontextprotocol/sdk@1.24.3'], dir);
    run('npm', ['run', 'build'], dir);
    return null;
  } catch (error) {
    return `the peer's server could not be built: ${String((error as { stderr?: Buffer }).stderr ?? error).slice(0, 300)}`;
  }
}

/** Starts the built peer server (its logs dropped), waits for /health, and opens its one session. */
export async function startPeerServer(dir: string, port: number, env: Record<string, string>, tool: string): Promise<PeerServer> {
  const child = spawn(process.execPath, [join(dir, 'build/index.js')], { cwd: dir, env: { ...process.env, ...env }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the peer's server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const answer = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  await answer.text();
  const sessionId = answer.headers.get('mcp-session-id');
  if (!sessionId) {
    child.kill('SIGKILL');
    throw new Error(`the peer's server gave no session (HTTP ${answer.status})`);
  }
  return { url, sessionId, process: child, tool };
}
