/**
 * Real APIs: the generated MCP server driven against real open-source servers, each with the OpenAPI
 * document it publishes: Prometheus Alertmanager 0.25 (API v2) and etcd 3.4 (gRPC JSON gateway, auth on),
 * installed from Debian and run on 127.0.0.1. Both projects are generated with `init` and built in one
 * `dotnet build`; the tools are called as an assistant calls them (MCP tools/call), and every effect is
 * checked on the server itself, through its own API, besides the tool's answer.
 *
 * Each check arranges what it needs through the server's API, so that one failure does not fail the
 * next. Some checks fail while the generated server has known faults; they are not weakened or skipped.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { environmentVariables } from '../src/names/environment.js';
import { connect, serverLog } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import {
  ALERTMANAGER_SPEC, call, ETCD_ANONYMOUS_OVERLAY, ETCD_SPEC, fetchJson, success, type Answer, requireProgram, startAlertmanager, startEtcd, type EtcdServer, type RealServer,
} from './support/real-apis.js';

const b64 = (value: string | Uint8Array): string => Buffer.from(value).toString('base64');
const unb64 = (value: string | undefined): string => Buffer.from(value ?? '', 'base64').toString('utf8');
const time = (value: string): number => new Date(value).getTime();
const isoIn = (ms: number): string => new Date(Date.now() + ms).toISOString();
const HOUR = 3_600_000;
/** Labels and keys of this run: a server is fresh for each run, this keeps them readable when one is not. */
const RUN = `r${process.pid}`;

const ALERTMANAGER_TOOLS = ['create_alert', 'create_silence', 'delete_silence', 'get_silence', 'get_status', 'list_alert_groups', 'list_alerts', 'list_receivers', 'list_silences'];
/** The etcd tools these checks call (of 41, one per operation). */
const ETCD_TOOLS = [
  'authenticate_auth', 'create_cluster_member_list', 'create_kv_deleterange', 'create_kv_put', 'create_kv_range', 'create_kv_txn',
  'create_lease_grant', 'create_lease_keepalive', 'create_lease_lease', 'create_lease_timetolive', 'create_maintenance_alarm',
  'create_maintenance_hash', 'create_maintenance_snapshot', 'create_maintenance_status', 'revoke_lease',
];

