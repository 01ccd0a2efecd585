import pluralize from 'pluralize';
import type { HttpMethod, Operation } from '../model/types.js';
import { asciiWords, memoised } from './identifiers.js';
import { tokenize, type Token } from './path-tokens.js';

/** Tool names should stay this short: clients prefix them with the server name. */
export const PREFERRED_TOOL_NAME_LENGTH = 48;
/** Anthropic and OpenAI clients reject longer names. */
export const MAX_TOOL_NAME_LENGTH = 64;

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
 * `GET /owners/{id}/pets` → list owner pets, `POST /orders/{id}/cancel` → cancel order. OData's
 * `$count` counts what it follows (`GET /users/$count` → count users); `$ref` and `$value` name what
 * they reference (`POST /groups/{id}/members/$ref` → create group member ref).
 */
export function toolNameParts(op: Pick<Operation, 'method' | 'path' | 'requestPath' | 'summary' | 'operationId'>, prefixLength: number): ToolNameParts {
  const tokens = namedTokens(op.requestPath, prefixLength);
  const last = tokens[tokens.length - 1];
  if (last?.kind !== 'odata') return partsOf(op, tokens, queryAction(op.path.slice(op.requestPath.length)));
  const parts = partsOf(op, tokens.slice(0, -1), undefined);
  if (last.word !== 'count') return { ...parts, target: [...parts.target, last.word] };
  // What is counted: the collection, or the type a cast selects from it (`members/microsoft.graph.user/$count`).
  const counted = tokens.findLast((t) => t.kind === 'static');
  const target = tokens[tokens.length - 2]?.kind === 'action' ? [...parts.target, ...parts.verb] : counted?.kind === 'static' ? counted.words : parts.target;
  return { verb: ['count'], parents: parts.parents, target };
}

/** The tokens of a path after the prefix every path shares; operations share paths (one for each method), so memoised. */
export function namedTokens(path: string, prefixLength: number): readonly Token[] {
  let paths = PATH_TOKENS.get(prefixLength);
  if (!paths) PATH_TOKENS.set(prefixLength, (paths = new Map()));
  return memoised(paths, path, () => tokenize(path.split('/').filter((s) => s !== '').slice(prefixLength).join('/')));
}
/** By prefix length, then by path. */
const PATH_TOKENS = new Map<number, Map<string, readonly Token[]>>();

function partsOf(op: Pick<Operation, 'method' | 'summary' | 'operationId'>, tokens: readonly Token[], fixedAction: readonly string[] | undefined): ToolNameParts {
  const { method } = op;
  const actionToken = tokens.findLast((t) => t.kind === 'action');
  const statics: { words: readonly string[]; item: boolean }[] = [];
  tokens.forEach((token, index) => {
    if (token.kind === 'static') statics.push({ words: token.words, item: tokens[index + 1]?.kind === 'param' });
  });
  const isItem = tokens[tokens.length - 1]?.kind === 'param';
  // An RPC method named in one segment (`/artist.albums.get`): its namespace is what it acts on.
  if (actionToken?.kind === 'action' && actionToken.namespace && statics.length === 0 && actionToken.words.length === 1) {
    return { verb: actionToken.words, parents: [], target: actionToken.namespace };
  }
  const target = statics.pop();
  const parents = statics.map((s) => singular(s.words));
  const action = actionToken?.kind === 'action' ? actionToken.words : fixedAction;
  if (action) {
    return { verb: action, parents, target: target ? (target.item ? singular(target.words) : target.words) : [] };
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

/** The operation a template's fixed query or fragment names (`/voice-connectors/{id}#operation=associate-phone-numbers`). */
function queryAction(rest: string): readonly string[] | undefined {
  const value = /(?:^|[?#&])(?:operation|op|action)=([^&#{}]+)/i.exec(rest)?.[1];
  const found = value === undefined ? [] : asciiWords(value);
  return found.length > 0 ? found : undefined;
}

/**
 * Joins the parts into a snake_case name that fits `max` (the preferred length): outer parents are
 * dropped first, then the first words of a long target (`user_experience_analytics_…_by_app_version`
 * keeps `…_performance_by_app_version`, never fewer than its last two words). Undefined when nothing fits.
 */
export function joinToolName(parts: ToolNameParts, max = PREFERRED_TOOL_NAME_LENGTH): string | undefined {
  const { verb, parents, target } = parts;
  // The length of the name joined from the words and groups from `parentFrom` and `targetFrom` on, counted, not joined.
  const wordsLength = (list: readonly string[], from = 0): [number, number] => {
    let characters = 0;
    for (let i = from; i < list.length; i++) characters += (list[i] as string).length;
    return [characters, Math.max(0, list.length - from)];
  };
  const [verbCharacters, verbWords] = wordsLength(verb);
  const parentSizes = parents.map((group) => wordsLength(group));
  const lengthOf = (parentFrom: number, targetFrom: number): number => {
    let characters = verbCharacters;
    let count = verbWords;
    for (let i = parentFrom; i < parentSizes.length; i++) {
      const [c, n] = parentSizes[i] as [number, number];
      characters += c;
      count += n;
    }
    const [c, n] = wordsLength(target, targetFrom);
    return characters + c + Math.max(0, count + n - 1);
  };
  let parentFrom = 0;
  let from = 0;
  while (lengthOf(parentFrom, from) > max && parentFrom < parents.length) parentFrom++;
  while (lengthOf(parentFrom, from) > max && from < target.length - MIN_TARGET_WORDS) from++;
  if (lengthOf(parentFrom, from) > max) return undefined;
  const kept = [...verb];
  for (let i = parentFrom; i < parents.length; i++) for (const word of parents[i] as readonly string[]) kept.push(word);
  for (let i = from; i < target.length; i++) kept.push(target[i] as string);
  return kept.join('_');
}
/** A target is never cut below its last two words (`app_version` says more than `version`). */
const MIN_TARGET_WORDS = 2;

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
