/**
 * 9b. HTTP load with the replicas' state on Redis: the load area's deployment (two replicas of the shared.yaml server
 * behind nginx), each caller's rate limit on (a limit no run reaches, so that every call is counted and none refused),
 * first with each replica's own buckets, then with REDIS naming a redis-server on 127.0.0.1 (Debian's), where every
 * request to /mcp takes its token from the caller's bucket in Redis. calls/s and p50/p99 of the two, side by side:
 * what sharing the limit costs a call.
 */
import { join } from 'node:path';
import { startRedis, type Redis } from '../../test/support/redis.js';
import type { Area } from './area.js';
import type { BenchContext } from './context.js';
import { buildSharedProject, startDeployment, stopDeployment, type Deployment } from './deployment.js';
import { isRight, measureRun, type Run } from './load.js';
import { int, median, ms, percentile, range } from './lib.js';
import { verdict } from './results.js';

const AREA = '9b HTTP load, state on Redis';
const SPEC = 'shared.yaml';
/** Counted but never reached: the limiter runs on every request, and refuses none. */
const LIMITS = { SHARED_RATE_LIMIT_PER_MINUTE: '1000000', SHARED_RATE_LIMIT_BURST: '1000000' };

export const loadRedis: Area = {
  name: 'load-redis',
  corpus: false,
  peer: false,
  run: (context) => benchLoadRedis(context),
  method: ({ options }) =>
    `HTTP load with the state on Redis: the HTTP load area's deployment (Release build of the shared.yaml HTTP project, two replicas behind nginx, one SDK Streamable HTTP client, 100 calls in flight), with the per-caller rate limit on at ${LIMITS.SHARED_RATE_LIMIT_PER_MINUTE} a minute and a burst of ${LIMITS.SHARED_RATE_LIMIT_BURST} (counted on every request, never reached). First without SHARED_REDIS (each replica's own token buckets), then with SHARED_REDIS naming redis-server on 127.0.0.1 (Debian's, no persistence), where each POST to /mcp runs RedisRateLimiting's token-bucket script in Redis. ${options.runs} runs of ${int(options.calls)} calls each, after a warm-up run; Redis shares the machine's cores with the rest.`,
};

async function benchLoadRedis(context: BenchContext): Promise<void> {
  const { log, results, work } = context;
  const fail = (message: string): void => {
    results.problems.push(`HTTP load with Redis: ${message.slice(0, 500)}`);
    results.rows.push({ area: AREA, what: 'tool calls through nginx to two replicas, limits on Redis', spec: SPEC, value: 'failed', spread: '', beside: message.slice(0, 200), goal: '', status: 'FAILED' });
  };
  const built = buildSharedProject(context, { folder: 'load-redis', args: [] });
  if ('error' in built) return fail(built.error);
  let redis: Redis | undefined;
  try {
    redis = await startRedis(join(work, 'load-redis', 'redis'));
    const off = await measure(context, built.dll, 'each replica\'s own buckets', {});
    const on = await measure(context, built.dll, 'buckets on Redis', { SHARED_REDIS: redis.address });
    const counted = redis.cli('KEYS', 'rl:tb:*').split('\n').filter(Boolean);
    if (counted.length === 0) throw new Error('no bucket in Redis after the runs with SHARED_REDIS: the limit was not shared');
    log(`HTTP load with Redis: ${counted.length} bucket(s) in Redis`);
    report(context, off, on);
  } catch (error) {
    fail((error as Error).message);
  } finally {
    await redis?.stop();
  }
}

async function measure(context: BenchContext, dll: string, label: string, settings: Record<string, string>): Promise<Run[]> {
  const { log, options } = context;
  let deployment: Deployment | undefined;
  try {
    deployment = await startDeployment(context, dll, { folder: 'load-redis', settings: { ...LIMITS, ...settings } });
    log(`HTTP load, ${label}: warm-up run (${options.calls} calls)`);
    await measureRun(deployment, options.calls);
    const runs: Run[] = [];
    for (let round = 0; round < options.runs; round++) {
      const run = await measureRun(deployment, options.calls);
      runs.push(run);
      log(`HTTP load, ${label}, run ${round + 1}/${options.runs}: ${(options.calls / run.seconds).toFixed(0)} calls/s`);
    }
    return runs;
  } finally {
    if (deployment) await stopDeployment(deployment);
  }
}

function report({ options, results }: BenchContext, off: readonly Run[], on: readonly Run[]): void {
  const rate = (runs: readonly Run[]): number[] => runs.map((r) => options.calls / r.seconds);
  const times = (runs: readonly Run[]): number[] => runs.flatMap((r) => r.outcomes.map((o) => o.ms));
  const latency = (runs: readonly Run[]): string => `p50 ${ms(percentile(times(runs), 50), 1)}, p99 ${ms(percentile(times(runs), 99), 1)}`;
  const push = (what: string, value: string, spread: string, beside: string, goal = '', status: '' | 'PASS' | 'MISS' = ''): void =>
    void results.rows.push({ area: AREA, what, spec: SPEC, value, spread, beside, goal, status });
  const [offRate, onRate] = [median(rate(off)), median(rate(on))];
  push(`throughput, limits on Redis (${int(options.calls)} calls, 100 in flight)`, `${int(onRate)} calls/s`, range(rate(on), (v) => `${int(v)} calls/s`),
    `each replica's own buckets: ${int(offRate)} calls/s (${range(rate(off), (v) => `${int(v)}`)}); on Redis ${((onRate / offRate) * 100).toFixed(0)}% of that`);
  push('latency per call, limits on Redis', latency(on), '', `each replica's own buckets: ${latency(off)}`);
  const bad = [...off, ...on].flatMap((r) => r.outcomes).filter((o) => !isRight(o));
  push('calls failed or wrong (both)', `${int(bad.length)} of ${int((off.length + on.length) * options.calls)}`, '', '', '0', verdict(bad.length === 0));
  if (bad.length > 0) results.problems.push(`HTTP load with Redis: ${bad.length} calls failed or wrong, e.g. ${JSON.stringify(bad[0]?.text.slice(0, 200))}`);
}
