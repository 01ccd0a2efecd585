/**
 * How the operation search reads a request: which words it looks up and which kinds of operation (create, read,
 * list, update, delete, or a summary's own verb) it asks for. The generated server's McpSearchQuery.cs reads queries by
 * the same rules and tables (kept in step by the discovery end-to-end test).
 */
import { AGENT, allWords, expandContractions, INTENTS, isPast, MANY, PERSON, stem, STOP_WORDS } from './search-text.js';

/**
 * Verbs whose particle changes what they mean ("tear down" a service, "log Bob out"): the particle may come up
 * to three words later, and the pair reads as the one verb given. Keyed by the verb's term and the particle.
 */
export const PHRASAL_VERBS: Readonly<Record<string, string>> = {
  'set up': 'create', 'spin up': 'create', 'sign up': 'register', 'start up': 'start', 'boot up': 'start', 'fire up': 'start', 'fire off': 'run', 'kick off': 'start',
  'tear down': 'delete', 'take down': 'delete', 'shut down': 'stop', 'wind down': 'stop',
  'shut off': 'disable', 'turn off': 'disable', 'switch off': 'disable', 'turn on': 'enable', 'switch on': 'enable',
  'kick out': 'remove', 'throw out': 'delete', 'throw away': 'delete', 'clean up': 'delete', 'clear out': 'delete', 'wipe out': 'delete',
  'log in': 'login', 'sign in': 'login', 'log out': 'logout', 'sign out': 'logout',
  'bring back': 'restore', 'put back': 'restore', 'roll back': 'rollback',
  'look up': 'get', 'find out': 'get', 'hang up': 'end', 'wrap up': 'end', 'hook up': 'connect', 'hand over': 'transfer', 'back up': 'backup', 'strip off': 'remove', 'take off': 'remove', 'opt out': 'unsubscribe',
  'put on': 'add', 'put in': 'add', 'put into': 'add', 'let in': 'add', 'take out': 'remove', 'look over': 'review', 'go over': 'review',
};
const PARTICLES = new Set(Object.keys(PHRASAL_VERBS).map((pair) => pair.split(' ')[1] ?? ''));
let phrasalTable: ReadonlyMap<string, string> | undefined;
/**
 * The same table keyed by the verb's term: `tear down`, `tearing down` and `tore down`'s regular forms meet. Made on
 * first use: stemming is not for commands without a search.
 */
export function phrasalTerms(): ReadonlyMap<string, string> {
  return phrasalTable ??= new Map(Object.entries(PHRASAL_VERBS).map(([pair, verb]) => {
    const [head = '', particle = ''] = pair.split(' ');
    return [`${stem(head)} ${particle}`, verb];
  }));
}

/** Words after which the next word is not wanted ("without sending it", "don't notify"). */
export const NEGATIONS = new Set(['not', 'without', 'never', 'no']);

/** Verbs that, after "who" and before a subject pronoun ({@link PRONOUNS}), make "who" the object ("who am I following", "who do we owe"). */
export const AUXILIARIES = new Set(['am', 'is', 'are', 'was', 'were', 'do', 'does', 'did', 'have', 'has', 'had', 'can', 'could', 'should', 'will', 'would']);
/** Subject pronouns. */
export const PRONOUNS = new Set(['i', 'you', 'we', 'they', 'he', 'she', 'it']);

/** Words that, opening a request, make it a question, which a read or a list answers. */
export const QUESTION_WORDS = new Set(['what', 'which', 'who', 'whose', 'where', 'when', 'how', 'is', 'are', 'does', 'do', 'did', 'has', 'have', 'was', 'were']);

export interface QueryWords {
  /** The terms looked up, repeats kept, and {@link MANY} when a word is a plural. */
  readonly terms: readonly string[];
  /** The kinds of operation asked for, and the terms of the request's verbs (a summary's own verb is a kind). */
  readonly intents: ReadonlySet<string>;
  /** The terms of possessors ("an owner's pets": owner), which qualify what is asked for rather than name it. */
  readonly possessors: ReadonlySet<string>;
  /** The terms of the words said in the singular (the Marketing folder, issue 12, an owner's): one thing, which may hold what is asked for. */
  readonly ones: ReadonlySet<string>;
  /** The terms of the words said before any preposition: what the request makes or acts on, not where ("add a label to issue 12": label). */
  readonly free: ReadonlySet<string>;
}

interface Entry { word: string; past: boolean; held: boolean }

/** Prepositions that say where something goes or is ("add a label to the issue", "a file in the folder"). */
export const PREPOSITIONS = new Set(['on', 'onto', 'in', 'into', 'inside', 'from', 'of', 'under', 'within']);
/** Words after which "to" is a preposition and no infinitive ("to the team", "to my list", "to 10am"). */
export const DETERMINERS = new Set(['the', 'a', 'an', 'my', 'our', 'your', 'his', 'her', 'their', 'this', 'that', 'these', 'those', 'its', 'one', 'another', 'every', 'all']);

