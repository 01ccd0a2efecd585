/** 6b. The hybrid search's times, from the built server's evaluation run (--mcp-search-evaluate). */
import { ms, quantile } from './lib.js';
import type { Row } from './results.js';

const AREA = '6b hybrid search';

/** One request's answer from the evaluation run. */
export interface Ranked { query: string; lexical: string[]; lexicalDeep: string[]; hybrid?: string[]; cosine?: string[]; lexicalMs?: number; embedMs?: number; fuseMs?: number; searchMs?: number }

/**
 * The search's times from an evaluation run: the request's embedding, the lexical ranking (depth 50), the cosine
 * ranking and the fusion (the lexical ranking and the vector given), and the whole search as search_operations runs
 * it (the lexical ranking on another thread while the request is embedded).
 */
export function searchTimes(ranked: readonly Ranked[], spec: string): Row[] {
  const times = (key: 'lexicalMs' | 'embedMs' | 'fuseMs' | 'searchMs'): number[] => ranked.flatMap((r) => (r[key] === undefined ? [] : [r[key] as number]));
  const at = (values: number[]): string => `p50 ${ms(quantile(values, 0.5))}, p99 ${ms(quantile(values, 0.99))}`;
  const beyond = ranked.flatMap((r) => (r.lexicalMs === undefined || r.fuseMs === undefined ? [] : [r.lexicalMs + r.fuseMs]));
  const row = (what: string, values: number[], goal = '', status: Row['status'] = ''): Row => ({ area: AREA, what, spec, value: at(values), spread: `${values.length} requests`, beside: '', goal, status });
  return [
    row('request embedding (all-MiniLM-L6-v2, one thread)', times('embedMs')),
    row('lexical ranking, depth 50', times('lexicalMs')),
    row('cosine ranking (int8) and fusion, the lexical ranking and the request\'s vector given', times('fuseMs')),
    row('search beyond the embedding: lexical, cosine and fusion one after the other', beyond, 'p99 ≤ 10 ms', quantile(beyond, 0.99) <= 10 ? 'PASS' : 'MISS'),
    row('whole hybrid search as search_operations runs it (embedding, the lexical ranking alongside)', times('searchMs')),
  ];
}
