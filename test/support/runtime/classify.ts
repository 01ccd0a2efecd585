/** What became of one tool call, judged from the tool's answer and what reached the mock. */
import type { Exchange } from './recorder.js';

/**
 * `ok`; `rejected`: the mock refused the request (its validation message is the reason); `unreadable`:
 * a 2xx the tool turned into `Error:`; `not-sent`: no request left the server; `mock-limit`: the mock
 * could not answer (Prism 5xx, or a spec with no 2xx response); `failed`: the MCP call itself failed.
 */
export type CallClass = 'ok' | 'rejected' | 'unreadable' | 'not-sent' | 'mock-limit' | 'failed';

export const CALL_CLASSES: readonly CallClass[] = ['ok', 'rejected', 'unreadable', 'not-sent', 'mock-limit', 'failed'];

export interface Answer {
  readonly text: string;
  readonly isError: boolean;
  /** The MCP request failed (JSON-RPC error, timeout). */
  readonly threw?: string;
}

export interface Verdict {
  readonly class: CallClass;
  readonly reason: string;
  /** `GET /pets?limit=2 → 200` */
  readonly request?: string;
}

const PRISM_ERRORS = 'https://stoplight.io/prism/errors#';

interface Problem {
  type?: string;
  title?: string;
  detail?: string;
  /** Prism's request validation messages, when it answers 422 itself. */
  validation?: { location?: string[]; message?: string; severity?: string }[];
}

function problem(body: string): Problem {
  try {
    const parsed = JSON.parse(body) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as Problem) : {};
  } catch {
    return {};
  }
}

/** What Prism says of a request it refused: its validation messages, or its error's title. */
function refusal({ type, title, detail, validation }: Problem): string {
  const messages = (validation ?? []).filter((v) => v.severity !== 'Warning').map((v) => `${(v.location ?? []).join('.')}: ${v.message ?? ''}`);
  if (messages.length > 0) return [...new Set(messages)].join('; ');
  return `${type?.slice(PRISM_ERRORS.length) ?? ''}: ${(title ?? '').split('\n')[0]}${detail && detail !== title ? ` (${detail.slice(0, 200)})` : ''}`;
}

/** OpenAPI: header parameters named Accept, Content-Type or Authorization SHALL be ignored; Prism checks them. */
const IGNORED_HEADER = /^header(\.|: Request header must have required property )'?(accept|content-type|authorization)'?/i;

/** What the classification knows of the operation behind a tool. */
export interface OperationInfo {
  readonly method: string;
  /** The path template as the spec gives it. */
  readonly path: string;
}

export function classify(answer: Answer, exchanges: readonly Exchange[], operation?: OperationInfo): Verdict {
  if (answer.threw !== undefined) return { class: 'failed', reason: answer.threw };
  const last = exchanges[exchanges.length - 1];
  const failed = answer.isError || answer.text.startsWith('Error: ');
  if (!last) return failed ? { class: 'not-sent', reason: answer.text } : { class: 'failed', reason: `answered without calling the API: ${answer.text.slice(0, 200)}` };
  const request = `${last.method} ${last.url} → ${last.status < 0 ? 'no answer' : last.status}`;
  if (last.status < 0) return { class: 'mock-limit', reason: `the mock did not answer before the server's timeout: ${answer.text.slice(0, 200)}`, request };
  if (last.status === 0) return { class: 'failed', reason: last.responseBody, request };
  // Prism validates its own answers too; only what it says of the request counts here.
  const violations = [...new Set(last.violations.filter((v) => !v.startsWith('response')))];
  const routed = operation !== undefined && /[?#]/.test(operation.path);
  if (routed && last.status >= 400 && last.status < 500) {
    return { class: 'mock-limit', reason: `the spec tells this operation apart by ${JSON.stringify(operation.path.slice(operation.path.search(/[?#]/)))} in its path template, which is not part of the request path (a fragment is never sent): Prism cannot route the request to it`, request };
  }
  if (violations.length > 0) {
    if (violations.every((v) => IGNORED_HEADER.test(v))) {
      return { class: 'mock-limit', reason: `Prism requires header parameters that OpenAPI says to ignore (Accept, Content-Type, Authorization): ${violations.join('; ')}`, request };
    }
    return { class: 'rejected', reason: violations.join('; '), request };
  }
  if (last.status >= 200 && last.status < 300) return failed ? { class: 'unreadable', reason: answer.text, request } : { class: 'ok', reason: '', request };
  const body = problem(last.responseBody);
  const prism = typeof body.type === 'string' && body.type.startsWith(PRISM_ERRORS);
  if (last.status >= 500) return { class: 'mock-limit', reason: prism ? refusal(body) : `HTTP ${last.status}`, request };
  if (prism) {
    const reason = refusal(body);
    const messages = reason.split('; ');
    if (messages.every((m) => IGNORED_HEADER.test(m))) return { class: 'mock-limit', reason: `Prism requires header parameters that OpenAPI says to ignore (Accept, Content-Type, Authorization): ${reason}`, request };
    return { class: 'rejected', reason, request };
  }
  // A status the spec itself defines, sent for a valid request: the spec has no 2xx response to give.
  if (last.status >= 300 && failed && answer.text.includes(`(HTTP ${last.status})`)) {
    return { class: 'mock-limit', reason: `the operation defines no 2xx response; the mock answered ${last.status}, which the tool reported`, request };
  }
  return { class: 'failed', reason: answer.text.slice(0, 300), request };
}
