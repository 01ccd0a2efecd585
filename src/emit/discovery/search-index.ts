import type { ApiModel, HttpMethod, Operation, TypeRef } from '../../model/types.js';
import type { NamePlan } from '../../names/plan.js';
import { agentTerms, MANY, operationIntents, personTerms, terms } from './search-text.js';
import { synonymsOf } from './search-synonyms.js';

/**
 * The operation index a discovery-mode server searches (`McpSearchIndex.g.json`, embedded in the assembly):
 * each operation's listing, and for each term the operations holding it with a precomputed BM25F weight, so
 * that a query costs one dictionary lookup per word and an addition per posting, and starting costs nothing.
 */
export interface SearchIndex {
  /**
   * [tool name, title, METHOD, path, tags, summary, C# method of McpTools, prior × 1000, kinds, resource terms,
   * name words: for each word of the tool name, the terms that stand for it (itself and its synonyms), parent terms].
   */
  readonly operations: readonly (readonly [string, string, string, string, readonly string[], string, string, number, readonly string[], readonly string[], readonly (readonly string[])[], readonly string[]])[];
  /** term → [operation, weight × 1000, operation, weight × 1000, …], operations ascending. */
  readonly terms: Readonly<Record<string, readonly number[]>>;
}

/** How much a word counts by where it stands. */
const FIELDS = { name: 3, summary: 2, path: 1.5, operationId: 1, tags: 1, method: 0.5, description: 0.75, parameters: 0.3, body: 0.3 } as const;
type Field = keyof typeof FIELDS;

/** BM25 saturation and length normalisation. */
const K1 = 1.2;
const B = 0.6;
/** A synonym counts this much of the word it stands for. */
const SYNONYM_WEIGHT = 0.35;
/** How much each path segment past the first lowers an operation's score. */
const DEPTH_PENALTY = 0.2;
/** How much of a description is indexed: the start says what an operation does, the rest how. */
const DESCRIPTION_CHARACTERS = 2000;
/** Path words in more than this share of the operations say nothing (/2010-04-01/Accounts/{AccountSid}/…, X-Amz-Target=…ContainerService…). */
const COMMON_PATH_SHARE = 0.8;

/** What the method itself says an operation does. */
const METHOD_WORDS: Record<HttpMethod, string> = {
  get: 'get', head: 'get check exist', options: 'options', trace: 'trace', post: 'create', put: 'update replace', patch: 'update', delete: 'delete',
};

/** The index of the selected operations, as compact JSON. */
export function searchIndex(plan: NamePlan, operations: readonly Operation[], model: ApiModel): string {
  const listed = operations.filter((op) => plan.operations.has(op.id));
  const fields = listed.map((op) => fieldTerms(op, plan, model));
  const pathCounts = new Map<string, number>();
  for (const doc of fields) for (const t of new Set(doc.path)) pathCounts.set(t, (pathCounts.get(t) ?? 0) + 1);
  for (const doc of fields) doc.path = doc.path.filter((t) => (pathCounts.get(t) ?? 0) <= COMMON_PATH_SHARE * fields.length);
  const averages = Object.fromEntries((Object.keys(FIELDS) as Field[]).map((f) => [f, Math.max(1, fields.reduce((sum, d) => sum + d[f].length, 0) / Math.max(1, fields.length))])) as Record<Field, number>;
  // term → operation → weighted, length-normalised frequency (BM25F's pseudo term frequency)
  const frequencies = new Map<string, Map<number, number>>();
  fields.forEach((doc, index) => {
    for (const field of Object.keys(FIELDS) as Field[]) {
      // Each word counts once per field: a path that repeats a word (/mailFolders/{mailFolder-id}) is not more about it.
      const words = [...new Set(doc[field])];
      const norm = FIELDS[field] / (1 - B + (B * words.length) / averages[field]);
      for (const word of words) {
        add(frequencies, word, index, norm);
        for (const synonym of synonymsOf(word)) add(frequencies, synonym, index, norm * SYNONYM_WEIGHT);
      }
    }
  });
  const count = listed.length;
  const termsOut: Record<string, number[]> = {};
  for (const term of [...frequencies.keys()].sort()) {
    const postings = frequencies.get(term) ?? new Map<number, number>();
    const idf = Math.log(1 + (count - postings.size + 0.5) / (postings.size + 0.5));
    const flat: number[] = [];
    for (const [doc, tf] of [...postings].sort((a, b) => a[0] - b[0])) flat.push(doc, Math.max(1, Math.round(1000 * idf * ((K1 + 1) * tf) / (K1 + tf))));
    termsOut[term] = flat;
  }
  const index: SearchIndex = {
    operations: listed.map((op) => {
      const names = plan.operations.get(op.id);
      return [names?.toolName ?? '', names?.title ?? '', op.method.toUpperCase(), op.path, op.tags, op.summary ?? '', names?.toolMethod ?? '', prior(op), operationIntents(op.method, op.requestPath, op.summary ?? '', op.operationId ?? ''), resourceTerms(op), nameWords(names?.toolName ?? ''), parentTerms(op)] as const;
    }),
    terms: termsOut,
  };
  return `${JSON.stringify(index)}\n`;
}

