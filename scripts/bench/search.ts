/**
 * 6. Discovery mode: how often search_operations puts the intended operation first, in the top 3 and in
 * the top 10, over the query set of test/fixtures/search-queries.json (natural-language requests over five
 * real APIs, each with the operation it means), and the tools/list size of each API in both modes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Area } from './area.js';
import type { BenchContext } from './context.js';
import { int, ms, percent, quantile } from './lib.js';
import { verdict } from './results.js';
import { prepare } from '../../src/generate.js';
import { planNames } from '../../src/names/plan.js';
import { reportSelection } from '../../src/report.js';
import { selectOperations } from '../../src/select.js';
import { searchIndex, type SearchIndex } from '../../src/emit/search-index.js';
import { searchIndexed } from '../../src/emit/search-query.js';

const GOALS = { recallAt3: 0.9, discoveryBytes: 2000 } as const;
const AREA = '6 discovery';

interface QuerySet {
  readonly specs: Record<string, { id: string; tags?: string[] }>;
  readonly queries: readonly { spec: string; query: string; expect: string }[];
}

export const search: Area = {
  name: 'search',
  corpus: true,
  peer: false,
  run: (context) => benchSearch(context),
  method: () =>
    'discovery: recall@k is the share of the query set whose intended operation (method and path) is among the first k results of the ranking the generated server runs (src/emit/search-query.ts, which McpSearch.cs mirrors; the discovery end-to-end test checks they agree), over an index of the spec (the Graph entry: its mail and calendar section, by tag). Query time is that implementation\'s, in Node, over every query of the set; tools/list bytes are the report command\'s figures for the same operations.',
};

async function benchSearch(context: BenchContext): Promise<void> {
  const { rows, notes } = context.results;
  const set = JSON.parse(await readFile(join(context.paths.repo, 'test/fixtures/search-queries.json'), 'utf8')) as QuerySet;
  const total = { n: 0, at1: 0, at3: 0, at10: 0 };
  const times: number[] = [];
  const misses: string[] = [];
  for (const [key, spec] of Object.entries(set.specs)) {
    context.log(`search: ${spec.id}`);
    const api = await prepare(join(context.paths.apiDir, `${spec.id}.json`));
    const plan = planNames(api.model);
    const selection = spec.tags ? { tags: spec.tags } : {};
    const report = reportSelection(api, selection);
    const { selected } = selectOperations(api.model, plan, selection);
    const index = JSON.parse(searchIndex(plan, selected)) as SearchIndex;
    const counts = { n: 0, at1: 0, at3: 0, at10: 0 };
    for (const q of set.queries.filter((q) => q.spec === key)) {
      const started = performance.now();
      const found = searchIndexed(index, q.query, 10).map((i) => `${index.operations[i]?.[2]} ${index.operations[i]?.[3]}`);
      times.push(performance.now() - started);
      const rank = found.indexOf(q.expect);
      counts.n++;
      if (rank === 0) counts.at1++;
      if (rank >= 0 && rank < 3) counts.at3++;
      if (rank >= 0) counts.at10++;
      else misses.push(`${key}: "${q.query}"`);
    }
    for (const k of ['n', 'at1', 'at3', 'at10'] as const) total[k] += counts[k];
    rows.push({
      area: AREA, what: 'recall@1 / @3 / @10', spec: `${key} (${int(selected.length)} operations)`,
      value: `${percent(counts.at1, counts.n)} / ${percent(counts.at3, counts.n)} / ${percent(counts.at10, counts.n)}`, spread: `${counts.n} queries`, beside: '', goal: '', status: '',
    });
    rows.push({
      area: AREA, what: 'tools/list bytes, operations → discovery mode', spec: key,
      value: `${int(report.bytes)} → ${int(report.discoveryBytes)}`, spread: '', beside: '', goal: `discovery ≤ ${int(GOALS.discoveryBytes)}`, status: verdict(report.discoveryBytes <= GOALS.discoveryBytes),
    });
  }
  rows.push({
    area: AREA, what: 'recall@1 / @3 / @10, all queries', spec: `${Object.keys(set.specs).length} APIs`,
    value: `${percent(total.at1, total.n)} / ${percent(total.at3, total.n)} / ${percent(total.at10, total.n)}`, spread: `${total.n} queries`, beside: '',
    goal: `@3 ≥ ${percent(GOALS.recallAt3, 1)}`, status: verdict(total.at3 / total.n >= GOALS.recallAt3),
  });
  rows.push({ area: AREA, what: 'query time (reference ranking, Node)', spec: 'all queries', value: `p50 ${ms(quantile(times, 0.5))}, p99 ${ms(quantile(times, 0.99))}`, spread: '', beside: '', goal: '', status: '' });
  if (misses.length > 0) notes.push(`discovery: queries whose operation is not in the first 10 results (${misses.length}): ${misses.join('; ')}.`);
}