/** Marks every word after a preposition (or "to" before a determiner or a number) as held: it says where, not what. */
function markHeld(list: Entry[]): void {
  for (let i = 0; i < list.length; i++) {
    const word = list[i]?.word ?? '';
    const next = list[i + 1]?.word ?? '';
    if (PREPOSITIONS.has(word) || (word === 'to' && (DETERMINERS.has(next) || /^\d/.test(next)))) {
      for (let j = i + 1; j < list.length; j++) {
        const entry = list[j];
        if (entry) entry.held = true;
      }
      return;
    }
  }
}

/**
 * A request's terms and the kinds it asks for. Contractions are expanded; a phrasal verb becomes its verb; the
 * word after a negation is left out; a word that reads as a past participle (the merged branch) is looked up but
 * asks for no kind; a request that opens with a question word asks for a read or a list; a possessor is noted;
 * "stop" or "quit" before an -ing form reads as remove; a request that opens with "who" as its subject asks for people;
 * the words said in the singular are noted.
 */
export function queryWords(query: string): QueryWords {
  const text = query.replace(/[\u2018\u2019]/g, "'");
  const possessors = new Set<string>();
  for (const match of text.matchAll(/([\p{L}\p{N}]+)'s\b/giu)) {
    const word = (match[1] ?? '').toLowerCase();
    if (!STOP_WORDS.has(word)) possessors.add(stem(word));
  }
  const list = allWords(expandContractions(text)).map((word) => ({ word, past: isPast(word), held: false }));
  markHeld(list);
  joinPhrasalVerbs(list);
  readCeasing(list);
  const kept: Entry[] = [];
  let negated = false;
  for (const entry of list) {
    if (NEGATIONS.has(entry.word)) negated = true;
    else if (STOP_WORDS.has(entry.word)) continue;
    else if (negated) negated = false;
    else kept.push(entry);
  }
  const terms = kept.map((k) => stem(k.word));
  if (kept.some(({ word: w }) => isPlural(w))) terms.push(MANY);
  // "who follows octocat": the ones who follow (followers), not whom octocat follows.
  const verb = list[1]?.word ?? '';
  if (list[0]?.word === 'who' && !STOP_WORDS.has(verb) && (isPlural(verb) || isPast(verb))) terms.push(`${AGENT}${stem(verb)}`);
  // "who acted in it", "who's on the team": people, whatever the verb.
  if (list[0]?.word === 'who' && !(AUXILIARIES.has(verb) && PRONOUNS.has(list[2]?.word ?? ''))) terms.push(PERSON);
  // A noun made of a verb (attachments, payment) names a thing, whatever its stem shares with the verb (attach).
  const verbs = kept.filter((k) => !k.past && !/ments?$/.test(k.word)).map((k) => stem(k.word));
  const intents = new Set<string>(verbs);
  for (const [kind, asking] of Object.entries(INTENTS)) if (asking.some((v) => verbs.includes(stem(v)))) intents.add(kind);
  if (QUESTION_WORDS.has(list[0]?.word ?? '')) intents.add('read').add('list');
  // Reading things (get the attachments) is listing them.
  if (intents.has('read') && terms.includes(MANY)) intents.add('list');
  const ones = new Set(kept.filter((k) => !isPlural(k.word)).map((k) => stem(k.word)));
  const free = new Set(kept.filter((k) => !k.held).map((k) => stem(k.word)));
  return { terms, intents, possessors, ones, free };
}

/** Whether a word reads as a plural, or a verb's -s form (pets, follows). */
function isPlural(word: string): boolean {
  return word.length > 3 && word.endsWith('s') && !/(?:ss|us|is)$/.test(word);
}

/** Verbs that, before a verb's -ing form, undo what it does ("stop following bob", "quit watching it"). */
export const CEASING = new Set(['stop', 'quit']);

/**
 * "stop following bob" asks to remove the following, not for an operation that stops something: the verb reads as
 * remove, and the -ing form as the thing removed.
 */
function readCeasing(list: Entry[]): void {
  for (let i = 0; i + 1 < list.length; i++) {
    const next = list[i + 1]?.word ?? '';
    if (CEASING.has(list[i]?.word ?? '') && next.length > 5 && next.endsWith('ing')) list[i] = { word: 'remove', past: false, held: list[i]?.held ?? false };
  }
}

/** Replaces each phrasal verb's verb by the one it means and takes its particle out, in place. */
function joinPhrasalVerbs(list: Entry[]): void {
  for (let i = 0; i < list.length; i++) {
    const head = list[i];
    if (!head) continue;
    for (let j = i + 1; j < Math.min(list.length, i + 4); j++) {
      const particle = list[j]?.word ?? '';
      if (!PARTICLES.has(particle)) continue;
      const verb = phrasalTerms().get(`${stem(head.word)} ${particle}`);
      if (verb !== undefined) {
        list[i] = { word: verb, past: head.past, held: head.held };
        list.splice(j, 1);
      }
      break;
    }
  }
}
