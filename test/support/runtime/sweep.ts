/**
 * One spec through its generated server: Prism mocks the API (behind a recording proxy), the MCP SDK
 * client starts the server, lists its tools and calls each twice, with the required arguments only and
 * with every optional one as well, arguments made only from the published input schema.
 */
import { existsSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect } from '../../../examples/harness.js';
import { argumentsFor, type ArgumentMode } from './arguments.js';
import { classify, type CallClass, type Verdict } from './classify.js';
import { startPrism, type Mock } from './prism.js';
import type { PreparedSpec } from './projects.js';
import { startRecorder } from './recorder.js';
import { explanationOf } from './explained.js';

export interface CallRecord extends Verdict {
  /** For a failure whose cause lies in the spec itself: the evidence (test/support/runtime/explained.ts). */
  readonly specBug?: string;
  readonly tool: string;
  readonly mode: ArgumentMode;
  readonly arguments: string;
  /** The tool's answer, cut to 500 characters. */
  readonly answer: string;
}

export interface SpecRun {
  readonly id: string;
  readonly tools: number;
  readonly calls: readonly CallRecord[];
  /** Why the spec could not be swept at all (generation, build, mock or server start). */
  readonly error?: string;
  readonly seconds: number;
}

const MODES: readonly ArgumentMode[] = ['required', 'all'];

interface ListedTool {
  name: string;
  inputSchema: object;
}

async function allTools(client: Client): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...(page.tools as ListedTool[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

export async function sweepSpec(spec: PreparedSpec, options: { seed?: number; callTimeoutMs?: number } = {}): Promise<SpecRun> {
  const started = performance.now();
  const seconds = (): number => (performance.now() - started) / 1000;
  if (spec.error !== undefined) return { id: spec.id, tools: 0, calls: [], error: `init: ${spec.error}`, seconds: seconds() };
  if (!existsSync(spec.dll)) return { id: spec.id, tools: 0, calls: [], error: 'the generated project did not build', seconds: seconds() };
  let mock: Mock;
  try {
    mock = await startPrism(spec.path);
  } catch (error) {
    return { id: spec.id, tools: 0, calls: [], error: `mock: ${(error as Error).message.slice(0, 500)}`, seconds: seconds() };
  }
  const recorder = await startRecorder(mock.url);
  let client: Client | undefined;
  const calls: CallRecord[] = [];
  try {
    client = await connect({ command: 'dotnet', args: [spec.dll] }, { ...spec.settings, [spec.baseUrlVariable]: recorder.url, [spec.timeoutVariable]: '20' });
    const tools = await allTools(client);
    for (const [index, tool] of tools.entries()) {
      for (const mode of MODES) {
        const made = argumentsFor(tool.inputSchema, mode, (options.seed ?? 1) + index);
        if ('problem' in made) {
          calls.push({ class: 'unfit', reason: made.problem.slice(0, 600), tool: tool.name, mode, arguments: '', answer: '' });
          continue;
        }
        const args = made.arguments;
        for (const name of spec.operations.get(tool.name)?.continuations ?? []) delete args[name];
        recorder.take();
        let verdict: Verdict;
        let text = '';
        try {
          const result = await client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: options.callTimeoutMs ?? 60_000 });
          text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
          verdict = classify({ text, isError: result.isError === true }, recorder.take(), spec.operations.get(tool.name));
        } catch (error) {
          verdict = classify({ text: '', isError: true, threw: (error as Error).message }, recorder.take(), spec.operations.get(tool.name));
        }
        if (!mock.alive()) {
          // Prism died on this request: the call says so, and a new Prism takes the same port.
          verdict = { class: 'mock-limit', reason: `the mock crashed: ${lastLines(mock.log())}`, ...(verdict.request !== undefined && { request: verdict.request }) };
          mock = await startPrism(spec.path, Number(new URL(mock.url).port));
        } else if (verdict.request?.endsWith('no answer')) {
          // Prism is still generating an answer (some schemas make it run away): start afresh.
          await mock.close();
          mock = await startPrism(spec.path, Number(new URL(mock.url).port));
        }
        calls.push({ ...verdict, reason: verdict.reason.slice(0, 600), tool: tool.name, mode, arguments: JSON.stringify(args).slice(0, 500), answer: text.slice(0, 500) });
      }
    }
    return { id: spec.id, tools: tools.length, calls: calls.map((call) => explained(spec.id, call)), seconds: seconds() };
  } catch (error) {
    return { id: spec.id, tools: 0, calls, error: `server: ${(error as Error).message.slice(0, 500)}`, seconds: seconds() };
  } finally {
    await client?.close().catch(() => {});
    await recorder.close();
    await mock.close();
  }
}

/** A failure the spec or the mock accounts for, said so: the mock's misreadings become mock limitations. */
function explained(id: string, call: CallRecord): CallRecord {
  if (call.class === 'ok' || call.class === 'mock-limit' || call.class === 'unfit') return call;
  const explanation = explanationOf(id, call);
  if (!explanation) return call;
  return explanation.verdict === 'mock'
    ? { ...call, class: 'mock-limit', reason: `${explanation.evidence} (Prism: ${call.reason})`.slice(0, 900) }
    : { ...call, specBug: explanation.evidence };
}

const lastLines = (log: string): string => log.trim().split('\n').slice(-3).join(' / ').slice(0, 300);

/** Calls per class. */
export function tally(calls: readonly CallRecord[]): Record<CallClass, number> {
  const counts: Record<CallClass, number> = { ok: 0, rejected: 0, unreadable: 0, 'not-sent': 0, 'mock-limit': 0, failed: 0, unfit: 0 };
  for (const call of calls) counts[call.class]++;
  return counts;
}
