/**
 * The words of a text as the operation search sees them. The generated server's McpSearchQuery.cs applies the
 * same rules to each query (kept in step by the discovery end-to-end test), so that a query word meets the index
 * term the generator made from the same word in a summary, path or name.
 */

import { createRequire } from 'node:module';
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

interface Stemmer { stem(word: string): string }
let english: Stemmer | undefined;

/** snowball-stemmers' English (Porter2) stemmer, loaded on first use: operations mode needs none. */
function porter2(word: string): string {
  english ??= (createRequire(import.meta.url)('snowball-stemmers') as { newStemmer(language: string): Stemmer }).newStemmer('english');
  return english.stem(word);
}

/** Stems already made: an API repeats its words thousands of times. */
const STEMS = new Map<string, string>();

/**
 * A word's term: the Porter2 (Snowball English) stem of the lower-case word, so that create, creates, created,
 * creating and creation are one term (creat), remind and reminders another (remind), follow, follower and following
 * another (follow). The generated server stems queries with the same algorithm (McpSearchQuery.cs, Lucene.Net's
 * Snowball English stemmer; here snowball-stemmers', a port of the Snowball project's own code), which test/discovery.test.ts checks on every word of the dev corpus's operations.
 */
export function stem(word: string): string {
  let term = STEMS.get(word);
  if (term === undefined) {
    // Porter2 is an English algorithm of the letters a to z: numbers and other scripts stay as they are.
    term = /^[a-z]+$/.test(word) ? porter2(word) : word;
    if (STEMS.size < 200_000) STEMS.set(word, term);
  }
  return term;
}

/**
 * The term of the ones who do what a verb says: "who follows" asks for followers, not for the following; "who
 * reviews" for reviewers. An index word of the agent form (follower, watchers) holds it, and a request that opens
 * with "who" and a verb's -s or -ed form asks for it (search-query-words.ts).
 */
export const AGENT = '~who:';

/** The agent terms of a text's words that name someone by what they do (followers: ~who:follow). */
export function agentTerms(text: string): string[] {
  return words(expandContractions(text)).flatMap((word) => {
    const base = /ers$/.test(word) ? word.slice(0, -3) : /er$/.test(word) ? word.slice(0, -2) : '';
    return base.length >= 3 ? [`${AGENT}${stem(base)}`] : [];
  });
}

/**
 * The term of the operations whose path ends in people (/movies/{id}/people, /teams/{id}/members, /webinars/{id}/absentees),
 * and of requests that open with "who", which asks for people whatever its verb ("who acted in it", "who's on the team").
 */
export const PERSON = '~person';

/**
 * Nouns that name people by what they are to a thing (members, participants, attendees, followers). Suffixes do not
 * tell them (folder, order, container and monitor are agent forms too, variant and committee look like participant
 * and attendee), so they are listed.
 */
export const PERSON_NOUNS = new Set([
  'people', 'person', 'user', 'member', 'participant', 'attendee', 'collaborator', 'contributor', 'follower', 'subscriber',
  'watcher', 'stargazer', 'reviewer', 'assignee', 'owner', 'admin', 'administrator', 'guest', 'viewer', 'absentee',
  'registrant', 'panelist', 'invitee', 'recipient', 'author', 'maintainer', 'moderator', 'cast', 'crew', 'friend', 'fan',
  'actor', 'employee', 'staff', 'speaker', 'host', 'agent', 'creator', 'editor', 'signer', 'approver', 'voter', 'liker',
]);

/** {@link PERSON} when the last word of a path's last piece names people (members, Participants, absentees). */
export function personTerms(piece: string): string[] {
  const last = allWords(piece).at(-1) ?? '';
  const singular = last.endsWith('ies') ? `${last.slice(0, -3)}y` : last.endsWith('s') && !last.endsWith('ss') ? last.slice(0, -1) : last;
  return PERSON_NOUNS.has(last) || PERSON_NOUNS.has(singular) ? [PERSON] : [];
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
  create: ['create', 'add', 'new', 'make', 'insert', 'post', 'register', 'submit', 'upload', 'publish', 'schedule', 'draft', 'write', 'generate', 'record', 'store', 'save', 'put', 'invite', 'raise', 'place', 'issue', 'book', 'enter', 'attach', 'give', 'grant', 'log'],
  read: ['get', 'show', 'view', 'display', 'fetch', 'retrieve', 'read', 'look', 'see', 'download', 'check', 'open', 'detail', 'inspect', 'describe'],
  list: ['list', 'show', 'view', 'display', 'browse', 'enumerate', 'find', 'search', 'all', 'every'],
  update: ['update', 'edit', 'modify', 'change', 'set', 'alter', 'rename', 'replace', 'mark', 'move', 'close', 'assign', 'archive', 'enable', 'disable', 'suspend', 'void', 'mute', 'configure', 'turn', 'put', 'apply', 'correct', 'fix', 'upload', 'scale', 'resize', 'increase', 'decrease', 'bump', 'lower', 'reduce', 'extend', 'adjust', 'toggle', 'upgrade', 'downgrade', 'reschedule', 'postpone'],
  delete: ['delete', 'remove', 'destroy', 'erase', 'drop', 'purge', 'trash', 'discard', 'unassign', 'release', 'clear', 'abort', 'cancel', 'revoke', 'rid', 'nuke', 'wipe', 'scrap', 'ditch', 'eliminate'],
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
/**
 * What it scores when the query names, in the singular, only the thing that holds what it acts on (its path's segment
 * before the last): a sub-resource of one thing the request names (the reactions of issue 12, the items of my list).
 */
export const RESOURCE_HELD = 0.8;

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
