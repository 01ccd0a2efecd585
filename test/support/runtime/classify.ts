/** What became of one tool call, judged from the tool's answer and what reached the mock. */
import type { Exchange } from './recorder.js';

/**
 * `ok`; `rejected`: the mock refused the request (its validation message is the reason); `unreadable`:
 * a 2xx the tool turned into `Error:`; `not-sent`: no request left the server; `mock-limit`: the mock
 * could not answer (Prism 5xx, or a spec with no 2xx response); `failed`: the MCP call itself failed;
 * `unfit`: the argument generator made no arguments that fit the schema, so no call was made.
 */
export type CallClass = 'ok' | 'rejected' | 'unreadable' | 'not-sent' | 'mock-limit' | 'failed' | 'unfit';

export const CALL_CLASSES: readonly CallClass[] = ['ok', 'rejected', 'unreadable', 'not-sent', 'mock-limit', 'failed', 'unfit'];

/** Classes that say nothing of the generated server: left out of its share of OK calls. */
export const NOT_COUNTED: ReadonlySet<CallClass> = new Set(['mock-limit', 'unfit']);

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

/** Prism's validation messages in the body of a 422 it writes itself. */
function validationMessages({ validation }: Problem): string[] {
  return (validation ?? []).filter((v) => v.severity !== 'Warning').map((v) => `${(v.location ?? []).join('.')}: ${v.message ?? ''}`);
}

/** What Prism says of a request it refused: its validation messages, or its error's title. */
function refusal(problem: Problem): string {
  const { type, title, detail } = problem;
  const messages = validationMessages(problem);
  if (messages.length > 0) return [...new Set(messages)].join('; ');
  return `${type?.slice(PRISM_ERRORS.length) ?? ''}: ${(title ?? '').split('\n')[0]}${detail && detail !== title ? ` (${detail.slice(0, 200)})` : ''}`;
}

/** OpenAPI: header parameters named Accept, Content-Type or Authorization SHALL be ignored; Prism checks them. */
const IGNORED_HEADER = /^header(\.|: Request header must have required property )'?(accept|content-type|authorization)'?/i;

/**
 * When Prism's complaint about a request is its own misreading, what it misread: a header OpenAPI says to
 * ignore; a query parameter the request does not have (Prism fills absent deepObject parameters in);
 * a path parameter the operation's template does not have (Prism matched another template); an array in
 * a form body sent as one field (forms repeat a field per item, and Prism reads one as a string); an empty
 * form body; an int64 past JavaScript's safe integers.
 */
function mockMisreading(violations: readonly string[], exchange: Exchange, operation: OperationInfo | undefined): string | undefined {
  if (violations.every((v) => IGNORED_HEADER.test(v))) return 'Prism requires header parameters that OpenAPI says to ignore (Accept, Content-Type, Authorization)';
  const sent = new Set([...new URL(exchange.url, 'http://mock').searchParams.keys()].map((k) => k.toLowerCase()));
  // `query.filter.begin_at`: absent when the request has neither `filter`, `filter[begin_at]` nor `begin_at`.
  const absent = violations.map((v) => {
    const at = /^(?:request\.)?query\.([^.:]+)(?:\.([^.:]+))?/.exec(v);
    if (!at?.[1]) return false;
    const [name, inner] = [at[1].toLowerCase(), at[2]?.toLowerCase()];
    return !sent.has(name) && (inner === undefined || (!sent.has(`${name}[${inner}]`) && !sent.has(inner)));
  });
  if (absent.every(Boolean)) return 'Prism validates query parameters the request does not have';
  const template = new Set([...(operation?.path ?? '').matchAll(/\{([^}]+)\}/g)].map((m) => m[1]?.toLowerCase()));
  const paths = violations.map((v) => /^(?:request\.)?path\.([^.:]+)/.exec(v)?.[1] ?? /^(?:request\.)?path: Request path must have required property '([^']+)'/.exec(v)?.[1]);
  if (operation && paths.every((name) => name !== undefined && !template.has(name.toLowerCase()))) return `Prism matched the request to another path template than ${operation.path}`;
  const form = /^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(String(exchange.requestHeaders['content-type'] ?? ''));
  if (form && violations.every((v) => / must be array$/.test(v))) return 'Prism reads an array field sent once in a form as a string';
  if (form && exchange.requestBody === '' && violations.every((v) => /Body parameter is required/.test(v))) return 'Prism reads an empty form (an object argument with no properties set) as no body';
  if (violations.every((v) => /must be [<>]= -?9007199254740991$/.test(v))) return 'Prism checks format int64 against JavaScript\'s safe integers (±2^53), not 64 bits';
  return undefined;
}

