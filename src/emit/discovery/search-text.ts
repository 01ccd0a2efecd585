/**
 * The words of a text as the operation search sees them. The generated server's McpSearchQuery.cs applies the
 * same rules to each query (kept in step by the discovery end-to-end test), so that a query word meets the index
 * term the generator made from the same word in a summary, path or name.
 */

import { ACTION_WORDS } from '../../names/tool-names.js';

/** Word boundaries inside a token: camelCase, HTTPServer, v2beta. */
const CASE_BOUNDARY = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;
const SEPARATOR = /[^\p{L}\p{N}]+/u;

/** Words that say nothing about which operation is meant. */
export const STOP_WORDS = new Set([
  'a', 'an', 'the', 'of', 'for', 'in', 'on', 'to', 'by', 'with', 'and', 'or', 'from', 'at', 'as', 'is', 'are', 'be',
  'this', 'that', 'these', 'those', 'it', 'its', 'i', 'we', 'you', 'your', 'our', 'please', 'can', 'could', 'would',
  'how', 'do', 'does', 'what', 'which', 'want', 'need', 'some', 'any', 'into', 'about', 'using', 'via', 'given',
  'specific', 'particular', 'there', 'so', 'if', 'then', 'than', 'will', 'should', 'has', 'have', 'was', 'were',
  'am', 'he', 'she', 'here',
  // Question words: a question asks for a read or a list (search-query-words.ts), but the word itself names nothing.
  'who', 'whose', 'where', 'when', 'why',
  // Particles no phrasal verb took (scale up, sort out), and words a negation would otherwise spend itself on (no longer).
  'up', 'down', 'out', 'off', 'back', 'over', 'away', 'longer', 'more', 'anymore',
]);

/** Whether a word reads as a past participle (created, merged): it says what a thing is, not what to do with it. */
export function isPast(word: string): boolean {
  return word.length >= 5 && word.endsWith('ed') && !word.endsWith('eed');
}

/**
 * A light English stemmer: plurals folded, -ing and -ed removed, -tion to -t, a final e dropped, so that create,
 * creates, created, creating and creation are one term (creat), allocate and allocations another (allocat), and
 * message and messages another (messag). Short words stay.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('es')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length >= 7 && w.endsWith('tion')) w = w.slice(0, -3);
  else if (w.length >= 6 && w.endsWith('ing') && hasVowel(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.length >= 5 && w.endsWith('ed') && !w.endsWith('eed') && hasVowel(w.slice(0, -2))) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length >= 4) w = w.slice(0, -1);
  return w;
}

const hasVowel = (text: string): boolean => /[aeiouy]/.test(text);

/** runn → run, stopp → stop; ll, ss and zz stay (install, access). */
function undouble(w: string): string {
  const last = w.at(-1) ?? '';
  return w.length >= 4 && last === w.at(-2) && /[bcdfgkmnprt]/.test(last) ? w.slice(0, -1) : w;
}

/** The term of operations that answer with many things (a GET of a collection), and of queries that ask for many. */
export const MANY = '~many';

/** The search terms of a text, in order, repeats kept: contractions expanded, split, lower-cased, stop words out, stemmed. */
export function terms(text: string): string[] {
  return words(expandContractions(text)).map(stem);
}

