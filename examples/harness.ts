/**
 * Shared by the demo and the end-to-end tests: generate a project, build it with dotnet, and
 * connect the MCP SDK client to it the way an AI client does, from the `mcp.json` entry.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const run = promisify(execFile);

export interface BuildOutput {
  readonly ok: boolean;
  readonly output: string;
  readonly warnings: number;
}

/** `dotnet build -warnaserror` on a project directory (Debug, or `configuration`). */
export async function dotnetBuild(directory: string, configuration = 'Debug'): Promise<BuildOutput> {
  try {
    const { stdout, stderr } = await run('dotnet', ['build', directory, '-c', configuration, '-warnaserror', '-nologo', '-clp:NoSummary'], { maxBuffer: 64 * 1024 * 1024 });
    const output = stdout + stderr;
    return { ok: true, output, warnings: (output.match(/: warning [A-Z]+\d+/g) ?? []).length };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return { ok: false, output: (failure.stdout ?? '') + (failure.stderr ?? ''), warnings: 0 };
  }
}

export interface ServerEntry {
  readonly command: string;
  readonly args: string[];
}

/** The single entry of a generated `mcp.json`. */
export async function readMcpEntry(directory: string): Promise<{ key: string; entry: ServerEntry }> {
  const config = JSON.parse(await readFile(join(directory, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, ServerEntry> };
  const [key, entry] = Object.entries(config.mcpServers)[0] ?? [];
  if (!key || !entry) throw new Error(`no server in ${directory}/mcp.json`);
  return { key, entry };
}

const logs = new WeakMap<Client, () => string>();

/** The last 20 KB the server wrote to stderr (its log). */
export function serverLog(client: Client): string {
  return logs.get(client)?.() ?? '';
}

/** Starts the server the way an MCP client does and connects to it over stdio. */
export async function connect(entry: ServerEntry, env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  // Keep reading the server's log so that a full pipe never blocks it; the tail helps when a test fails.
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-20_000);
  });
  // The SDK's transport writes every message at once and, while the pipe is full, waits for 'drain'
  // with one listener per message: a thousand calls in flight queue a thousand writes and listeners
  // (MaxListenersExceededWarning). Sending one message after the other keeps one waiting at a time.
  const send = transport.send.bind(transport);
  let sending: Promise<void> = Promise.resolve();
  transport.send = (message) => (sending = sending.catch(() => {}).then(() => send(message)));
  const client = new Client({ name: 'openapi-mcp-dotnet-harness', version: '1.0.0' });
  logs.set(client, () => log);
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`cannot connect to ${entry.command} ${entry.args.join(' ')}: ${String(error)}\n${log}`);
  }
  return client;
}

/** Calls a tool and returns its text answer. */
export async function callText(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  return (await callBlocks(client, name, args))[0] ?? '';
}

/** Every text block of a tool's answer: the answer, then what the server adds beside it (response headers). */
export async function callBlocks(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string[]> {
  const result = await client.callTool({ name, arguments: args });
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '');
}