describe('generated MCP servers against real APIs (Debian packages on 127.0.0.1)', { timeout: 20 * 60_000 }, () => {
  let work = '';
  let alertmanager: RealServer | undefined;
  let etcd: EtcdServer | undefined;
  let etcdOpen: EtcdServer | undefined;
  let am: Client | undefined;
  let kv: Client | undefined;
  let kvOpen: Client | undefined;
  let kvOverlaid: Client | undefined;
  let amTools = new Set<string>();
  let kvTools = new Set<string>();
  let etcdKeyVariable = '';

  before(async () => {
    // Install first (apt-get, when root): a missing package is a clear failure here rather than a failed start.
    requireProgram('prometheus-alertmanager', 'prometheus-alertmanager');
    requireProgram('etcd', 'etcd-server');
    work = scratchDir('real-apis');
    const quiet = { out: () => {}, err: (text: string) => void process.stderr.write(text) };
    const init = (spec: string, name: string, folder: string, ...more: string[]): Promise<number> =>
      runCli(['init', '--openapi-url', spec, '--server-name', name, '--output-dir', join(work, folder), ...more], quiet);
    assert.equal(await init(ALERTMANAGER_SPEC, 'Alertmanager', 'alertmanager'), 0);
    assert.equal(await init(ETCD_SPEC, 'Etcd', 'etcd'), 0);
    // The document as published, fixed where it is wrong about etcd with auth off, by an overlay.
    assert.equal(await init(ETCD_SPEC, 'Etcd', 'etcd-overlaid', '--overlay', ETCD_ANONYMOUS_OVERLAY), 0);
    // The credential variable the etcd project asks for, as its mcp.json entry names it (a placeholder there).
    const entry = JSON.parse(await readFile(join(work, 'etcd/mcp.json'), 'utf8')) as { mcpServers: Record<string, { env?: Record<string, string> }> };
    etcdKeyVariable = Object.keys(Object.values(entry.mcpServers)[0]?.env ?? {}).find((name) => name !== environmentVariables('Etcd').baseUrl) ?? '';
    assert.match(etcdKeyVariable, /^ETCD_/);
    // One build for both projects, while the servers start.
    await writeFile(join(work, 'all.slnx'), '<Solution>\n  <Project Path="alertmanager/Alertmanager.csproj" />\n  <Project Path="etcd/Etcd.csproj" />\n  <Folder Name="/overlaid/">\n    <Project Path="etcd-overlaid/Etcd.csproj" />\n  </Folder>\n</Solution>\n');
    const build = promisify(execFile)('dotnet', ['build', join(work, 'all.slnx'), '-warnaserror', '-nologo', '-clp:NoSummary'], { maxBuffer: 64 * 1024 * 1024 })
      .then(({ stdout }) => stdout, (error: { stdout?: string; stderr?: string }) => `build failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    const servers = Promise.allSettled([startAlertmanager(), startEtcd({ auth: true }), startEtcd({ auth: false })]);
    const [output, started] = await Promise.all([build, servers]);
    [alertmanager, etcd, etcdOpen] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined)) as [RealServer, EtcdServer, EtcdServer];
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    const dll = (folder: string, name: string): { command: string; args: string[] } =>
      ({ command: 'dotnet', args: [join(work, folder, 'bin/Debug', detectFramework(), `${name}.dll`)] });
    am = await connect(dll('alertmanager', 'Alertmanager'), { [environmentVariables('Alertmanager').baseUrl]: `${alertmanager!.origin}/api/v2` });
    // A snapshot is the whole database: answers up to 1 MB rather than the default 100,000 characters.
    kv = await connect(dll('etcd', 'Etcd'), { [environmentVariables('Etcd').baseUrl]: etcd!.origin, [etcdKeyVariable]: etcd!.token, [environmentVariables('Etcd').maxResultLength]: '1000000' });
    kvOpen = await connect(dll('etcd', 'Etcd'), { [environmentVariables('Etcd').baseUrl]: etcdOpen!.origin });
    kvOverlaid = await connect(dll('etcd-overlaid', 'Etcd'), { [environmentVariables('Etcd').baseUrl]: etcdOpen!.origin });
    amTools = new Set((await am.listTools()).tools.map((t) => t.name));
    kvTools = new Set((await kv.listTools()).tools.map((t) => t.name));
  });

  after(async () => {
    await Promise.allSettled([am?.close(), kv?.close(), kvOpen?.close(), kvOverlaid?.close()]);
    await Promise.allSettled([alertmanager?.stop(), etcd?.stop(), etcdOpen?.stop()]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  describe('Prometheus Alertmanager 0.25 (API v2)', () => {
    const api = (path: string, init?: Parameters<typeof fetchJson>[1]): Promise<any> => fetchJson(`${alertmanager!.origin}/api/v2${path}`, init);
    const tool = (name: string, args: Record<string, unknown> = {}): Promise<Answer> => call(am!, amTools, name, args);
    const postAlerts = (alerts: unknown[]): Promise<any> => api('/alerts', { body: alerts });
    const postSilence = async (alertname: string, more: Record<string, unknown> = {}): Promise<string> =>
      ((await api('/silences', { body: { matchers: [{ name: 'alertname', value: alertname, isRegex: false }], startsAt: isoIn(0), endsAt: isoIn(HOUR), createdBy: 'real-apis test', comment: `arranged for ${alertname}`, ...more } })) as { silenceID: string }).silenceID;
    const filter = (...matchers: string[]): string => matchers.map((m) => `filter=${encodeURIComponent(m)}`).join('&');

    test('tools/list: one tool per operation of the document', () => {
      assert.deepEqual([...amTools].sort(), ALERTMANAGER_TOOLS);
    });

    test('get_status: version, cluster and configuration as the server reports them', async () => {
      const answer = success(await tool('get_status'));
      const server = await api('/status');
      assert.deepEqual(answer.versionInfo, server.versionInfo);
      assert.equal(answer.versionInfo.version, '0.25.0');
      assert.deepEqual(answer.cluster, server.cluster);
      assert.equal(answer.config.original, server.config.original);
      assert.equal(time(answer.uptime), time(server.uptime));
    });

    test('get_status: the answer shows strings as the server wrote them (no \\u002B for +)', async () => {
      const text = (await tool('get_status')).text;
      const server = await api('/status');
      assert.ok(server.versionInfo.revision.includes('+'), server.versionInfo.revision);
      assert.ok(text.includes(`"revision":"${server.versionInfo.revision}"`), text.slice(0, 400));
    });

    test('list_receivers: the receivers of the configuration', async () => {
      const answer = success(await tool('list_receivers')) as { name: string }[];
      assert.deepEqual(answer, await api('/receivers'));
      assert.deepEqual(answer.map((r) => r.name), ['default']);
    });

    test('create_alert: the alerts are on the server with their labels, annotations, start and generator URL', async () => {
      const startsAt = isoIn(-60_000);
      const alerts = ['db1', 'db2'].map((instance) => ({
        labels: { alertname: `${RUN}DiskFull`, instance, severity: 'warning' },
        annotations: { summary: `disk full on ${instance}` },
        startsAt,
        generatorURL: 'http://prometheus.example:9090/graph?g0.expr=disk_free%3D%3D0',
      }));
      success(await tool('create_alert', { body: alerts }));
      const server = (await api(`/alerts?${filter(`alertname="${RUN}DiskFull"`)}`)) as { labels: Record<string, string>; annotations: Record<string, string>; startsAt: string; generatorURL: string; status: { state: string } }[];
      assert.deepEqual(server.map((a) => a.labels.instance).sort(), ['db1', 'db2']);
      for (const alert of server) {
        assert.equal(alert.labels.severity, 'warning');
        assert.equal(alert.annotations.summary, `disk full on ${alert.labels.instance}`);
        assert.equal(time(alert.startsAt), time(startsAt));
        assert.equal(alert.generatorURL, alerts[0]!.generatorURL);
        assert.equal(alert.status.state, 'active');
      }
    });

    test('list_alerts with filters: only the matching alert, as the server lists it', async () => {
      await postAlerts(['a', 'b'].map((instance) => ({ labels: { alertname: `${RUN}Filter`, instance } })));
      const answer = success(await tool('list_alerts', { filter: [`alertname="${RUN}Filter"`, 'instance="a"'] })) as { fingerprint: string; labels: Record<string, string> }[];
      assert.deepEqual(answer.map((a) => a.labels), [{ alertname: `${RUN}Filter`, instance: 'a' }]);
      const server = (await api(`/alerts?${filter(`alertname="${RUN}Filter"`, 'instance="a"')}`)) as { fingerprint: string }[];
      assert.deepEqual(answer.map((a) => a.fingerprint), server.map((a) => a.fingerprint));
    });

    test('list_alerts silenced=false leaves out the alerts a silence mutes; silenced=true shows them suppressed', async () => {
      await postAlerts([{ labels: { alertname: `${RUN}Muted` } }]);
      const silenceId = await postSilence(`${RUN}Muted`);
      const byName = `alertname="${RUN}Muted"`;
      assert.deepEqual(success(await tool('list_alerts', { filter: [byName], silenced: false })), []);
      assert.deepEqual(await api(`/alerts?${filter(byName)}&silenced=false`), []);
      const shown = success(await tool('list_alerts', { filter: [byName], silenced: true })) as { status: { state: string; silencedBy: string[] } }[];
      assert.equal(shown.length, 1);
      assert.equal(shown[0]!.status.state, 'suppressed');
      assert.deepEqual(shown[0]!.status.silencedBy, [silenceId]);
    });

    test('list_alert_groups: the group of the posted alert, with its receiver', async () => {
      await postAlerts([{ labels: { alertname: `${RUN}Grouped`, team: 'storage' } }]);
      const answer = success(await tool('list_alert_groups', { filter: [`alertname="${RUN}Grouped"`] })) as { receiver: { name: string }; alerts: { fingerprint: string }[] }[];
      const server = (await api(`/alerts/groups?${filter(`alertname="${RUN}Grouped"`)}`)) as { receiver: { name: string }; alerts: { fingerprint: string }[] }[];
      assert.equal(answer.length, 1);
      assert.equal(answer[0]!.receiver.name, 'default');
      assert.deepEqual(answer.map((g) => g.alerts.map((a) => a.fingerprint)), server.map((g) => g.alerts.map((a) => a.fingerprint)));
    });

    test('create_silence: the silence is active on the server with its matchers (one negative regex), author, comment and end', async () => {
      const endsAt = isoIn(2 * HOUR);
      const matchers = [
        { name: 'alertname', value: `${RUN}Maintenance`, isRegex: false, isEqual: true },
        { name: 'instance', value: 'db[0-9]+', isRegex: true, isEqual: false },
      ];
      const answer = success(await tool('create_silence', { body: { matchers, startsAt: isoIn(0), endsAt, createdBy: 'ops@example.com', comment: 'database maintenance' } }));
      assert.match(answer.silenceID, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const server = await api(`/silence/${answer.silenceID}`);
      assert.equal(server.status.state, 'active');
      assert.deepEqual(server.matchers, matchers);
      assert.equal(server.createdBy, 'ops@example.com');
      assert.equal(server.comment, 'database maintenance');
      assert.equal(time(server.endsAt), time(endsAt));
    });

    test('create_silence with the id of a pending silence: updated in place on the server', async () => {
      const startsAt = isoIn(HOUR);
      const id = await postSilence(`${RUN}Pending`, { startsAt, endsAt: isoIn(2 * HOUR) });
      const before = await api(`/silence/${id}`);
      const endsAt = isoIn(3 * HOUR);
      const answer = success(await tool('create_silence', { body: { id, matchers: before.matchers, startsAt: before.startsAt, endsAt, createdBy: before.createdBy, comment: 'extended by an hour' } }));
      assert.equal(answer.silenceID, id);
      const server = await api(`/silence/${id}`);
      assert.equal(server.status.state, 'pending');
      assert.equal(server.comment, 'extended by an hour');
      assert.equal(time(server.endsAt), time(endsAt));
    });

    test('get_silence: the silence as the server has it', async () => {
      const id = await postSilence(`${RUN}Get`);
      const answer = success(await tool('get_silence', { silenceId: id }));
      const server = await api(`/silence/${id}`);
      assert.equal(answer.id, id);
      assert.deepEqual(answer.matchers, server.matchers);
      assert.deepEqual(answer.status, server.status);
      assert.deepEqual([answer.createdBy, answer.comment], [server.createdBy, server.comment]);
      assert.deepEqual([time(answer.startsAt), time(answer.endsAt), time(answer.updatedAt)], [time(server.startsAt), time(server.endsAt), time(server.updatedAt)]);
    });

    test('list_silences with a filter: the matching silence and not the others', async () => {
      const wanted = await postSilence(`${RUN}ListA`);
      const other = await postSilence(`${RUN}ListB`);
      const answer = success(await tool('list_silences', { filter: [`alertname="${RUN}ListA"`] })) as { id: string }[];
      assert.ok(answer.some((s) => s.id === wanted), JSON.stringify(answer));
      assert.ok(!answer.some((s) => s.id === other), JSON.stringify(answer));
      const server = (await api(`/silences?${filter(`alertname="${RUN}ListA"`)}`)) as { id: string }[];
      assert.deepEqual(answer.map((s) => s.id).sort(), server.map((s) => s.id).sort());
    });

    test('delete_silence: the silence is expired on the server', async () => {
      const id = await postSilence(`${RUN}Delete`);
      success(await tool('delete_silence', { silenceId: id }));
      const server = await api(`/silence/${id}`);
      assert.equal(server.status.state, 'expired');
      assert.ok(time(server.endsAt) <= Date.now(), server.endsAt);
    });

    test('get_silence of an unknown id: a not-found error', async () => {
      const answer = await tool('get_silence', { silenceId: '00000000-0000-4000-8000-000000000000' });
      assert.equal(answer.isError, true, answer.text);
      assert.match(answer.text, /^Error: .*not found.*\(HTTP 404\)$/i);
    });

    test("create_silence ending before it starts: refused with the server's reason, nothing created", async () => {
      const comment = `${RUN} backwards`;
      const answer = await tool('create_silence', { body: { matchers: [{ name: 'alertname', value: `${RUN}Backwards`, isRegex: false }], startsAt: isoIn(HOUR), endsAt: isoIn(0), createdBy: 'real-apis test', comment } });
      assert.equal(answer.isError, true, answer.text);
      assert.match(answer.text, /start time must be before end time/);
      assert.ok(!((await api('/silences')) as { comment: string }[]).some((s) => s.comment === comment));
    });

    test("delete_silence of an unknown id: the error gives the server's reason", async () => {
      const answer = await tool('delete_silence', { silenceId: '00000000-0000-4000-8000-000000000000' });
      assert.equal(answer.isError, true, answer.text);
      assert.match(answer.text, /silence not found/);
    });

    test('list_alerts with an argument it does not have (filters for filter): refused, naming it, not answered unfiltered', async () => {
      await postAlerts([{ labels: { alertname: `${RUN}Typo` } }]);
      const answer = await tool('list_alerts', { filters: [`alertname="${RUN}Typo"`] });
      assert.equal(answer.isError, true, `answered ${answer.text.slice(0, 200)}`);
      assert.match(answer.text, /filters/);
    });
  });

  describe('etcd 3.4 (gRPC JSON gateway, auth on)', () => {
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
});
