/**
 * Callers behind a proxy keep their own limits: a generated HTTP server behind nginx (Debian's nginx-light), which
 * connects to it from 127.0.0.9 and appends each client's address to X-Forwarded-For. With TRUSTED_PROXIES naming
 * 127.0.0.9, two clients (127.0.0.2 and 127.0.0.3) have a rate-limit bucket each; without it they share the proxy's.
 * A caller that reaches the server directly and forges X-Forwarded-For is the address it connects from, whatever
 * the header says. A setting that is not an address or network stops the start with one line.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runCli } from '../src/index.js';
import { dotnetBuild } from '../examples/harness.js';
import { fetchFrom } from './support/caller-fetch.js';
import { LIBRARY_KEY, LIBRARY_SPEC, startLibraryApi, type LibraryApi } from './support/library-api.js';
import { startNginx, startReplica, type Balancer, type Replica } from './support/replicas.js';
import { scratchDir } from './support/scratch.js';

const BURST = 4;
const TOOL_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_book', arguments: { bookId: 1 } } });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('callers behind a proxy (TRUSTED_PROXIES)', { timeout: 10 * 60_000 }, () => {
  let work = '';
  let dll = '';
  let api: LibraryApi;
  const replicas: Replica[] = [];
  const balancers: Balancer[] = [];

  before(async () => {
    work = scratchDir('proxies');
    assert.equal(await runCli(['init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Library', '--output-dir', join(work, 'library'), '--transport', 'http'], { out: () => {}, err: () => {} }), 0);
    const build = await dotnetBuild(join(work, 'library'));
    assert.ok(build.ok, build.output);
    dll = /-> (\S+Library\.dll)/.exec(build.output)?.[1] ?? '';
    api = await startLibraryApi();
  });

  after(async () => {
    for (const balancer of balancers) balancer.stop();
    for (const replica of replicas) replica.process.kill('SIGKILL');
    await api?.close();
  });

  /** A replica whose callers may make BURST calls at once and about one a minute after that, behind its own nginx. */
  const deploy = async (name: string, more: Record<string, string>): Promise<{ replica: Replica; proxy: Balancer }> => {
    const replica = await startReplica(name, dll, { LIBRARY_BASE_URL: api.url, LIBRARY_API_KEY: LIBRARY_KEY, LIBRARY_RATE_LIMIT_BURST: String(BURST), LIBRARY_RATE_LIMIT_PER_MINUTE: '1', ...more });
    replicas.push(replica);
    const proxy = await startNginx(join(work, `nginx-${name}`), [replica.url], undefined, { from: '127.0.0.9' });
    balancers.push(proxy);
    return { replica, proxy };
  };

  /** Waits (5 s at most) for the replica's log, which it writes beside its answers, to have a line. */
  const logged = async (replica: Replica, line: RegExp): Promise<void> => {
    for (let waited = 0; waited < 5000 && !line.test(replica.log()); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.match(replica.log(), line);
  };

  /** The HTTP status of one tools/call from `address` to `url`, with more headers. */
  const status = async (url: string, address: string, headers: Record<string, string> = {}): Promise<number> =>
    (await fetchFrom(address)(`${url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: TOOL_CALL })).status;

  test('with the proxy trusted, each client behind it has its own bucket; the audit log names each', async () => {
    const { replica, proxy } = await deploy('trusting', { LIBRARY_TRUSTED_PROXIES: '127.0.0.9' });
    const first: number[] = [];
    for (let i = 0; i < BURST + 2; i++) first.push(await status(proxy.url, '127.0.0.2'));
    assert.deepEqual(first, [...Array(BURST).fill(200), 429, 429]);
    // Another client behind the same proxy is not held back by the first one's calls.
    assert.equal(await status(proxy.url, '127.0.0.3'), 200);
    await logged(replica, /"caller":"ip:127\.0\.0\.2"/);
    await logged(replica, /"caller":"ip:127\.0\.0\.3"/);
    assert.doesNotMatch(replica.log(), /"caller":"ip:127\.0\.0\.9"/);
  });

  test('a caller that reaches the server directly cannot pick who it is with X-Forwarded-For', async () => {
    const { replica } = await deploy('forged', { LIBRARY_TRUSTED_PROXIES: '127.0.0.9' });
    const answers: number[] = [];
    // A new address in every request: were the header believed, each would be a fresh caller with a full bucket.
    for (let i = 0; i < BURST + 2; i++) answers.push(await status(replica.url, '127.0.0.4', { 'x-forwarded-for': `10.1.2.${i}` }));
    assert.deepEqual(answers, [...Array(BURST).fill(200), 429, 429]);
    await logged(replica, /"caller":"ip:127\.0\.0\.4"/);
    assert.doesNotMatch(replica.log(), /"caller":"ip:10\.1\.2\./);
  });

  test('without TRUSTED_PROXIES the header is never read: every client behind the proxy is the proxy', async () => {
    const { replica, proxy } = await deploy('untrusting', {});
    for (let i = 0; i < BURST; i++) assert.equal(await status(proxy.url, '127.0.0.2'), 200);
    assert.equal(await status(proxy.url, '127.0.0.3'), 429);
    await logged(replica, /"caller":"ip:127\.0\.0\.9"/);
  });

  test('a setting that is not an address or network stops the start with one line', () => {
    const started = spawnSync('dotnet', [dll, '--urls', 'http://127.0.0.1:0'], { env: { ...process.env, LIBRARY_BASE_URL: api.url, LIBRARY_TRUSTED_PROXIES: '127.0.0.9, 10.0.0.0/33' }, encoding: 'utf8', timeout: 60_000 });
    assert.deepEqual([started.status, started.stderr.trim()], [1, 'error: LIBRARY_TRUSTED_PROXIES: "10.0.0.0/33" is not an IP address or network (e.g. 10.0.0.5 or 10.0.0.0/8, separated by commas)']);
  });
});
