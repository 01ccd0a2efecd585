/**
 * 9. HTTP load with `--auth oauth`: the load area's deployment (two replicas behind nginx) generated with `--auth oauth`,
 * each replica validating every request's access token (from oidc-provider on 127.0.0.1, test/support/authorization-server.ts);
 * the same calls as the load area, with a token; calls/s and p50/p99 per call beside the load area's figures without
 * authorization, and their difference: what token validation costs a call.
 */
import { freePort } from '../../test/support/replicas.js';
import { startAuthorizationServer } from '../../test/support/authorization-server.js';
import type { Area } from './area.js';
import type { BenchContext } from './context.js';
import { buildSharedProject, startDeployment, stopDeployment, type Deployment } from './deployment.js';
import { isRight, measureRun, SEQUENTIAL_CALLS, type Run } from './load.js';
import { int, ms, percentile, median, range } from './lib.js';
import { verdict } from './results.js';

const AREA = '9 HTTP load, --auth oauth';
const SPEC = 'shared.yaml';

export const loadAuth: Area = {
  name: 'load-auth',
  corpus: false,
  peer: false,
  run: (context) => benchLoadAuth(context),
  method: ({ options }) =>
    `HTTP load with --auth oauth: as the HTTP load area, the project generated with \`--auth oauth\` (SHARED_AUTH_SCOPES items:read), its resource the balancer's URL, its authority oidc-provider on 127.0.0.1 (RS256 JWT access tokens); the client sends one token (client credentials, fetched before the clock starts) with each request, and each replica validates it (signature, issuer, audience, expiry, scope) on every request, the authority's keys fetched once. ${options.runs} runs of ${int(options.calls)} calls after a warm-up run. Then 300 calls one at a time in each area: what validation adds to a call is this area's p50 for a call alone less the HTTP load area's, from the same bench run.`,
};

async function benchLoadAuth(context: BenchContext): Promise<void> {
  const { log, options, results } = context;
  const fail = (message: string): void => {
    results.problems.push(`HTTP load with --auth oauth: ${message.slice(0, 500)}`);
    results.rows.push({ area: AREA, what: 'tool calls through nginx to two replicas, tokens validated', spec: SPEC, value: 'failed', spread: '', beside: message.slice(0, 200), goal: '', status: 'FAILED' });
  };
  const built = buildSharedProject(context, { folder: 'load-auth', args: ['--auth', 'oauth'] });
  if ('error' in built) return fail(built.error);
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const authority = await startAuthorizationServer({ resources: [{ url: resource, scopes: ['items:read'] }], accessTokenTtl: 3600 });
  let deployment: Deployment | undefined;
  try {
    deployment = await startDeployment(context, built.dll, { port, settings: { SHARED_AUTH_AUTHORITY: authority.issuer, SHARED_RESOURCE_URL: resource, SHARED_AUTH_SCOPES: 'items:read' } });
    const headers = { Authorization: `Bearer ${await authority.clientCredentialsToken({ resource, scope: 'items:read' })}` };
    log(`HTTP load with --auth oauth: warm-up run (${options.calls} calls)`);
    await measureRun(deployment, options.calls, headers);
    const runs: Run[] = [];
    for (let round = 0; round < options.runs; round++) runs.push(await measureRun(deployment, options.calls, headers));
    report(context, runs);
    reportAlone(context, await measureRun(deployment, SEQUENTIAL_CALLS, headers, 1));
  } catch (error) {
    fail((error as Error).message);
  } finally {
    if (deployment) await stopDeployment(deployment);
    await authority.stop();
  }
}

/** A call alone, with its token validated, beside the load area's call alone without: what validation adds to a call. */
function reportAlone({ results }: BenchContext, alone: Run): void {
  const times = alone.outcomes.map((o) => o.ms);
  const p50 = percentile(times, 50);
  const without = results.rows.find((row) => row.area === '8 HTTP load' && row.what.startsWith('latency of a call alone'));
  const withoutP50 = Number(/p50 ([\d.]+) ms/.exec(without?.value ?? '')?.[1] ?? Number.NaN);
  results.rows.push({
    area: AREA, what: `latency of a call alone with token validation (${SEQUENTIAL_CALLS} calls, one at a time)`, spec: SPEC,
    value: `p50 ${ms(p50, 2)}, p99 ${ms(percentile(times, 99), 2)}`, spread: '',
    beside: Number.isNaN(withoutP50) ? 'run the load area in the same bench for the figure without' : `without: p50 ${ms(withoutP50, 2)}; validation adds ${ms(p50 - withoutP50, 2)} per call`,
    goal: '', status: '',
  });
}

function report({ options, results }: BenchContext, runs: readonly Run[]): void {
  const rates = runs.map((r) => options.calls / r.seconds);
  const all = runs.flatMap((r) => r.outcomes.map((o) => o.ms));
  const p50 = percentile(all, 50);
  const without = results.rows.find((row) => row.area === '8 HTTP load' && row.what.startsWith('latency per call'));
  const withoutP50 = Number(/p50 ([\d.]+) ms/.exec(without?.value ?? '')?.[1] ?? Number.NaN);
  const push = (what: string, value: string, spread: string, beside: string): void =>
    void results.rows.push({ area: AREA, what, spec: SPEC, value, spread, beside, goal: '', status: '' });
  push(`throughput with token validation (${int(options.calls)} calls)`, `${int(median(rates))} calls/s`, range(rates, (v) => `${int(v)} calls/s`), `without: see 8 HTTP load`);
  push('latency per call with token validation', `p50 ${ms(p50, 1)}, p99 ${ms(percentile(all, 99), 1)}`, '',
    Number.isNaN(withoutP50) ? 'run the load area in the same bench for the figure without' : `without: p50 ${ms(withoutP50, 1)} (under load, queueing dominates: see a call alone)`);
  const outcomes = runs.flatMap((r) => r.outcomes);
  const bad = outcomes.filter((o) => !isRight(o));
  results.rows.push({ area: AREA, what: 'calls failed or wrong', spec: SPEC, value: `${int(bad.length)} of ${int(outcomes.length)}`, spread: '', beside: '', goal: '0', status: verdict(bad.length === 0) });
  if (bad.length > 0) results.problems.push(`HTTP load with --auth oauth: ${bad.length} calls failed or wrong, e.g. ${JSON.stringify(bad[0]?.text.slice(0, 200))}`);
}
