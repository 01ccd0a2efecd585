/**
 * 6. Discovery mode: how often search_operations puts the intended operation first, in the top 3 and in
 * the top 10, over four query sets of natural-language requests, each with the operation it means, written from
 * the operations (test/fixtures/search-queries*.json): the first set, over five APIs, which the ranking was tuned
 * on; a held-out set over the same APIs; a blind set over five other APIs, written by someone who never saw the
 * ranking (whose misses later changes looked at); and a final set over five more, also written blind, whose
 * misses are not printed so that it stays a test; and three sets of requests in the words people use rather than the
 * spec's, over Gitea, Trakt and Jellyfin, written from the operation lists before any ranking change (Jellyfin's misses
 * are not printed either). And the tools/list size of the first five APIs in both modes (the
 * discovery tools' with the map of the API search_operations' description carries), and the size of a search answer at
 * the default limit, with and without detail "full" (each hit's inputSchema).
 */
import { join } from 'node:path';
import type { Area } from './area.js';
import type { BenchContext } from './context.js';
import { int, ms, percent, quantile } from './lib.js';
import { verdict } from './results.js';
import { readQuerySets, type QuerySet } from './query-sets.js';
import { prepare } from '../../src/generate.js';
import { planNames } from '../../src/names/plan.js';
import { reportSelection } from '../../src/report.js';
import { selectOperations } from '../../src/select.js';
import { searchIndex, type SearchIndex } from '../../src/emit/discovery/search-index.js';
import { searchIndexed } from '../../src/emit/discovery/search-query.js';
import { searchMap } from '../../src/emit/discovery/search-map.js';
import { searchAnswer } from '../../src/emit/discovery/discovery.js';
import { inputSchema } from '../../src/emit/tools/input-schema.js';

/** The discovery tools/list: about 2,100 bytes, and the map at most 1,500. */
const GOALS = { recallAt3: 0.9, discoveryBytes: 3600 } as const;
/** search_operations' default limit. */
const LIMIT = 10;
const AREA = '6 discovery';

export const search: Area = {
  name: 'search',
  corpus: true,
  peer: false,
  run: (context) => benchSearch(context),
  method: () =>
    'discovery: recall@k is the share of a query set whose intended operation (method and path) is among the first k results of the ranking the generated server runs (src/emit/discovery/search-query.ts, which McpSearch.cs mirrors; the discovery end-to-end test checks they agree), over an index of the spec (the Graph entry: its mail and calendar section, by tag). The sets: search-queries.json (tuned on), -holdout.json (same APIs), -blind.json and -final.json (ten other APIs, written by someone who never saw the ranking; the final set\'s misses are not printed), and -gitea.json, -trakt.json and -jellyfin.json (requests in people\'s own words over three APIs no other set uses, written from the operation lists before the ranking was changed for them; Jellyfin\'s misses are not printed). Query time is that implementation\'s, in Node, over every query; tools/list bytes are the report command\'s figures for the same operations (in discovery mode with the map search_operations\' description carries). Answer bytes: the mean size of search_operations\' answer to each query of a set at the default limit (10), as the server writes it (McpDiscovery.Hit; JSON.stringify counts the bytes), with detail "summary" (name, title, method, path, tags, summary) and "full" (and each hit\'s inputSchema, as describe_operation gives it); recall does not depend on the detail.',
};

interface Counts { n: number; at1: number; at3: number; at10: number }

/** An API's index, and its operations' input schemas by tool name (what detail "full" adds to each hit). */
interface Indexed { readonly index: SearchIndex; readonly schemas: ReadonlyMap<string, unknown> }

/**
 * Where each query's intended operation ranks: counts per API and in all, the queries not in the first 10, the query
 * times, and the bytes of each query's answer at the default limit in both details.
 */
function recall(set: QuerySet, indexes: ReadonlyMap<string, Indexed>): { bySpec: Map<string, Counts>; total: Counts; misses: string[]; times: number[]; summaryBytes: number[]; fullBytes: number[] } {
  const total: Counts = { n: 0, at1: 0, at3: 0, at10: 0 };
  const summaryBytes: number[] = [];
  const fullBytes: number[] = [];
  const bySpec = new Map<string, Counts>();
  const misses: string[] = [];
  const times: number[] = [];
  for (const q of set.queries) {
    const indexed = indexes.get(q.spec);
    if (!indexed) throw new Error(`query set: no API "${q.spec}" for "${q.query}"`);
    const { index, schemas } = indexed;
    const started = performance.now();
    const hits = searchIndexed(index, q.query, LIMIT);
    times.push(performance.now() - started);
    const found = hits.map((i) => `${index.operations[i]?.[2]} ${index.operations[i]?.[3]}`);
    summaryBytes.push(Buffer.byteLength(searchAnswer(index, hits)));
    fullBytes.push(Buffer.byteLength(searchAnswer(index, hits, (name) => schemas.get(name))));
    const rank = found.indexOf(q.expect);
    const counts = bySpec.get(q.spec) ?? { n: 0, at1: 0, at3: 0, at10: 0 };
    bySpec.set(q.spec, counts);
    for (const c of [counts, total]) {
      c.n++;
      if (rank === 0) c.at1++;
      if (rank >= 0 && rank < 3) c.at3++;
      if (rank >= 0) c.at10++;
    }
    if (rank < 0) misses.push(`${q.spec}: "${q.query}"`);
  }
  return { bySpec, total, misses, times, summaryBytes, fullBytes };
}

