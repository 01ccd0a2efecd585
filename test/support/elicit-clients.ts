/**
 * MCP clients that answer a server's questions (elicitation) as a user would: the TypeScript SDK 1.x (protocol
 * 2025-11-25 and before: the server sends elicitation/create) and 2.x pinned to 2026-07-28 (the server answers
 * input_required and the client calls again with the user's answer). Each records the questions it was asked.
 */
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';

/** What the user answers: accept, decline or cancel; `none` is a client without the elicitation capability. */
export type UserAnswer = 'accept' | 'decline' | 'cancel' | 'none';

/** Where the server is: a program started over stdio, or the URL of an HTTP server's /mcp. */
export type Endpoint = { command: string; args: string[]; env: Record<string, string> } | { url: string };

export interface AskingClient {
  /** The questions the user was shown, in order. */
  readonly questions: string[];
  /** tools/call: the answer's text blocks joined, and whether it is an error. */
  call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

const CALL_TIMEOUT_MS = 30_000;

/** A 1.x client (the legacy protocol) that answers every question with `answer`. */
export async function legacyClient(endpoint: Endpoint, answer: UserAnswer): Promise<AskingClient> {
  const questions: string[] = [];
  const client = new LegacyClient({ name: 'confirm-test-legacy', version: '1.0.0' }, { capabilities: answer === 'none' ? {} : { elicitation: {} } });
  if (answer !== 'none') {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params.message);
      return { action: answer, ...(answer === 'accept' && { content: {} }) };
    });
  }
  const transport = 'url' in endpoint
    ? new LegacyHttp(new URL(`${endpoint.url}/mcp`))
    : new LegacyStdio({ command: endpoint.command, args: endpoint.args, env: { ...(process.env as Record<string, string>), ...endpoint.env }, stderr: 'ignore' });
  await client.connect(transport);
  return {
    questions,
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS }) as { content: { text?: string }[]; isError?: boolean };
      return { text: result.content.map((c) => c.text ?? '').join('\n'), isError: result.isError === true };
    },
    close: () => client.close(),
  };
}

/** A 2.x client pinned to MCP 2026-07-28 that answers every question with `answer`. */
export async function modernClient(endpoint: Endpoint, answer: UserAnswer): Promise<AskingClient> {
  const questions: string[] = [];
  const client = new ModernClient(
    { name: 'confirm-test-modern', version: '1.0.0' },
    { capabilities: answer === 'none' ? {} : { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  if (answer !== 'none') {
    client.setRequestHandler('elicitation/create', async (request) => {
      questions.push((request.params as { message: string }).message);
      return { action: answer, ...(answer === 'accept' && { content: {} }) };
    });
  }
  const transport = 'url' in endpoint
    ? new ModernHttp(new URL(`${endpoint.url}/mcp`))
    : new ModernStdio({ command: endpoint.command, args: endpoint.args, env: { ...(process.env as Record<string, string>), ...endpoint.env }, stderr: 'ignore' });
  await client.connect(transport);
  return {
    questions,
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args }, { timeout: CALL_TIMEOUT_MS }) as { content: { text?: string }[]; isError?: boolean };
      return { text: result.content.map((c) => c.text ?? '').join('\n'), isError: result.isError === true };
    },
    close: () => client.close(),
  };
}
