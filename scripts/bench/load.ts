/**
 * 8. HTTP load: the HTTP transport under load, deployed as a shared server is (deployment.ts: two replicas of the
 * generated shared.yaml server behind nginx round-robin): --calls `get_item` tool calls with 100 in flight through
 * the SDK's Streamable HTTP client; calls/s, p50 and p99 per call, RSS of each replica after the run, and how many
 * calls failed or came back wrong.
 */
import { connectHttp, runCalls, type CallOutcome } from '../../test/support/replicas.js';
import { FORWARD_HEADER, SHARED_KEYS } from '../../test/support/shared-api.js';
import type { Area } from './area.js';
import type { BenchContext } from './context.js';
import { buildSharedProject, REPLICAS, startDeployment, stopDeployment, type Deployment } from './deployment.js';
import { int, mb, median, ms, percentile, range, statusKb } from './lib.js';
import { verdict } from './results.js';

const AREA = '8 HTTP load';
const IN_FLIGHT = 100;
/** The API answers at once: what is measured is the client, nginx and the replicas, not a slow API. */
const API_DELAY_MS = 0;
const SPEC = 'shared.yaml';
/** Calls sent one at a time, for the latency of a call alone (what per-call work such as token validation adds shows there). */
export const SEQUENTIAL_CALLS = 300;

export const load: Area = {
  name: 'load',
  corpus: false,
  peer: false,
  run: (context) => benchLoad(context),
  method: ({ options }) =>
    `HTTP load: \`init --transport http --forward-auth X-Api-Token\` of test/fixtures/shared.yaml, built in Release, run as two replicas (\`dotnet Shared.dll --urls http://127.0.0.1:<port>\`, logging at Warning) behind nginx (round robin, one worker, keep-alive to the replicas), in front of the test API on 127.0.0.1 (answering at once). An SDK Streamable HTTP client (one caller's key in X-Api-Token; a new client each run, connected before the clock starts) sends ${int(options.calls)} \`get_item\` calls per run, ${Math.min(IN_FLIGHT, options.calls)} in flight; ${options.runs} runs after one unmeasured warm-up run. calls/s = calls ÷ wall time of the run; latency is each call's round trip (all runs pooled, p99 nearest rank); RSS = VmRSS of each replica after each run. A call is wrong unless it is no error and echoes its own id, the caller and the key redacted. Client, nginx, replicas and API share the machine's cores.`,
};

export interface Run {
  readonly seconds: number;
  readonly outcomes: CallOutcome[];
  /** VmRSS of each replica after the run, in kB. */
  readonly rssKb: number[];
}

async function benchLoad(context: BenchContext): Promise<void> {
  const { log, options, results } = context;
  const built = buildSharedProject(context);
  if ('error' in built) {
    results.problems.push(`shared.yaml HTTP project: ${built.error}`);
    results.rows.push({ area: AREA, what: 'tool calls through nginx to two replicas', spec: SPEC, value: 'failed', spread: '', beside: built.error.slice(0, 200), goal: '', status: 'FAILED' });
    return;
  }
  let deployment: Deployment | undefined;
  try {
    deployment = await startDeployment(context, built.dll);
    log(`HTTP load: warm-up run (${options.calls} calls)`);
    await measureRun(deployment, options.calls);
    const servedBefore = new Map(deployment.api.byReplica);
    const runs: Run[] = [];
    for (let round = 0; round < options.runs; round++) {
      const run = await measureRun(deployment, options.calls);
      runs.push(run);
      const times = run.outcomes.map((o) => o.ms);
      log(`HTTP load run ${round + 1}/${options.runs}: ${(options.calls / run.seconds).toFixed(0)} calls/s, p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`);
    }
    const served = REPLICAS.map((name) => (deployment?.api.byReplica.get(name) ?? 0) - (servedBefore.get(name) ?? 0));
    report(context, deployment, runs, served);
    const alone = await measureRun(deployment, SEQUENTIAL_CALLS, {}, 1);
    const times = alone.outcomes.map((o) => o.ms);
    results.rows.push({ area: AREA, what: `latency of a call alone (${SEQUENTIAL_CALLS} calls, one at a time)`, spec: SPEC, value: `p50 ${ms(percentile(times, 50), 2)}, p99 ${ms(percentile(times, 99), 2)}`, spread: '', beside: '', goal: '', status: '' });
  } catch (error) {
    results.problems.push(`HTTP load: ${(error as Error).message.slice(0, 500)}`);
    results.rows.push({ area: AREA, what: 'tool calls through nginx to two replicas', spec: SPEC, value: 'failed', spread: '', beside: (error as Error).message.slice(0, 200), goal: '', status: 'FAILED' });
  } finally {
    if (deployment) await stopDeployment(deployment);
  }
}