/** `don't` → do not, `what's` → what, `an owner's` → an owner, `can't` → can not. */
export function expandContractions(text: string): string {
  return text
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\b(can|won)'t\b/gi, (_, verb: string) => (verb.toLowerCase() === 'can' ? 'can not' : 'will not'))
    .replace(/n't\b/gi, ' not')
    .replace(/'(s|re|ve|ll|d|m)\b/gi, '');
}

function words(text: string): string[] {
  return allWords(text).filter((w) => !STOP_WORDS.has(w));
}

/** The words of a text in order, lower-cased, stop words kept; a sub- word is followed by the word it is a part of and by child (subfolder: folder, child, as Graph's childFolders). */
export function allWords(text: string): string[] {
  const result: string[] = [];
  for (const token of text.split(SEPARATOR)) {
    for (const part of token.split(CASE_BOUNDARY)) {
      const word = part.toLowerCase();
      if (word === '') continue;
      result.push(word);
      if (word.length >= 7 && word.startsWith('sub')) result.push(word.slice(3), 'child');
    }
  }
  return result;
}

/**
 * What an operation does, in five kinds, and the query words that ask for each. An operation's kind comes from
 * the verb its summary starts with (Creates…, List…, Update…) or, without one, from its method and whether its
 * path names one thing or many; an operation whose kind a query's words ask for scores {@link INTENT_BOOST}
 * times as much. The summary's verb itself is also a kind of its own (star, merge, fork), so that a query
 * starting with that verb finds it.
 */
export const INTENTS: Readonly<Record<string, readonly string[]>> = {
  create: ['create', 'add', 'new', 'make', 'insert', 'post', 'register', 'submit', 'upload', 'publish', 'schedule', 'draft', 'write', 'generate', 'record', 'store', 'save', 'put', 'invite', 'raise', 'place', 'issue', 'book', 'enter', 'attach'],
  read: ['get', 'show', 'view', 'display', 'fetch', 'retrieve', 'read', 'look', 'see', 'download', 'check', 'open', 'detail', 'inspect', 'describe'],
  list: ['list', 'show', 'view', 'display', 'browse', 'enumerate', 'find', 'search', 'all', 'every'],
  update: ['update', 'edit', 'modify', 'change', 'set', 'alter', 'rename', 'replace', 'mark', 'move', 'close', 'assign', 'archive', 'enable', 'disable', 'suspend', 'void', 'mute', 'configure', 'turn', 'put', 'apply', 'correct', 'fix', 'upload', 'scale', 'resize', 'increase', 'decrease', 'bump', 'lower', 'reduce', 'extend', 'adjust', 'toggle', 'upgrade', 'downgrade', 'reschedule', 'postpone'],
  delete: ['delete', 'remove', 'destroy', 'erase', 'drop', 'purge', 'trash', 'discard', 'unassign', 'release', 'clear', 'abort', 'cancel', 'revoke', 'rid'],
};
export const INTENT_BOOST = 2;
/**
 * How much more an operation scores when the query says every word of its tool name (for part of them, that share):
 * a name says what an operation does in a few words, which a word common to every operation (S3's bucket) cannot
 * weigh in the sums.
 */
export const NAME_COVERAGE = 0.5;
/** What an operation scores when the query names none of the words of what it acts on (its path's last words). */
export const RESOURCE_MISS = 0.6;

/** The kinds a summary's first word says, for the verbs APIs start summaries with. */
const SUMMARY_VERBS: Readonly<Record<string, string>> = {
  create: 'create', creates: 'create', add: 'create', adds: 'create', insert: 'create', register: 'create', new: 'create', post: 'create',
  update: 'update', updates: 'update', edit: 'update', edits: 'update', modify: 'update', modifies: 'update', change: 'update', set: 'update', sets: 'update', replace: 'update', replaces: 'update', patch: 'update',
  delete: 'delete', deletes: 'delete', remove: 'delete', removes: 'delete', destroy: 'delete',
  list: 'list', lists: 'list', search: 'list', searches: 'list', find: 'list', query: 'list',
  get: 'read', gets: 'read', retrieve: 'read', retrieves: 'read', fetch: 'read', fetches: 'read', read: 'read', reads: 'read', return: 'read', returns: 'read', show: 'read', shows: 'read', describe: 'read', describes: 'read', view: 'read',
};

/**
 * The kinds of an operation: from its summary's first word (its operationId's without a summary) when that is a verb of {@link SUMMARY_VERBS}
 * (a read of many things is a list), else from its method and whether its path ends naming one thing; and the
 * summary's first word's term.
 */
export function operationIntents(method: string, requestPath: string, summary: string, operationId = ''): string[] {
  const one = /\}$/.test(requestPath);
  const first = summaryVerb(summary) ?? words(operationId)[0] ?? '';
  let kind = SUMMARY_VERBS[first];
  if (kind === 'read' && !one && method === 'get') kind = 'list';
  // An action (Merge a branch, Send mail) is that action, whatever its method.
  if (kind === undefined && ACTION_WORDS.has(first)) return [stem(first)];
  kind ??= ({ get: one ? 'read' : 'list', head: 'read', post: one ? 'update' : 'create', put: one ? 'update' : 'create', patch: 'update', delete: 'delete' } as Record<string, string>)[method];
  return [...new Set([kind ?? 'other', ...(first.length > 2 ? [stem(first)] : [])])];
}

/** A summary's first word; for `Invoke action sendMail` (OData actions and functions), the action's. */
function summaryVerb(summary: string): string | undefined {
  const list = words(summary);
  return list[0] === 'invoke' && (list[1] === 'action' || list[1] === 'function') ? list[2] : list[0];
}
