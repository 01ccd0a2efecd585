/**
 * Starting a generated server as an MCP client does (the MCP SDK client over stdio), up to its
 * first tools/list answer, and stopping it with everything it started.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { commandLine, firstErrorLine, processTree, reap, statusKb } from './lib.js';
import type { Results } from './results.js';

export interface Started {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** Spawn to the first tools/list answer. */
  readonly seconds: number;
  /** All pages of tools/list, as the SDK returns them. */
  readonly tools: unknown[];
  /** The tools exactly as sent (before the SDK's schema validation touches them). */
  readonly rawTools: unknown[];
  /** VmRSS of the process running Bench.dll, in kB. */
  readonly serverRssKb: number;
  /** VmRSS of the whole process tree, in kB. */
  readonly treeRssKb: number;
  readonly pids: number[];
}

async function withTimeout<T>(promise: Promise<T>, milliseconds: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${milliseconds / 1000} s`)), milliseconds);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts a server like an MCP client does; time from spawn to the first tools/list answer. */
export async function startServer(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Started> {
  const transport = new StdioClientTransport({ command, args, cwd, env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 20_000) stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'openapi-mcp-dotnet-bench', version: '1.0.0' });
  let rawTools: unknown[] = [];
  const started = performance.now();
  try {
    await withTimeout(client.connect(transport), 120_000, `${command} ${args.join(' ')}`);
    // The tools exactly as sent (before the SDK's schema validation touches them).
    const inner = transport.onmessage;
    transport.onmessage = (message) => {
      const result = (message as { result?: { tools?: unknown[] } }).result;
      if (result && Array.isArray(result.tools)) rawTools = [...rawTools, ...result.tools];
      inner?.(message);
    };
    let page = await withTimeout(client.listTools(), 120_000, 'tools/list');
    const seconds = (performance.now() - started) / 1000;
    const tools: unknown[] = [...page.tools];
    while (page.nextCursor) {
      page = await client.listTools({ cursor: page.nextCursor });
      tools.push(...page.tools);
    }
    const pid = transport.pid ?? -1;
    const pids = processTree(pid);
    const dll = pids.find((p) => /\bBench\.dll\b/.test(commandLine(p)) || /\/Bench(\s|$)/.test(commandLine(p))) ?? pid;
    const serverRssKb = statusKb(dll, 'VmRSS');
    const treeRssKb = pids.map((p) => statusKb(p, 'VmRSS')).filter(Number.isFinite).reduce((a, b) => a + b, 0);
    return { client, transport, seconds, tools, rawTools, serverRssKb, treeRssKb, pids };
  } catch (error) {
    const pids = transport.pid ? processTree(transport.pid) : [];
    await client.close().catch(() => {});
    await reap(pids);
    throw new Error(`${(error as Error).message}${stderr ? `; stderr: ${firstErrorLine(stderr).slice(0, 200)}` : ''}`);
  }
}

/** Closes stdin and waits for the server's processes; kills (and reports) those that stay. */
export async function stopServer(server: Started, results: Results): Promise<void> {
  await server.client.close().catch(() => {});
  const killed = await reap(server.pids);
  if (killed > 0) results.problems.push(`${killed} server process(es) did not exit when stdin closed and were killed`);
}