const at = (c: Counts): string => `${percent(c.at1, c.n)} / ${percent(c.at3, c.n)} / ${percent(c.at10, c.n)}`;
const mean = (values: readonly number[]): number => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);

async function benchSearch(context: BenchContext): Promise<void> {
  const { rows, notes } = context.results;
  const sets = await readQuerySets(context.paths.repo);
  const indexes = new Map<string, Indexed>();
  const sizes = new Map<string, { operations: number; bytes: number; discoveryBytes: number; mapBytes: number }>();
  for (const { queries } of sets) {
    for (const [key, spec] of Object.entries(queries.specs)) {
      if (indexes.has(key)) continue;
      context.log(`search: ${spec.id}`);
      const api = await prepare(join(context.paths.apiDir, `${spec.id}.json`));
      const plan = planNames(api.model);
      const selection = spec.tags ? { tags: spec.tags } : {};
      const report = reportSelection(api, selection);
      const { selected } = selectOperations(api.model, plan, selection);
      const schemas = new Map(selected.map((op) => [plan.operations.get(op.id)?.toolName ?? '', inputSchema(api.model, plan, op)] as const));
      indexes.set(key, { index: JSON.parse(searchIndex(plan, selected, api.model)) as SearchIndex, schemas });
      sizes.set(key, { operations: selected.length, bytes: report.bytes, discoveryBytes: report.discoveryBytes, mapBytes: Buffer.byteLength(searchMap(selected)) });
    }
  }
  const first = sets[0];
  if (!first) return;
  const tuned = recall(first.queries, indexes);
  for (const key of Object.keys(first.queries.specs)) {
    const size = sizes.get(key) ?? { operations: 0, bytes: 0, discoveryBytes: 0, mapBytes: 0 };
    const counts = tuned.bySpec.get(key) ?? { n: 0, at1: 0, at3: 0, at10: 0 };
    rows.push({ area: AREA, what: 'recall@1 / @3 / @10', spec: `${key} (${int(size.operations)} operations)`, value: at(counts), spread: `${counts.n} queries`, beside: '', goal: '', status: '' });
    rows.push({
      area: AREA, what: 'tools/list bytes, operations → discovery mode', spec: key,
      value: `${int(size.bytes)} → ${int(size.discoveryBytes)}`, spread: '', beside: `of which the map ${int(size.mapBytes)}`, goal: `discovery ≤ ${int(GOALS.discoveryBytes)}`, status: verdict(size.discoveryBytes <= GOALS.discoveryBytes),
    });
  }
  const times: number[] = [];
  const misses: string[] = [];
  for (const [i, set] of sets.entries()) {
    const result = i === 0 ? tuned : recall(set.queries, indexes);
    const apis = Object.keys(set.queries.specs);
    rows.push({
      area: AREA, what: `recall@1 / @3 / @10, ${set.what}`, spec: `${apis.length} APIs`, value: at(result.total), spread: `${result.total.n} queries`, beside: apis.map((k) => `${k} ${percent(result.bySpec.get(k)?.at3 ?? 0, result.bySpec.get(k)?.n ?? 1)}`).join(', '),
      goal: `@3 ≥ ${percent(GOALS.recallAt3, 1)}`, status: verdict(result.total.at3 / result.total.n >= GOALS.recallAt3),
    });
    rows.push({
      area: AREA, what: `search answer bytes at limit ${LIMIT}, detail summary → full, ${set.what}`, spec: `${apis.length} APIs`,
      value: `${int(mean(result.summaryBytes))} → ${int(mean(result.fullBytes))}`, spread: `mean of ${result.total.n} answers`, beside: `full: ${apis.map((k) => `${k} ${int(mean(result.fullBytes.filter((_, q) => set.queries.queries[q]?.spec === k)))}`).join(', ')}`, goal: '', status: '',
    });
    times.push(...result.times);
    if (set.misses) misses.push(...result.misses.map((m) => (i === 0 ? m : `${m} (${set.file})`)));
  }
  rows.push({ area: AREA, what: 'query time (reference ranking, Node)', spec: 'all queries', value: `p50 ${ms(quantile(times, 0.5))}, p99 ${ms(quantile(times, 0.99))}`, spread: '', beside: '', goal: '', status: '' });
  if (misses.length > 0) notes.push(`discovery: queries whose operation is not in the first 10 results (${misses.length}; the final set's are not printed): ${misses.join('; ')}.`);
}