function add(frequencies: Map<string, Map<number, number>>, term: string, doc: number, amount: number): void {
  const postings = frequencies.get(term) ?? new Map<number, number>();
  postings.set(doc, (postings.get(doc) ?? 0) + amount);
  frequencies.set(term, postings);
}

function fieldTerms(op: Operation, plan: NamePlan, model: ApiModel): Record<Field, string[]> {
  const names = plan.operations.get(op.id);
  const staticPath = op.path.replace(/\{[^}]*\}/g, ' ');
  const pathParameters = [...op.path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1] ?? '');
  return {
    name: [...terms(names?.toolName ?? ''), ...agentTerms(names?.toolName ?? '')],
    summary: [...terms(op.summary ?? firstSentence(op.description ?? '')), ...agentTerms(op.summary ?? firstSentence(op.description ?? ''))],
    path: [...terms(staticPath), ...agentTerms(staticPath), ...personTerms(pathPieces(op.path).at(-1) ?? '')],
    operationId: terms(op.operationId ?? ''),
    tags: terms(op.tags.join(' ')),
    method: [...terms(METHOD_WORDS[op.method]), ...(op.method === 'get' && !/\}$/.test(op.requestPath) ? [MANY] : [])],
    description: terms((op.description ?? '').slice(0, DESCRIPTION_CHARACTERS)),
    parameters: terms([...new Set([...pathParameters, ...op.parameters.map((p) => p.name)])].join(' ')),
    body: terms(bodyWords(model, op.body?.type)),
  };
}

/** Deeper paths are less often what is meant: /me/events before /me/calendars/{id}/events. */
function prior(op: Operation): number {
  const segments = op.requestPath.split('/').filter((s) => s !== '' && !/^\{[^}]*\}$/.test(s)).length;
  return Math.round(1000 / (1 + DEPTH_PENALTY * Math.max(0, segments - 1)));
}

/** Each distinct word of a tool name, with the terms that stand for it: a query that says them all says what the tool is. */
function nameWords(toolName: string): string[][] {
  return [...new Set(terms(toolName))].map((t) => [t, ...synonymsOf(t)]);
}

/**
 * The terms of what an operation acts on, the last word-bearing segment of its path (/repos/{owner}/{repo}/forks:
 * fork), with their synonyms: a query that names none of them asks for something else.
 */
function resourceTerms(op: Operation): string[] {
  const own = terms(pathPieces(op.path).at(-1) ?? '');
  return [...new Set([...own, ...own.flatMap((t) => synonymsOf(t))])];
}

/**
 * The terms of what holds what an operation acts on, the word-bearing segment before the last
 * (/orgs/{org}/members/{username}: org), with their synonyms: a request that names a thing of the API by its own name
 * ("put Scream on my Halloween list") names the holder and not the kind of thing it adds, removes or asks about.
 */
function parentTerms(op: Operation): string[] {
  const own = terms(pathPieces(op.path).at(-2) ?? '');
  return [...new Set([...own, ...own.flatMap((t) => synonymsOf(t))])];
}

/**
 * The word-bearing pieces of a path, in order: its segments, and the parts of each around `#`, `?`, `=`, `.` and
 * `:` (`/#X-Amz-Target=Service.DeleteCluster`, `/messages/{id}/microsoft.graph.move`, `/Calls/{Sid}.json`), without
 * parameters, file extensions and versions.
 */
const LETTER = /\p{L}/u;

function pathPieces(path: string): string[] {
  return path.split(/[/#?=.:]/)
    .map((piece) => piece.replace(/\{[^}]*\}/g, ' ').trim())
    .filter((piece) => LETTER.test(piece) && !/^(json|xml|yaml|txt)$/i.test(piece) && !/^v\d+$/i.test(piece));
}

/**
 * The names and allowed values of a request body's properties (Twilio's `Status` of a call: `canceled`,
 * `completed`; Graph's `isRead`): what an update can change, which its summary seldom says.
 */
function bodyWords(model: ApiModel, type: TypeRef | undefined): string {
  const inner = type?.kind === 'array' ? type.items : type;
  if (inner?.kind !== 'object') return '';
  return (model.types.get(inner.id)?.properties ?? [])
    .map((p) => [p.jsonName, ...(p.type.constraints?.enum ?? []).filter((v): v is string => typeof v === 'string')].join(' '))
    .join(' ');
}

/** An operation's first sentence, which says what it does where it has no summary (AWS specs). */
function firstSentence(text: string): string {
  return /^[\s\S]*?[.!?](?=\s|$)/.exec(text.trim())?.[0] ?? text.slice(0, 200);
}
