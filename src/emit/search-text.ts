/**
 * The words of a text as the operation search sees them. The generated server's McpSearch.cs applies the same
 * rules to each query (kept in step by the discovery end-to-end test), so that a query word meets the index term
 * the generator made from the same word in a summary, path or name.
 */

/** Word boundaries inside a token: camelCase, HTTPServer, v2beta. */
const CASE_BOUNDARY = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;
const SEPARATOR = /[^\p{L}\p{N}]+/u;

/** Words that say nothing about which operation is meant. */
export const STOP_WORDS = new Set([
  'a', 'an', 'the', 'of', 'for', 'in', 'on', 'to', 'by', 'with', 'and', 'or', 'from', 'at', 'as', 'is', 'are', 'be',
  'this', 'that', 'these', 'those', 'it', 'its', 'i', 'we', 'you', 'your', 'our', 'please', 'can', 'could', 'would',
  'how', 'do', 'does', 'what', 'which', 'want', 'need', 'some', 'any', 'into', 'about', 'using', 'via', 'given',
  'specific', 'particular', 'there', 'so', 'if', 'then', 'than', 'will', 'should', 'has', 'have', 'was', 'were',
]);

/**
 * A light English stemmer: plurals folded, -ing and -ed removed, a final e dropped, so that create, creates,
 * created and creating are one term (creat), and message and messages another (messag). Short words stay.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('es')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length >= 6 && w.endsWith('ing') && hasVowel(w.slice(0, -3))) w = undouble(w.slice(0, -3));
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

/** The search terms of a text, in order, repeats kept: split, lower-cased, stop words out, stemmed. */
export function terms(text: string): string[] {
  return words(text).map(stem);
}

/** The terms of a query: its words' terms, and {@link MANY} when one of them is a plural (show pull requests). */
export function queryTerms(query: string): string[] {
  const all = words(query);
  const result = all.map(stem);
  if (all.some((w) => w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w))) result.push(MANY);
  return result;
}

function words(text: string): string[] {
  const result: string[] = [];
  for (const token of text.split(SEPARATOR)) {
    for (const part of token.split(CASE_BOUNDARY)) {
      const word = part.toLowerCase();
      if (word !== '' && !STOP_WORDS.has(word)) result.push(word);
    }
  }
  return result;
}

/**
 * Query words that say what kind of operation is wanted, by the HTTP methods that do it: an operation whose
 * method matches a query's intent scores {@link INTENT_BOOST} times as much.
 */
export const INTENTS: Readonly<Record<string, readonly string[]>> = {
  GET: ['get', 'list', 'show', 'view', 'display', 'fetch', 'retrieve', 'read', 'find', 'search', 'look', 'see', 'download', 'check', 'count', 'what', 'which', 'who'],
  POST: ['create', 'add', 'new', 'make', 'insert', 'post', 'register', 'submit', 'send', 'upload', 'publish', 'schedule', 'draft', 'write', 'generate', 'start', 'trigger', 'open', 'invite', 'leave', 'reply', 'forward'],
  PUT: ['create', 'add', 'new', 'put', 'upload', 'replace', 'update', 'set', 'edit', 'change', 'modify', 'assign'],
  PATCH: ['update', 'edit', 'change', 'modify', 'rename', 'set', 'mark', 'move', 'patch', 'alter'],
  DELETE: ['delete', 'remove', 'destroy', 'erase', 'drop', 'purge', 'trash', 'discard', 'unassign'],
};
export const INTENT_BOOST = 2;

/** The methods a query's words ask for (none: the query says nothing of it). */
export function queryMethods(queryTermList: readonly string[]): Set<string> {
  const wanted = new Set<string>();
  for (const [method, verbs] of Object.entries(INTENTS)) if (verbs.some((v) => queryTermList.includes(stem(v)))) wanted.add(method);
  return wanted;
}
