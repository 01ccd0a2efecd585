/**
 * Replicas that share state on Redis (REDIS), end to end: generated HTTP servers built once, three or four replicas
 * of each behind nginx round robin (each caller told apart by the X-Forwarded-For nginx adds, the proxy trusted), a
 * real redis-server (Debian) on 127.0.0.1. One caller's rate limit and share of scripts hold across the replicas; the
 * token a replica fetched serves the others, sealed in Redis; a long-running operation's token made on one replica is
 * taken by another; and Redis stopped in the middle of a run and started again loses no call and sends none twice.
 * Each shared case runs beside the same replicas without REDIS, which behave as each replica alone does.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { detectFramework } from '../src/dotnet.js';
import { buildProjects, initProject } from './support/real-api-projects.js';
import { LIBRARY_KEY, LIBRARY_SPEC, startLibraryApi, type LibraryApi } from './support/library-api.js';
import { startAuthApi, SECRETS, type AuthApi } from './fixtures/auth-api.js';
import { SUBSCRIPTIONS, WIDGETS_SPEC, startAzureApi, type AzureApi } from './support/azure-api.js';
import { ARM_SCOPE, writeFakeAz, type FakeAz } from './support/fake-az.js';
import { startNginx, startReplica, runCalls, type Balancer, type Replica } from './support/replicas.js';
import { connectFrom, fetchFrom } from './support/caller-fetch.js';
import { startRedis, type Redis } from './support/redis.js';
import { startOtlpReceiver } from './support/otlp-receiver.js';
import { scratchDir } from './support/scratch.js';

const PROXY = '127.0.0.9';
const BURST = 10;
const PER_MINUTE = 6; // one token every 10 s: a test of a few seconds earns at most one or two more

interface Answer { status: number; text: string; isError: boolean }

/** One tools/call from `address` to `url` (the balancer or a replica), read whether it comes as JSON or as an event. */
async function call(url: string, address: string, name: string, args: Record<string, unknown>): Promise<Answer> {
  const response = await fetchFrom(address)(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = await response.text();
  const json = body.trimStart().startsWith('{') ? body : body.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('');
  if (response.status !== 200) return { status: response.status, text: body, isError: true };
  const message = JSON.parse(json) as { result?: { content: { text?: string }[]; isError?: boolean }; error?: { message: string } };
  return { status: 200, text: message.result?.content[0]?.text ?? message.error?.message ?? '', isError: message.result?.isError === true || message.error !== undefined };
}

/** The API behind a gate: a request for book 7 waits until `open()`; `held` counts those waiting. */
async function startGate(apiUrl: string): Promise<{ url: string; held(): number; open(): void; close(): void }> {
  const waiting: (() => void)[] = [];
  const gate: Server = createServer((req, res) => {
    const forward = (): void => {
      const upstream = request(`${apiUrl}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (req.url === '/books/7') waiting.push(forward);
    else forward();
  });
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(gate.address() as AddressInfo).port}`,
    held: () => waiting.length,
    open: () => waiting.splice(0).forEach((forward) => forward()),
    close: () => {
      gate.close();
      gate.closeAllConnections();
    },
  };
}

const until = async (check: () => boolean, ms = 10_000): Promise<void> => {
  for (const deadline = Date.now() + ms; !check() && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
};

describe('replicas sharing state on Redis (REDIS)', { timeout: 14 * 60_000 }, () => {
  let work = '';
  let api: LibraryApi;
  let redis: Redis;
  const replicas: Replica[] = [];
  const balancers: Balancer[] = [];
  const dll = (folder: string, assembly: string): string => join(work, folder, 'bin/Debug', detectFramework(), `${assembly}.dll`);

  /** `count` replicas of a project, each with these settings (REDIS among them, or not), and nginx in front of the first `serving` of them. */
  const deploy = async (name: string, assembly: string, folder: string, count: number, env: Record<string, string>, serving = count): Promise<{ replicas: Replica[]; proxy: Balancer }> => {
    const started = await Promise.all(Array.from({ length: count }, (_, i) => startReplica(`${name}-${i + 1}`, dll(folder, assembly), env)));
    replicas.push(...started);
    const proxy = await startNginx(join(work, `nginx-${name}`), started.slice(0, serving).map((r) => r.url), undefined, { from: PROXY });
    balancers.push(proxy);
    return { replicas: started, proxy };
  };
  const stop = (group: { replicas: Replica[]; proxy: Balancer }): void => {
    group.proxy.stop();
    for (const replica of group.replicas) replica.process.kill('SIGKILL');
  };

  const library = (more: Record<string, string>): Record<string, string> => ({
    SHARED_BASE_URL: api.url, SHARED_API_KEY: LIBRARY_KEY, SHARED_TRUSTED_PROXIES: PROXY,
    SHARED_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE), SHARED_RATE_LIMIT_BURST: String(BURST), ...more,
  });

  before(async () => {
    work = scratchDir('replicas');
    for (const [spec, name, folder, ...more] of [
      [LIBRARY_SPEC, 'Shared', 'library', '--transport', 'http'],
      [LIBRARY_SPEC, 'Scripts', 'scripts', '--transport', 'http', '--mode', 'code'],
      [join(import.meta.dirname, '../../test/fixtures/auth.yaml'), 'Auth', 'auth', '--transport', 'http'],
      [WIDGETS_SPEC, 'Widgets', 'widgets', '--transport', 'http', '--credential', 'azure'],
    ] as const) {
      const init = await initProject(work, spec, name, folder, ...more);
      assert.equal(init.code, 0, init.errors);
    }
    const [output, libraryApi, server] = await Promise.all([
      buildProjects(work, ['library/Shared.csproj', 'scripts/Scripts.csproj', 'auth/Auth.csproj', 'widgets/Widgets.csproj']),
      startLibraryApi(),
      startRedis(join(work, 'redis')),
    ]);
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    api = libraryApi;
    redis = server;
  });

  after(async () => {
    for (const balancer of balancers) balancer.stop();
    for (const replica of replicas) replica.process.kill('SIGKILL');
    await redis?.stop();
    await api?.close();
  });

  /** `count` calls of get_book from `address`, one after another; the answers' statuses. */
  const burst = async (url: string, address: string, count: number): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await call(url, address, 'get_book', { bookId: (i % 45) + 1 })).status);
    return statuses;
  };
  const accepted = (statuses: number[]): number => statuses.filter((s) => s === 200).length;
  const servedBy = (group: Replica[], address: string): number => group.filter((r) => r.log().includes(`"caller":"ip:${address}"`)).length;

  test('one caller\'s limit holds across three replicas (not three times it); another caller keeps its own; without REDIS each replica has its own', async () => {
    const shared = await deploy('rate', 'Shared', 'library', 3, library({ SHARED_REDIS: redis.address }));
    const mark = api.requests.length;
    const started = Date.now();
    const alice = await burst(shared.proxy.url, '127.0.0.2', 3 * BURST);
    const earned = Math.ceil(((Date.now() - started) / 60_000) * PER_MINUTE) + 1;
    assert.ok(accepted(alice) >= BURST && accepted(alice) <= BURST + earned, `accepted ${accepted(alice)} of ${alice.length}: ${alice.join(' ')}`);
    assert.equal(alice.filter((s) => s !== 200 && s !== 429).length, 0, alice.join(' '));
    assert.equal(api.requests.length - mark, accepted(alice), 'refused calls never reached the API');
    await until(() => servedBy(shared.replicas, '127.0.0.2') === 3);
    assert.equal(servedBy(shared.replicas, '127.0.0.2'), 3, 'the caller\'s calls reached every replica');
    assert.match(redis.cli('KEYS', '*'), /rl:tb:\{shared:rate:ip:127\.0\.0\.2\}/);
    // Another caller, behind the same proxy, has a bucket of its own.
    const bob = await burst(shared.proxy.url, '127.0.0.3', BURST + 2);
    assert.ok(accepted(bob) >= BURST && accepted(bob) <= BURST + 1, bob.join(' '));
    stop(shared);
    // The same replicas without REDIS: each has its own bucket, so the caller makes about three times its limit.
    const apart = await deploy('rate-apart', 'Shared', 'library', 3, library({}));
    const carol = await burst(apart.proxy.url, '127.0.0.4', 3 * BURST);
    assert.ok(accepted(carol) >= 3 * BURST - 2, `without REDIS: accepted ${accepted(carol)}`);
    stop(apart);
  });

  test('scaling from two replicas to four in the middle of a run leaves the caller\'s limit as it was', async () => {
    const group = await deploy('scale', 'Shared', 'library', 4, library({ SHARED_REDIS: redis.address }), 2);
    const started = Date.now();
    const before = await burst(group.proxy.url, '127.0.0.5', 6);
    assert.deepEqual(before, Array(6).fill(200));
    await group.proxy.reconfigure(group.replicas.map((r) => r.url));
    const afterScaling = await burst(group.proxy.url, '127.0.0.5', 3 * BURST);
    const earned = Math.ceil(((Date.now() - started) / 60_000) * PER_MINUTE) + 1;
    const total = accepted(before) + accepted(afterScaling);
    assert.ok(total >= BURST && total <= BURST + earned, `accepted ${total} in all: ${before.join(' ')} | ${afterScaling.join(' ')}`);
    await until(() => servedBy(group.replicas.slice(2), '127.0.0.5') > 0);
    assert.ok(servedBy(group.replicas.slice(2), '127.0.0.5') > 0, 'the new replicas served the caller too');
    stop(group);
  });

  test('one caller\'s share of scripts holds across replicas; another caller\'s script runs beside it', async () => {
    const gate = await startGate(api.url);
    const settings = (more: Record<string, string>): Record<string, string> => ({
      SCRIPTS_BASE_URL: gate.url, SCRIPTS_API_KEY: LIBRARY_KEY, SCRIPTS_TRUSTED_PROXIES: PROXY, SCRIPTS_RATE_LIMIT_PER_MINUTE: '0',
      SCRIPTS_SCRIPT_MAX_RUNNING_PER_CALLER: '1', SCRIPTS_SCRIPT_QUEUE_WAIT_SECONDS: '1', ...more,
    });
    const script = { code: 'return (await api.get_book({ bookId: 7 })).title;' };
    try {
      const shared = await deploy('scripts', 'Scripts', 'scripts', 3, settings({ SCRIPTS_REDIS: redis.address }));
      const dave = [1, 2, 3].map(() => call(shared.proxy.url, '127.0.0.6', 'run_script', script));
      await until(() => gate.held() >= 1);
      const refused = await Promise.race([Promise.all(dave.map((p) => p.then((a) => a))).then(() => 'all done'), new Promise((r) => setTimeout(r, 4000)).then(() => 'waiting')]);
      assert.equal(refused, 'waiting', 'one of the caller\'s scripts is held at the API');
      assert.equal(gate.held(), 1, 'only one of the caller\'s three scripts runs');
      // Another caller's script runs while the first caller's share is taken.
      const erin = call(shared.proxy.url, '127.0.0.7', 'run_script', script);
      await until(() => gate.held() === 2);
      assert.equal(gate.held(), 2);
      gate.open();
      const answers = await Promise.all(dave);
      assert.equal(answers.filter((a) => !a.isError && a.text.includes('Book 7')).length, 1, JSON.stringify(answers));
      for (const busy of answers.filter((a) => a.isError)) assert.match(busy.text, /busy: this caller's scripts running on the replicas of this server take its share/);
      assert.match((await erin).text, /Book 7/);
      stop(shared);
      // Without REDIS each replica gives the caller a share of its own: all three scripts run.
      const apart = await deploy('scripts-apart', 'Scripts', 'scripts', 3, settings({}));
      const frank = [1, 2, 3].map(() => call(apart.proxy.url, '127.0.0.8', 'run_script', script));
      await until(() => gate.held() === 3);
      assert.equal(gate.held(), 3);
      gate.open();
      assert.equal((await Promise.all(frank)).filter((a) => a.text.includes('Book 7')).length, 3);
      stop(apart);
    } finally {
      gate.open();
      gate.close();
    }
  });

  test('a token another replica fetched is taken, not fetched again; Redis holds it sealed', async () => {
    const auth: AuthApi = await startAuthApi();
    try {
      const env = (more: Record<string, string>): Record<string, string> => ({ AUTH_BASE_URL: auth.url, AUTH_OAUTH_CLIENT_ID: SECRETS.clientId, AUTH_OAUTH_CLIENT_SECRET: SECRETS.clientSecret, ...more });
      const shared = await deploy('tokens', 'Auth', 'auth', 3, env({ AUTH_REDIS: redis.address }));
      for (let i = 0; i < 6; i++) assert.match((await call(shared.proxy.url, '127.0.0.2', 'get_oauth', {})).text, /"via":"oauth/);
      assert.equal(auth.tokensIssued, 1, 'one replica fetched the token; the others took it from Redis');
      assert.equal(auth.requests.filter((r) => r.url === '/oauth').every((r) => r.headers.authorization === 'Bearer tok-1'), true);
      const keys = redis.cli('KEYS', 'auth:token:*').split('\n').filter(Boolean);
      assert.equal(keys.length, 1, redis.cli('KEYS', '*'));
      const stored = redis.cli('GET', keys[0] ?? '');
      assert.ok(!stored.includes('tok-1') && !stored.includes(SECRETS.clientSecret) && !keys[0]?.includes(SECRETS.clientId), 'neither the token nor the client is readable in Redis');
      stop(shared);
      const apart = await deploy('tokens-apart', 'Auth', 'auth', 3, env({}));
      for (let i = 0; i < 6; i++) await call(apart.proxy.url, '127.0.0.2', 'get_oauth', {});
      assert.equal(auth.tokensIssued, 4, 'without REDIS each replica fetches its own');
      stop(apart);
    } finally {
      await auth.close();
    }
  });

  test('a long-running operation\'s token made on one replica is taken by another, with no key set by hand', async () => {
    const az: FakeAz = writeFakeAz(scratchDir('replicas-az'));
    const azure: AzureApi = await startAzureApi({ tokenSecret: az.secret, retryAfterSeconds: 0, pollsBeforeDone: 2 });
    try {
      const env = (more: Record<string, string>): Record<string, string> => ({
        WIDGETS_BASE_URL: azure.url, WIDGETS_SUBSCRIPTION_ID: SUBSCRIPTIONS[0] as string, WIDGETS_AZURE_SCOPE: ARM_SCOPE, WIDGETS_LRO_WAIT_SECONDS: '3',
        PATH: az.pathWith(), AZURE_TOKEN_CREDENTIALS: 'AzureCliCredential', WIDGETS_RATE_LIMIT_PER_MINUTE: '0', ...more,
      });
      const body = { location: 'westeurope', properties: { color: 'green', size: 1 } };
      const handOver = async (group: { replicas: Replica[] }, widgetName: string): Promise<Answer> => {
        azure.control.neverFinish.add(widgetName);
        const first = await call(group.replicas[0]!.url, '127.0.0.2', 'update_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName, body });
        const started = JSON.parse(first.text) as { running: boolean; operation: string };
        assert.equal(started.running, true, first.text);
        azure.control.neverFinish.delete(widgetName);
        for (const operation of azure.operations.values()) if (operation.widgetName === widgetName) Object.assign(operation, { neverFinish: false, pollsBeforeDone: 0 });
        return call(group.replicas[1]!.url, '127.0.0.2', 'update_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName, body, operation: started.operation });
      };
      const shared = await deploy('operations', 'Widgets', 'widgets', 2, env({ WIDGETS_REDIS: redis.address }));
      const mark = azure.requests.length;
      const done = await handOver(shared, 'kilo');
      assert.equal(done.isError, false, done.text);
      assert.equal((JSON.parse(done.text) as { properties: { provisioningState: string } }).properties.provisioningState, 'Succeeded');
      assert.equal(azure.requests.slice(mark).filter((r) => r.method === 'PUT').length, 1, 'the second replica watched it; nothing was sent again');
      assert.equal(azure.widget(SUBSCRIPTIONS[0] as string, 'widgets-rg', 'kilo')?.properties.provisioningState, 'Succeeded');
      assert.match(redis.cli('KEYS', 'widgets:*'), /widgets:operation-key/);
      stop(shared);
      const apart = await deploy('operations-apart', 'Widgets', 'widgets', 2, env({}));
      const refused = await handOver(apart, 'lima');
      assert.match(refused.text, /the operation token is not one this server gave/);
      stop(apart);
    } finally {
      await azure.close();
    }
  });

  test('Redis stopped in the middle of a run and started again: every call answered once, none lost, none sent twice; the limits are shared again after', async () => {
    const group = await deploy('outage', 'Shared', 'library', 3, library({ SHARED_REDIS: redis.address, SHARED_RATE_LIMIT_PER_MINUTE: '100000', SHARED_RATE_LIMIT_BURST: '100000' }));
    const client = await connectFrom(group.proxy.url, '127.0.0.10');
    const mark = api.requests.length;
    let stopped = false;
    let restarted: Promise<void> | undefined;
    const outcomes = await runCalls(client, 'get_book', 300, 10, (i) => ({ bookId: (i % 45) + 1 }), (done) => {
      if (done >= 100 && !stopped) {
        stopped = true;
        void redis.stop();
      }
      if (done >= 200 && !restarted) restarted = redis.start();
    });
    await restarted;
    await client.close();
    const failed = outcomes.filter((o) => !o.ok || (JSON.parse(o.text) as { id: number }).id !== (o.index % 45) + 1);
    assert.deepEqual(failed, [], 'every call answered with its own book');
    const sent = api.requests.slice(mark).filter((r) => r.startsWith('GET /books/'));
    assert.equal(sent.length, 300, 'each call reached the API once');
    await until(() => group.replicas.some((r) => /Redis \(SHARED_REDIS\) cannot be reached/.test(r.log())));
    assert.ok(group.replicas.some((r) => /Redis \(SHARED_REDIS\) cannot be reached/.test(r.log())), 'the outage is in the log');
    // Back: once each replica has reconnected (StackExchange.Redis retries by itself), the next calls count in Redis again.
    await until(() => group.replicas.every((r) => /Redis \(SHARED_REDIS\) answers again/.test(r.log())), 30_000);
    assert.ok(group.replicas.every((r) => /Redis \(SHARED_REDIS\) answers again/.test(r.log())), group.replicas.map((r) => r.log()).join('\n'));
    for (let i = 0; i < 6; i++) assert.equal((await call(group.proxy.url, '127.0.0.11', 'get_book', { bookId: 1 })).status, 200);
    assert.match(redis.cli('KEYS', '*'), /shared:rate:ip:127\.0\.0\.11/);
    stop(group);
  });

  test('a REDIS that is not a connection string stops the start naming the setting; one that cannot be reached starts in the fallback and answers', async () => {
    const wrong = await startReplica('bad-redis', dll('library', 'Shared'), library({ SHARED_REDIS: '127.0.0.1:6379,notAnOption=1' })).then(() => '', (error: Error) => error.message);
    assert.match(wrong, /exited with 1: .*error: SHARED_REDIS is not a Redis connection string/s);
    const empty = await startReplica('empty-redis', dll('library', 'Shared'), library({ SHARED_REDIS: ',,' })).then(() => '', (error: Error) => error.message);
    assert.match(empty, /error: SHARED_REDIS names no Redis server/);
    const closed = await startRedis(join(work, 'closed'));
    await closed.stop();
    const receiver = await startOtlpReceiver();
    try {
      const away = await startReplica('away-redis', dll('library', 'Shared'), library({
        SHARED_REDIS: closed.address, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_METRIC_EXPORT_INTERVAL: '300',
      }));
      replicas.push(away);
      const statuses = await burst(away.url, '127.0.0.12', BURST + 2);
      assert.deepEqual(statuses, [...Array(BURST).fill(200), 429, 429], 'the replica\'s own buckets limit the caller');
      assert.match(away.log(), /Shared state: Redis \(SHARED_REDIS\) cannot be reached/);
      assert.equal(away.log().match(/cannot be reached/g)?.length, 1, 'said once an outage, not once a call');
      // Each use of the replica's own bucket is counted, by what it was used for.
      const fallbacks = (): number => Math.max(0, ...receiver.points.filter((p) => p.metric === 'mcp.shared_state.fallbacks' && p.attributes.use === 'rate_limit').map((p) => p.value));
      await receiver.waitFor(() => fallbacks() >= BURST + 2);
      assert.ok(fallbacks() >= BURST + 2, `mcp.shared_state.fallbacks: ${fallbacks()}`);
      away.process.kill('SIGKILL');
    } finally {
      await receiver.close();
    }
  });
});
