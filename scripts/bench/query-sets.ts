/**
 * The search query sets (test/fixtures/search-queries*.json), in the order they were written, with whether their
 * misses may be printed: the discovery area's lexical recall and the hybrid area's recall read the same sets.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface QuerySet {
  readonly specs: Record<string, { id: string; tags?: string[] }>;
  readonly queries: readonly { spec: string; query: string; expect: string }[];
}

export const QUERY_SETS = [
  { file: 'search-queries.json', what: 'all queries (tuned on)', misses: true },
  { file: 'search-queries-holdout.json', what: 'held-out queries', misses: true },
  { file: 'search-queries-blind.json', what: 'blind queries, five other APIs', misses: true },
  { file: 'search-queries-final.json', what: 'final blind queries, five more APIs', misses: false },
  { file: 'search-queries-gitea.json', what: 'requests as people phrase them, Gitea', misses: true },
  { file: 'search-queries-trakt.json', what: 'requests as people phrase them, Trakt', misses: true },
  { file: 'search-queries-jellyfin.json', what: 'requests as people phrase them, Jellyfin, never looked at', misses: false },
] as const;

/** Every set with its requests, read from the repository's fixtures. */
export function readQuerySets(repo: string): Promise<(typeof QUERY_SETS[number] & { queries: QuerySet })[]> {
  return Promise.all(QUERY_SETS.map(async (set) => ({ ...set, queries: JSON.parse(await readFile(join(repo, 'test/fixtures', set.file), 'utf8')) as QuerySet })));
}
