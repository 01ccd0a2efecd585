import type { SearchIndex } from './search-index.js';
import { INTENT_BOOST, NAME_COVERAGE, queryIntents, queryTerms, RESOURCE_MISS } from './search-text.js';

/**
 * A query against the index, as the generated server's McpSearch.cs runs it: the weights of the query's
 * distinct terms summed per operation, times the operation's prior, times {@link INTENT_BOOST} where its
 * kind is one the query's verbs ask for, times {@link RESOURCE_MISS} where the query names nothing of what it
 * acts on, times 1 + {@link NAME_COVERAGE} × the share of its tool name's words the query says (or a synonym); only operations with the tag when one is given; best first (ties
 * in index order). Returns operation positions in the index.
 */
export function searchIndexed(index: SearchIndex, query: string, limit: number, tag?: string): number[] {
  const scores = new Map<number, number>();
  const all = queryTerms(query);
  const distinct = new Set(all);
  const intents = queryIntents(all);
  for (const term of distinct) {
    const postings = index.terms[term];
    if (!postings) continue;
    for (let i = 0; i < postings.length; i += 2) {
      const doc = postings[i] ?? 0;
      scores.set(doc, (scores.get(doc) ?? 0) + (postings[i + 1] ?? 0));
    }
  }
  const wanted = tag?.toLowerCase();
  for (const [doc, score] of scores) {
    const op = index.operations[doc];
    const resource = op?.[9] ?? [];
    const named = resource.length === 0 || resource.some((t) => distinct.has(t));
    const nameWords = op?.[10] ?? [];
    const covered = nameWords.length === 0 ? 0 : nameWords.filter((forms) => forms.some((t) => distinct.has(t))).length / nameWords.length;
    scores.set(doc, score * (op?.[7] ?? 1000) * ((op?.[8] ?? []).some((k) => intents.has(k)) ? INTENT_BOOST : 1) * (named ? 1 : RESOURCE_MISS) * (1 + NAME_COVERAGE * covered));
  }
  return [...scores]
    .filter(([doc]) => wanted === undefined || (index.operations[doc]?.[4] ?? []).some((t) => t.toLowerCase() === wanted))
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit)
    .map(([doc]) => doc);
}
