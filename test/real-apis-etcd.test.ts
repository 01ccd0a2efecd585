/**
 * A real API: the generated MCP server driven against etcd 3.4 (gRPC JSON gateway, auth on), installed from Debian
 * and run on 127.0.0.1, with the OpenAPI document it publishes. The projects (the document as published, and with
 * etcd-anonymous.overlay.yaml) are generated with `init` and built in one `dotnet build`; the tools are called as an
 * assistant calls them (MCP tools/call), and every effect is checked on the server itself, through its own API,
 * besides the tool's answer.
 *
 * Each check arranges what it needs through the server's API, so that one failure does not fail the next.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { environmentVariables } from '../src/names/environment.js';
import { connect, serverLog } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import { call, ETCD_ANONYMOUS_OVERLAY, ETCD_SPEC, fetchJson, requireProgram, startEtcd, success, type Answer, type EtcdServer } from './support/real-apis.js';
import { buildProjects, credentialVariable, initProject, projectDll } from './support/real-api-projects.js';

const b64 = (value: string | Uint8Array): string => Buffer.from(value).toString('base64');
const unb64 = (value: string | undefined): string => Buffer.from(value ?? '', 'base64').toString('utf8');
/** Keys of this run: a server is fresh for each run, this keeps them readable when one is not. */
const RUN = `r${process.pid}`;

/** The etcd tools these checks call (of 41, one per operation). */
const ETCD_TOOLS = [
  'authenticate_auth', 'create_cluster_member_list', 'create_kv_deleterange', 'create_kv_put', 'create_kv_range', 'create_kv_txn',
  'create_lease_grant', 'create_lease_keepalive', 'create_lease_lease', 'create_lease_timetolive', 'create_maintenance_alarm',
  'create_maintenance_hash', 'create_maintenance_snapshot', 'create_maintenance_status', 'revoke_lease',
];

