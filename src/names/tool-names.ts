import pluralize from 'pluralize';
import type { HttpMethod, Operation } from '../model/types.js';
import { asciiWords, memoised } from './identifiers.js';

/** Tool names should stay this short: clients prefix them with the server name. */
export const PREFERRED_TOOL_NAME_LENGTH = 48;
/** Anthropic and OpenAI clients reject longer names. */
export const MAX_TOOL_NAME_LENGTH = 64;

type Token =
  | { kind: 'static'; words: readonly string[] }
  | { kind: 'param'; name: string }
  | { kind: 'action'; words: readonly string[] };

const VERSION = /^v\d+([._]\d+)*$|^\d+(\.\d+)+$|^\d{4}-\d{2}-\d{2}$/i;

/** Splits a path into static words, parameters and `:action` suffixes. */
export function tokenize(path: string): Token[] {
  const tokens: Token[] = [];
  for (const segment of path.split('/')) if (segment !== '') tokens.push(...segmentTokens(segment));
  return tokens;
}

/** The tokens of one path segment; segments recur across paths (`repos`, `{owner}`), so memoised. */
const segmentTokens = (segment: string): readonly Token[] => memoised(SEGMENTS, segment, (text) => {
  const tokens: Token[] = [];
  // An OData operation qualified by its namespace (`microsoft.graph.sendMail`, `microsoft.graph.delta()`) is an action.
  const qualified = QUALIFIED.exec(text);
  if (qualified) return [...paramTokens(text), { kind: 'action', words: asciiWords(qualified[1] ?? '') }];
  const [main = '', ...actions] = text.split(':');
  const staticText = main.replace(/\{[^}]*\}/g, ' ').replace(/\.(json|xml|yaml|txt)$/i, '');
  const staticWords = VERSION.test(staticText.trim()) ? [] : asciiWords(staticText);
  if (staticWords.length > 0) tokens.push({ kind: 'static', words: staticWords });
  tokens.push(...paramTokens(main));
  for (const action of actions) {
    const actionWords = asciiWords(action.replace(/\{[^}]*\}/g, ' '));
    if (actionWords.length > 0) tokens.push({ kind: 'action', words: actionWords });
  }
  return tokens;
});
const SEGMENTS = new Map<string, readonly Token[]>();
const QUALIFIED = /^(?:[A-Za-z]\w*\.){2,}([A-Za-z]\w*)(?:\(.*\))?$/;
const paramTokens = (text: string): Token[] => (text.match(/\{([^}]*)\}/g) ?? []).map((param) => ({ kind: 'param', name: param.slice(1, -1) }));

/**
 * Leading static segments shared by every path (`/api/v1`), each followed by another static segment
 * (so not a collection such as `/repos/{owner}`) and leaving each path a static segment after them.
 */
export function commonPrefixLength(paths: readonly string[]): number {
  const split = paths.map((p) => p.split('/').filter((s) => s !== ''));
  const first = split[0];
  if (!first) return 0;
  let length = 0;
  for (; length < first.length; length++) {
    const segment = first[length];
    if (segment === undefined || segment.includes('{') || segment.includes(':')) break;
    const shared = split.every((s) => s[length] === segment && !s[length + 1]?.startsWith('{') && s.slice(length + 1).some((rest) => !rest.startsWith('{')));
    if (!shared) break;
  }
  return length;
}

/** pluralize runs dozens of regular expressions per word; paths repeat their words, so memoise. */
const SINGULAR = new Map<string, string>();
const PLURAL = new Map<string, boolean>();
const singularOf = (word: string): string => memoised(SINGULAR, word, (w) => SINGULAR_FIXES.get(w) ?? pluralize.singular(w));

/** Words pluralize gets wrong in API names (`caches` → `cach`, `data` → `datum`, `cookies` → `cooky`). */
const SINGULAR_FIXES: ReadonlyMap<string, string> = new Map([
  ['caches', 'cache'], ['niches', 'niche'], ['lenses', 'lens'],
  ['data', 'data'], ['metadata', 'metadata'], ['sms', 'sms'], ['canvas', 'canvas'],
  // -ie words, which pluralize reads as -y ones; `leaves` in APIs are absences (HR), not a tree's.
  ...['cookie', 'calorie', 'rookie', 'selfie', 'goodie', 'sortie', 'newbie', 'freebie', 'smoothie', 'brownie', 'hoodie', 'veggie', 'pixie', 'birdie',
    'techie', 'indie', 'oldie', 'hippie', 'magpie', 'budgie', 'prairie', 'zombie', 'leave'].map((word) => [`${word}s`, word] as [string, string]),
]);

/** The words with the last one made singular: `pet tags` → `pet tag`. */
export const singular = (ws: readonly string[]): string[] => {
  const last = ws[ws.length - 1];
  return last === undefined ? [] : [...ws.slice(0, -1), singularOf(last)];
};
const isPlural = (ws: readonly string[]): boolean => {
  const last = ws[ws.length - 1];
  return last !== undefined && singularOf(last) !== last && memoised(PLURAL, last, pluralize.isPlural);
};

