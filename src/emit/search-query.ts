import type { SearchIndex } from './search-index.js';
import { INTENT_BOOST, queryMethods, queryTerms } from './search-text.js';

/**
 * A query against the index, as the generated server's McpSearch.cs runs it: the weights of the query's
 * distinct terms summed per operation, times the operation's prior, times {@link INTENT_BOOST} where its
 * method is one the query's verbs ask for; only operations with the tag when one is given; best first (ties
 * in index order). Returns operation positions in the index.
 */
export function searchIndexed(index: SearchIndex, query: string, limit: number, tag?: string): number[] {
  const scores = new Map<number, number>();
  const all = queryTerms(query);
  const methods = queryMethods(all);
  for (const term of new Set(all)) {
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
    scores.set(doc, score * (op?.[7] ?? 1000) * (methods.has(op?.[2] ?? '') ? INTENT_BOOST : 1));
  }
  return [...scores]
    .filter(([doc]) => wanted === undefined || (index.operations[doc]?.[4] ?? []).some((t) => t.toLowerCase() === wanted))
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit)
    .map(([doc]) => doc);
}