/** The response violation Prism reported where the tool failed to read the answer (its JSON path), if any. */
function badAnswer(text: string, violations: readonly string[]): string | undefined {
  const path = /Path: \$\.?([^ |]*)/.exec(text)?.[1]?.replace(/\[(\d+)\]/g, '.$1').replace(/\['([^']*)'\]/g, '.$1');
  if (path === undefined) return undefined;
  return violations.find((v) => {
    const at = /^response\.body\.?([^:]*)/.exec(v)?.[1];
    return at !== undefined && (path === '' ? at === '' : path.startsWith(at) || at.startsWith(path));
  });
}

/** What the classification knows of the operation behind a tool. */
export interface OperationInfo {
  readonly method: string;
  /** The path template as the spec gives it. */
  readonly path: string;
  /** Arguments that only an earlier answer can fill (a next page's link, a long-running operation's token): never made up. */
  readonly continuations?: readonly string[];
}

export function classify(answer: Answer, exchanges: readonly Exchange[], operation?: OperationInfo): Verdict {
  if (answer.threw !== undefined) return { class: 'failed', reason: answer.threw };
  const last = exchanges[exchanges.length - 1];
  const failed = answer.isError || answer.text.startsWith('Error: ');
  if (!last) return failed ? { class: 'not-sent', reason: answer.text } : { class: 'failed', reason: `answered without calling the API: ${answer.text.slice(0, 200)}` };
  const request = `${last.method} ${last.url} → ${last.status < 0 ? 'no answer' : last.status}`;
  if (last.status < 0) return { class: 'mock-limit', reason: `the mock did not answer before the server's timeout: ${answer.text.slice(0, 200)}`, request };
  // The proxy could not reach Prism (it was restarted, or died): nothing the server did.
  if (last.status === 0) return { class: 'mock-limit', reason: `the mock dropped the connection: ${last.responseBody}`, request };
  // Prism validates its own answers too; only what it says of the request counts here (in a header, or in
  // the body of a 422 it writes itself).
  const body = problem(last.responseBody);
  const prism = typeof body.type === 'string' && body.type.startsWith(PRISM_ERRORS);
  const violations = [...new Set([...last.violations.filter((v) => !v.startsWith('response')), ...(prism && last.status < 500 ? validationMessages(body) : [])])];
  const routed = operation !== undefined && /[?#]/.test(operation.path);
  if (routed && last.status >= 400 && last.status < 500) {
    return { class: 'mock-limit', reason: `the spec tells this operation apart by ${JSON.stringify(operation.path.slice(operation.path.search(/[?#]/)))} in its path template, which is not part of the request path (a fragment is never sent): Prism cannot route the request to it`, request };
  }
  if (violations.length > 0) {
    const limit = mockMisreading(violations, last, operation);
    if (limit) return { class: 'mock-limit', reason: `${limit}: ${violations.join('; ')}`, request };
    return { class: 'rejected', reason: violations.join('; '), request };
  }
  if (last.status >= 200 && last.status < 300) {
    if (!failed) return { class: 'ok', reason: '', request };
    const wrong = badAnswer(answer.text, last.violations);
    return wrong ? { class: 'mock-limit', reason: `the mock's answer does not fit the spec's own response schema where the tool could not read it (${wrong}): ${answer.text}`, request } : { class: 'unreadable', reason: answer.text, request };
  }
  if (last.status >= 500) return { class: 'mock-limit', reason: prism ? refusal(body) : `HTTP ${last.status}`, request };
  if (prism) return { class: 'rejected', reason: refusal(body), request };
  // A status the spec itself defines, sent for a valid request: the spec has no 2xx response to give.
  if (last.status >= 300 && failed && answer.text.includes(`(HTTP ${last.status})`)) {
    return { class: 'mock-limit', reason: `the operation defines no 2xx response; the mock answered ${last.status}, which the tool reported`, request };
  }
  return { class: 'failed', reason: answer.text.slice(0, 300), request };
}