/** Last path words that name an action rather than a resource: `POST /orders/{id}/cancel` → cancel_order. */
export const ACTION_WORDS: ReadonlySet<string> = new Set([
  'activate', 'approve', 'archive', 'assign', 'authenticate', 'authorize', 'batch', 'calculate', 'cancel', 'check', 'clone',
  'close', 'complete', 'confirm', 'convert', 'copy', 'deactivate', 'decline', 'decrypt', 'deploy', 'disable', 'download',
  'enable', 'encrypt', 'estimate', 'execute', 'export', 'finalize', 'generate', 'import', 'invite', 'lock', 'login', 'logout',
  'merge', 'move', 'pause', 'preview', 'publish', 'query', 'reboot', 'refresh', 'register', 'reject', 'reload', 'rename',
  'render', 'reopen', 'reset', 'resend', 'restart', 'restore', 'resume', 'retry', 'revoke', 'rotate', 'run', 'scan', 'search',
  'send', 'share', 'sign', 'start', 'stop', 'submit', 'subscribe', 'suspend', 'sync', 'test', 'transfer', 'trigger', 'unarchive',
  'unlock', 'unpublish', 'unsubscribe', 'upload', 'validate', 'verify', 'void',
]);

const VERBS: Record<HttpMethod, string> = {
  get: 'get', post: 'create', put: 'update', patch: 'patch', delete: 'delete', head: 'head', options: 'options', trace: 'trace',
};

export interface ToolNameParts {
  /** Leading verb: `get`, `list`, `create`, … or an action such as `lock`. */
  readonly verb: readonly string[];
  /** Parent resources, outermost first (dropped from the front when a name is too long). */
  readonly parents: readonly (readonly string[])[];
  /** The resource the operation acts on. */
  readonly target: readonly string[];
}

/**
 * The words of a tool name from method and path (SPEC 4.3): `GET /pets/{id}` → get pet,
 * `GET /owners/{id}/pets` → list owner pets, `POST /orders/{id}/cancel` → cancel order.
 */
export function toolNameParts(op: Pick<Operation, 'method' | 'requestPath' | 'summary' | 'operationId'>, prefixLength: number): ToolNameParts {
  const { method, requestPath: path } = op;
  const skipped = path.split('/').filter((s) => s !== '').slice(0, prefixLength).join('/');
  const tokens = tokenize(path.replace(/^\/+/, '').slice(skipped.length));
  const action = tokens.findLast((t) => t.kind === 'action');
  const statics: { words: readonly string[]; item: boolean }[] = [];
  tokens.forEach((token, index) => {
    if (token.kind === 'static') statics.push({ words: token.words, item: tokens[index + 1]?.kind === 'param' });
  });
  const last = tokens[tokens.length - 1];
  const isItem = last?.kind === 'param';
  const target = statics.pop();
  const parents = statics.map((s) => singular(s.words));
  if (action) {
    return { verb: action.words, parents, target: target ? (target.item ? singular(target.words) : target.words) : [] };
  }
  if (!target) return { verb: [VERBS[method]], parents: [], target: isItem ? ['item'] : ['root'] };
  if (method === 'post' && !isItem && ACTION_WORDS.has(target.words[target.words.length - 1] ?? '')) {
    const acted = statics[statics.length - 1];
    return { verb: target.words, parents: parents.slice(0, -1), target: acted ? (acted.item ? singular(acted.words) : acted.words) : [] };
  }
  // POST to one thing that its summary or operationId says updates (Twilio's UpdateCall, Xero's "Updates a…") is an update.
  if (isItem || method === 'post') return { verb: [method === 'post' && isItem && (saysUpdate(op.summary) || saysUpdate(op.operationId)) ? 'update' : VERBS[method]], parents, target: singular(target.words) };
  const verb = method === 'get' && isPlural(target.words) ? 'list' : VERBS[method];
  return { verb: [verb], parents, target: target.words };
}

/** Joins the parts into a snake_case name, dropping outer parents until it fits `max` (the preferred length). */
export function joinToolName(parts: ToolNameParts, max = PREFERRED_TOOL_NAME_LENGTH): string {
  const parents = [...parts.parents];
  const join = (): string => [...parts.verb, ...parents.flat(), ...parts.target].join('_');
  let name = join();
  while (name.length > max && parents.length > 0) {
    parents.shift();
    name = join();
  }
  return truncateName(name, max);
}

/** Cuts a name to `max` characters at a word boundary where possible. */
export function truncateName(name: string, max: number): string {
  if (name.length <= max) return name;
  const cut = name.slice(0, max);
  const boundary = cut.lastIndexOf('_');
  return (boundary > max / 2 ? cut.slice(0, boundary) : cut).replace(/_+$/, '');
}

/** Whether a summary or operationId starts with a verb that updates (`Updates a contact`, `UpdateCall`). */
function saysUpdate(text: string | undefined): boolean {
  return /^(updates?|modif(y|ies)|edits?|changes?|replaces?|patch(es)?|sets?)$/.test(asciiWords(text ?? '')[0] ?? '');
}
