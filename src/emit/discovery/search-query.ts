import type { SearchIndex } from './search-index.js';
import { INTENT_BOOST, NAME_COVERAGE, RESOURCE_HELD, RESOURCE_MISS } from './search-text.js';
import { queryWords } from './search-query-words.js';

/**
 * A query against the index, as the generated server's McpSearch.cs runs it: the weights of the query's
 * distinct terms summed per operation, times the operation's prior, times {@link INTENT_BOOST} where its
 * kind is one the query's verbs ask for, times {@link RESOURCE_MISS} where the query names nothing of what it
 * acts on (a possessor does not name it), or {@link RESOURCE_HELD} where it names, in the singular, only what holds it
 * (the segment before: "put a reaction on issue 12" for /issues/{index}/reactions) or that makes what the query
 * names only after a preposition (POST /issues for "add a label to issue 12"), times 1 + {@link NAME_COVERAGE} × the share of its tool name's words
 * the query says (or a synonym);
 * only operations with the tag when one is given; best first (ties in index order). Returns operation positions
 * in the index.
 */
export function searchIndexed(index: SearchIndex, query: string, limit: number, tag?: string): number[] {
  const sums = new Map<number, number>();
  const { terms: all, intents, possessors, ones, free } = queryWords(query);
  const distinct = new Set(all);
  for (const term of distinct) {
    // Own properties only: a query word such as "constructor" is no posting list.
    const postings = Object.hasOwn(index.terms, term) ? index.terms[term] : undefined;
    if (!postings) continue;
    for (let i = 0; i < postings.length; i += 2) {
      const doc = postings[i] ?? 0;
      sums.set(doc, (sums.get(doc) ?? 0) + (postings[i + 1] ?? 0));
    }
  }
  const wanted = tag?.toLowerCase();
  const scored: [number, number][] = [];
  for (const [doc, sum] of sums) {
    const op = index.operations[doc];
    if (!op || (wanted !== undefined && !op[4].some((t) => t.toLowerCase() === wanted))) continue;
    const said = (t: string): boolean => distinct.has(t) && !possessors.has(t);
    const own = op[9].length === 0 || op[9].some(said);
    // What a path's last segment names under one thing the request names (the comments of this issue) is nearer than what it does not name at all.
    const held = !own && op[11].some((t) => ones.has(t));
    // An operation that makes a thing the request names only as where something goes ("add a label to issue 12": no
    // new issue) is no nearer than one under it; a path whose last piece says its own verb (RPC: CreateBucketAccessKey) names more than a thing.
    const where = own && op[8].includes('create') && op[9].length > 0 && !op[9].some((t) => op[8].includes(t)) && !op[9].some((t) => free.has(t) && !possessors.has(t));
    scored.push([doc, sum * op[7] * (op[8].some((k) => intents.has(k)) ? INTENT_BOOST : 1) * (own && !where ? 1 : held || where ? RESOURCE_HELD : RESOURCE_MISS)]);
  }
  // The name raises a score at most 1 + NAME_COVERAGE times: an operation below the limit-th best by that much
  // cannot be among the results, and its name need not be looked at (Graph: most of 11,422).
  const bar = kthLargest(scored.map(([, score]) => score), limit);
  return scored
    .filter(([, score]) => score * (1 + NAME_COVERAGE) >= bar)
    .map(([doc, score]): [number, number] => [doc, score * (1 + NAME_COVERAGE * nameCoverage(index.operations[doc]?.[10] ?? [], distinct))])
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit)
    .map(([doc]) => doc);
}

/** The share of a tool name's words that the query says, itself or by a synonym. */
function nameCoverage(nameWords: readonly (readonly string[])[], terms: ReadonlySet<string>): number {
  return nameWords.length === 0 ? 0 : nameWords.filter((forms) => forms.some((t) => terms.has(t))).length / nameWords.length;
}

/** The k-th largest of the values; -Infinity when there are no more than k. */
function kthLargest(values: readonly number[], k: number): number {
  if (values.length <= k || k <= 0) return -Infinity;
  const top: number[] = [];
  for (const value of values) {
    if (top.length === k && value <= (top[k - 1] ?? -Infinity)) continue;
    let at = top.length;
    while (at > 0 && (top[at - 1] ?? 0) < value) at--;
    top.splice(at, 0, value);
    if (top.length > k) top.pop();
  }
  return top[k - 1] ?? -Infinity;
}