describe('generated MCP server against etcd 3.4 (gRPC JSON gateway, auth on; Debian package on 127.0.0.1)', { timeout: 10 * 60_000 }, () => {
  let work = '';
  let etcd: EtcdServer | undefined;
  let etcdOpen: EtcdServer | undefined;
  let kv: Client | undefined;
  let kvOpen: Client | undefined;
  let kvOverlaid: Client | undefined;
  let kvTools = new Set<string>();
  let etcdKeyVariable = '';

  before(async () => {
    // Install first (apt-get, when root): a missing package is a clear failure here rather than a failed start.
    requireProgram('etcd', 'etcd-server');
    work = scratchDir('real-apis-etcd');
    // The document as published, and fixed by an overlay where it is wrong about etcd with auth off.
    for (const init of [await initProject(work, ETCD_SPEC, 'Etcd', 'etcd'), await initProject(work, ETCD_SPEC, 'Etcd', 'etcd-overlaid', '--overlay', ETCD_ANONYMOUS_OVERLAY)]) {
      assert.equal(init.code, 0, init.errors);
    }
    etcdKeyVariable = await credentialVariable(work, 'etcd', 'Etcd');
    assert.match(etcdKeyVariable, /^ETCD_/);
    // One build for both projects, while the servers start.
    const build = buildProjects(work, ['etcd/Etcd.csproj', 'etcd-overlaid/Etcd.csproj']);
    const servers = Promise.allSettled([startEtcd({ auth: true }), startEtcd({ auth: false })]);
    const [output, started] = await Promise.all([build, servers]);
    [etcd, etcdOpen] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined)) as [EtcdServer, EtcdServer];
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    // A snapshot is the whole database: answers up to 1 MB rather than the default 100,000 characters.
    kv = await connect(projectDll(work, 'etcd', 'Etcd'), { [environmentVariables('Etcd').baseUrl]: etcd!.origin, [etcdKeyVariable]: etcd!.token, [environmentVariables('Etcd').maxResultLength]: '1000000' });
    kvOpen = await connect(projectDll(work, 'etcd', 'Etcd'), { [environmentVariables('Etcd').baseUrl]: etcdOpen!.origin });
    kvOverlaid = await connect(projectDll(work, 'etcd-overlaid', 'Etcd'), { [environmentVariables('Etcd').baseUrl]: etcdOpen!.origin });
    kvTools = new Set((await kv.listTools()).tools.map((t) => t.name));
  });

  after(async () => {
    await Promise.allSettled([kv?.close(), kvOpen?.close(), kvOverlaid?.close()]);
    await Promise.allSettled([etcd?.stop(), etcdOpen?.stop()]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  const server = (path: string, body: unknown = {}): Promise<any> => etcd!.call(path, body);
  const tool = (name: string, args: Record<string, unknown> = {}): Promise<Answer> => call(kv!, kvTools, name, args);
  const put = (key: string, value: string, more: Record<string, unknown> = {}): Promise<any> => server('/v3/kv/put', { key: b64(key), value: b64(value), ...more });
  const range = async (key: string): Promise<any> => (await server('/v3/kv/range', { key: b64(key) })).kvs?.[0];
  const grant = async (ttl = 60): Promise<string> => (await server('/v3/lease/grant', { TTL: String(ttl) })).ID;
  const prefixEnd = (prefix: string): string => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const keyCount = async (): Promise<string> => (await server('/v3/kv/range', { key: b64('\0'), range_end: b64('\0'), count_only: true })).count ?? '0';

  test('tools/list: one tool per operation of the document (41), among them the ones these checks call', () => {
    assert.equal(kvTools.size, 41, [...kvTools].join(', '));
    assert.deepEqual(ETCD_TOOLS.filter((name) => !kvTools.has(name)), []);
  });

  test('create_kv_put: the key has the value on the server, at the revision the answer gives', async () => {
    const answer = success(await tool('create_kv_put', { body: { key: b64(`${RUN}/put`), value: b64('hello, etcd') } }));
    const stored = await range(`${RUN}/put`);
    assert.equal(unb64(stored?.value), 'hello, etcd');
    assert.equal(answer.header.revision, stored.mod_revision);
  });

  test('create_kv_range: the key and value as the server has them', async () => {
    await put(`${RUN}/range`, 'value to read');
    const answer = success(await tool('create_kv_range', { body: { key: b64(`${RUN}/range`) } }));
    assert.equal(answer.count, '1');
    assert.deepEqual(answer.kvs, [await range(`${RUN}/range`)]);
    assert.equal(unb64(answer.kvs[0].value), 'value to read');
  });

  test('create_kv_range over a prefix, last key first, one at a time: count and more as the server says', async () => {
    for (const name of ['a', 'b', 'c']) await put(`${RUN}/list/${name}`, name);
    const request = { key: b64(`${RUN}/list/`), range_end: b64(prefixEnd(`${RUN}/list/`)), sort_order: 'DESCEND', sort_target: 'KEY', limit: '1' };
    const answer = success(await tool('create_kv_range', { body: request }));
    assert.deepEqual(answer.kvs.map((k: { key: string }) => unb64(k.key)), [`${RUN}/list/c`]);
    assert.deepEqual([answer.count, answer.more], ['3', true]);
    const direct = await server('/v3/kv/range', request);
    assert.deepEqual(answer.kvs, direct.kvs);
  });

  test('create_kv_put with prev_kv: the previous value in the answer, the new one on the server', async () => {
    await put(`${RUN}/prev`, 'old');
    const answer = success(await tool('create_kv_put', { body: { key: b64(`${RUN}/prev`), value: b64('new'), prev_kv: true } }));
    assert.equal(unb64(answer.prev_kv?.value), 'old');
    assert.equal(unb64((await range(`${RUN}/prev`))?.value), 'new');
  });

  test('create_kv_put of binary bytes (key and value): the server has exactly those bytes', async () => {
    const key = Buffer.from([...Buffer.from(`${RUN}/bin/`), 0x00, 0xff, 0x80]);
    const value = Buffer.from([0x00, 0x01, 0xfe, 0xff, 0x0a, 0x22]);
    success(await tool('create_kv_put', { body: { key: b64(key), value: b64(value) } }));
    const stored = (await server('/v3/kv/range', { key: b64(key) })).kvs?.[0];
    assert.deepEqual(Buffer.from(stored?.value ?? '', 'base64'), value);
  });

  test('create_lease_grant: the lease is on the server with its TTL', async () => {
    const answer = success(await tool('create_lease_grant', { body: { TTL: '60' } }));
    assert.match(answer.ID, /^[1-9]\d*$/);
    assert.equal(answer.TTL, '60');
    const lease = await server('/v3/lease/timetolive', { ID: answer.ID });
    assert.equal(lease.grantedTTL, '60');
    assert.ok(Number(lease.TTL) > 0, lease.TTL);
  });

  test('create_kv_put with a lease: the key is attached to the lease on the server', async () => {
    const lease = await grant();
    success(await tool('create_kv_put', { body: { key: b64(`${RUN}/leased`), value: b64('temporary'), lease } }));
    assert.equal((await range(`${RUN}/leased`))?.lease, lease);
    assert.deepEqual((await server('/v3/lease/timetolive', { ID: lease, keys: true })).keys, [b64(`${RUN}/leased`)]);
  });

  test('create_lease_timetolive: granted TTL and the attached keys, as the server has them', async () => {
    const lease = await grant();
    await put(`${RUN}/ttl`, 'x', { lease });
    const answer = success(await tool('create_lease_timetolive', { body: { ID: lease, keys: true } }));
    assert.equal(answer.ID, lease);
    assert.equal(answer.grantedTTL, '60');
    assert.deepEqual(answer.keys, [b64(`${RUN}/ttl`)]);
  });

  test('create_lease_lease: the leases the server has', async () => {
    const lease = await grant();
    const answer = success(await tool('create_lease_lease', { body: {} }));
    const ids = (answer.leases as { ID: string }[]).map((l) => l.ID).sort();
    assert.ok(ids.includes(lease), ids.join(' '));
    assert.deepEqual(ids, ((await server('/v3/lease/leases')).leases as { ID: string }[]).map((l) => l.ID).sort());
  });

  test('create_lease_keepalive: the lease is renewed to its full TTL', async () => {
    const lease = await grant(60);
    const answer = success(await tool('create_lease_keepalive', { body: { ID: lease } }));
    assert.deepEqual([answer.result?.ID, answer.result?.TTL], [lease, '60']);
    assert.ok(Number((await server('/v3/lease/timetolive', { ID: lease })).TTL) >= 58);
  });

  test('revoke_lease: the lease and its key are gone from the server', async () => {
    const lease = await grant();
    await put(`${RUN}/revoked`, 'x', { lease });
    success(await tool('revoke_lease', { body: { ID: lease } }));
    assert.equal((await server('/v3/lease/timetolive', { ID: lease })).TTL, '-1');
    assert.equal(await range(`${RUN}/revoked`), undefined);
  });

  test('create_kv_deleterange: the key is gone from the server, the answer has the deleted pair', async () => {
    await put(`${RUN}/delete`, 'doomed');
    const answer = success(await tool('create_kv_deleterange', { body: { key: b64(`${RUN}/delete`), prev_kv: true } }));
    assert.equal(answer.deleted, '1');
    assert.equal(unb64(answer.prev_kvs?.[0]?.value), 'doomed');
    assert.equal(await range(`${RUN}/delete`), undefined);
  });

  test('create_kv_deleterange over a prefix: every key under it is gone, the others stay', async () => {
    for (const name of ['x', 'y', 'z']) await put(`${RUN}/tmp/${name}`, name);
    await put(`${RUN}/tmp-kept`, 'kept');
    const answer = success(await tool('create_kv_deleterange', { body: { key: b64(`${RUN}/tmp/`), range_end: b64(prefixEnd(`${RUN}/tmp/`)) } }));
    assert.equal(answer.deleted, '3');
    assert.equal((await server('/v3/kv/range', { key: b64(`${RUN}/tmp/`), range_end: b64(prefixEnd(`${RUN}/tmp/`)), count_only: true })).count ?? '0', '0');
    assert.equal(unb64((await range(`${RUN}/tmp-kept`))?.value), 'kept');
  });

  const swap = (key: string, expected: string, next: string): Record<string, unknown> => ({
    body: {
      compare: [{ key: b64(key), target: 'VALUE', result: 'EQUAL', value: b64(expected) }],
      success: [{ request_put: { key: b64(key), value: b64(next) } }],
      failure: [{ request_range: { key: b64(key) } }],
    },
  });

  test('create_kv_txn compare-and-swap, value as expected: swapped on the server', async () => {
    await put(`${RUN}/cas`, 'v1');
    const answer = success(await tool('create_kv_txn', swap(`${RUN}/cas`, 'v1', 'v2')));
    assert.equal(answer.succeeded, true);
    assert.ok(answer.responses?.[0]?.response_put, JSON.stringify(answer));
    assert.equal(unb64((await range(`${RUN}/cas`))?.value), 'v2');
  });

  test('create_kv_txn compare-and-swap, value changed meanwhile: nothing written, the current value in the answer', async () => {
    await put(`${RUN}/cas-lost`, 'changed');
    const answer = success(await tool('create_kv_txn', swap(`${RUN}/cas-lost`, 'v1', 'v2')));
    assert.notEqual(answer.succeeded, true);
    assert.equal(unb64(answer.responses?.[0]?.response_range?.kvs?.[0]?.value), 'changed');
    assert.equal(unb64((await range(`${RUN}/cas-lost`))?.value), 'changed');
  });

  test('create_maintenance_status: the version, leader and database size the server reports', async () => {
    const answer = success(await tool('create_maintenance_status', { body: {} }));
    const version = await fetchJson(`${etcd!.origin}/version`);
    assert.equal(answer.version, version.etcdserver);
    assert.equal(answer.version, '3.4.23');
    const direct = await server('/v3/maintenance/status');
    assert.equal(answer.leader, direct.leader);
    assert.equal(answer.leader, answer.header.member_id);
    assert.match(answer.dbSize, /^[1-9]\d*$/);
  });

  test('create_cluster_member_list: the one member with its client URL', async () => {
    const answer = success(await tool('create_cluster_member_list', { body: {} }));
    assert.equal(answer.members.length, 1);
    assert.deepEqual(answer.members[0].clientURLs, [etcd!.origin]);
    assert.deepEqual(answer.members, (await server('/v3/cluster/member/list')).members);
  });

  test('create_maintenance_alarm GET: no alarms, as on the server', async () => {
    const answer = success(await tool('create_maintenance_alarm', { body: { action: 'GET' } }));
    assert.deepEqual(answer.alarms ?? [], (await server('/v3/maintenance/alarm', { action: 'GET' })).alarms ?? []);
    assert.deepEqual(answer.alarms ?? [], []);
  });

  test('create_maintenance_hash: the hash of the store the server computes', async () => {
    const answer = success(await tool('create_maintenance_hash', { body: {} }));
    const direct = await server('/v3/maintenance/hash');
    assert.equal(answer.header.revision, direct.header.revision);
    assert.equal(answer.hash, direct.hash);
  });

  test('create_maintenance_snapshot: the answer carries the whole snapshot stream (database and checksum)', async () => {
    const answer = await tool('create_maintenance_snapshot', { body: {} });
    // What the gateway sends: one {"result":{"blob":…,"remaining_bytes":…}} object per chunk, one after the other.
    const response = await fetch(`${etcd!.origin}/v3/maintenance/snapshot`, { method: 'POST', body: '{}', headers: { authorization: etcd!.token }, signal: AbortSignal.timeout(5_000) });
    const bytes = (text: string): number => text.split('\n').filter((line) => line.trim()).reduce((sum, line) => sum + Buffer.from(JSON.parse(line).result?.blob ?? '', 'base64').length, 0);
    const expected = bytes(await response.text());
    assert.ok(expected > 32, `the server sent ${expected} bytes`);
    assert.equal(answer.isError, false, `the tool answered with an error: ${answer.text}`);
    // The chunks as a JSON array, or as the gateway sends them (one object a line): either carries the snapshot.
    let chunks: { result?: { blob?: string } }[];
    try {
      const parsed = JSON.parse(answer.text) as unknown;
      chunks = (Array.isArray(parsed) ? parsed : [parsed]) as typeof chunks;
    } catch {
      chunks = answer.text.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as (typeof chunks)[number]);
    }
    assert.equal(chunks.reduce((sum, c) => sum + Buffer.from(c.result?.blob ?? '', 'base64').length, 0), expected);
  });

  test('authenticate_auth: a token the server accepts', async () => {
    const answer = success(await tool('authenticate_auth', { body: { name: 'root', password: etcd!.password } }));
    assert.match(answer.token, /\S/);
    const users = await fetchJson(`${etcd!.origin}/v3/auth/user/list`, { body: {}, headers: { authorization: answer.token } });
    assert.deepEqual(users.users, ['root']);
  });

  test("a server error comes back with etcd's message (put ignore_lease on a missing key), nothing written", async () => {
    const answer = await tool('create_kv_put', { body: { key: b64(`${RUN}/missing`), value: b64('x'), ignore_lease: true } });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /etcdserver: key not found/);
    assert.equal(await range(`${RUN}/missing`), undefined);
  });

  test('create_kv_put with a key that is not base64 (app/config): refused before sending, nothing written', async () => {
    const count = await keyCount();
    const answer = await tool('create_kv_put', { body: { key: 'app/config', value: b64('x') } });
    assert.equal(answer.isError, true, `answered ${answer.text}; the server now has ${await keyCount()} keys, had ${count}`);
    assert.match(answer.text, /body\.key/);
    assert.equal(await keyCount(), count);
  });

  test('create_kv_put with prevKv (the camelCase the gateway also reads): honoured or refused, not dropped', async () => {
    await put(`${RUN}/camel`, 'before');
    const answer = await tool('create_kv_put', { body: { key: b64(`${RUN}/camel`), value: b64('after'), prevKv: true } });
    if (answer.isError) assert.match(answer.text, /prevKv/);
    else assert.equal(unb64(JSON.parse(answer.text).prev_kv?.value), 'before', `prevKv was dropped: ${answer.text}`);
  });

  test('etcd with auth off (its default): the document requires a key etcd then refuses; an overlay fixes that', async () => {
    // The spec's own error: every operation requires ApiKey, so without one nothing is sent.
    const published = await call(kvOpen!, kvTools, 'create_maintenance_status', { body: {} });
    assert.equal(published.isError, true, published.text);
    assert.match(published.text, /was not sent: it needs credentials: set ETCD_API_KEY/);
    // With test/fixtures/real-apis/etcd-anonymous.overlay.yaml the key is optional, and the call reaches the server.
    const answer = await call(kvOverlaid!, kvTools, 'create_maintenance_status', { body: {} });
    assert.equal(success(answer).version, (await fetchJson(`${etcdOpen!.origin}/version`)).etcdserver, serverLog(kvOverlaid!));
    const put = success(await call(kvOverlaid!, kvTools, 'create_kv_put', { body: { key: b64(`${RUN}/open`), value: b64('anonymous') } }));
    assert.ok(Number(put.header?.revision) > 0);
    const stored = await fetchJson(`${etcdOpen!.origin}/v3/kv/range`, { body: { key: b64(`${RUN}/open`) } });
    assert.equal(unb64(stored.kvs?.[0]?.value), 'anonymous');
  });
});