/**
 * One run, from a client of its own (connected before the clock starts): the SDK's transport hands one
 * AbortSignal to every fetch, and undici takes its listener off only when the request is garbage-collected,
 * so a client kept across runs piles up listeners (and Node's MaxListenersExceededWarning past 1,500).
 */
export async function measureRun(deployment: Deployment, calls: number, headers: Record<string, string> = {}, inFlight = IN_FLIGHT): Promise<Run> {
  const client = await connectHttp(deployment.balancer.url, { [FORWARD_HEADER]: SHARED_KEYS.alice, ...headers });
  try {
    const started = performance.now();
    const outcomes = await runCalls(client, 'get_item', calls, Math.min(inFlight, calls), (i) => ({ id: i, delayMs: API_DELAY_MS }));
    const seconds = (performance.now() - started) / 1000;
    return { seconds, outcomes, rssKb: deployment.replicas.map((r) => statusKb(r.process.pid ?? -1, 'VmRSS')) };
  } finally {
    await client.close().catch(() => {});
  }
}

/** Not an error, and the answer is the one asked for: its own id, the caller, the key redacted. */
export function isRight(outcome: CallOutcome): boolean {
  if (!outcome.ok) return false;
  try {
    const body = JSON.parse(outcome.text) as { id?: unknown; owner?: unknown; key?: unknown };
    return body.id === outcome.index && body.owner === 'alice' && body.key === '[redacted]';
  } catch {
    return false;
  }
}

function report({ options, results }: BenchContext, deployment: Deployment, runs: readonly Run[], served: readonly number[]): void {
  const inFlight = Math.min(IN_FLIGHT, options.calls);
  const load = `${int(options.calls)} calls, ${inFlight} in flight`;
  const rates = runs.map((r) => options.calls / r.seconds);
  const all = runs.flatMap((r) => r.outcomes.map((o) => o.ms));
  const push = (what: string, value: string, spread: string, beside: string): void =>
    void results.rows.push({ area: AREA, what, spec: SPEC, value, spread, beside, goal: '', status: '' });
  push(`throughput: \`get_item\` tool calls through nginx to 2 replicas (${load})`, `${int(median(rates))} calls/s`, range(rates, (v) => `${int(v)} calls/s`), `served by replica ${REPLICAS.join(' / ')}: ${served.map(int).join(' / ')}`);
  push(`latency per call (${load})`, `p50 ${ms(percentile(all, 50), 1)}, p99 ${ms(percentile(all, 99), 1)}`, `run p99s ${range(runs.map((r) => percentile(r.outcomes.map((o) => o.ms), 99)), (v) => ms(v, 1))}`, `${runs.length} runs × ${int(options.calls)} calls pooled`);
  for (const [i, name] of REPLICAS.entries()) {
    const rss = runs.map((r) => r.rssKb[i] ?? Number.NaN);
    push(`RSS of replica ${name} after a run`, mb(median(rss)), range(rss, mb), `peak since start (VmHWM) ${mb(statusKb(deployment.replicas[i]?.process.pid ?? -1, 'VmHWM'))}; ${deployment.gc}`);
  }
  const outcomes = runs.flatMap((r) => r.outcomes);
  const bad = outcomes.filter((o) => !isRight(o));
  const failed = bad.filter((o) => !o.ok).length;
  results.rows.push({
    area: AREA, what: 'calls failed or wrong', spec: SPEC, value: `${int(bad.length)} of ${int(outcomes.length)}`, spread: '',
    beside: `${int(failed)} failed, ${int(bad.length - failed)} wrong`, goal: '0', status: verdict(bad.length === 0),
  });
  if (bad.length > 0) results.problems.push(`HTTP load: ${bad.length} calls failed or wrong, e.g. ${JSON.stringify(bad[0]?.text.slice(0, 200))}`);
  results.notes.push(`HTTP load setup: ${deployment.nginxVersion} (one worker process, round robin, keepalive 64 to the upstreams) in front of ${REPLICAS.length} replicas of Shared.dll (Release, ${deployment.gc}); ${inFlight} calls in flight from one Streamable HTTP client; ${options.runs} runs of ${int(options.calls)} calls, each from a new client.`);
}
