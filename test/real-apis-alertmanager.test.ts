/**
 * A real API: the generated MCP server driven against Prometheus Alertmanager 0.25 (API v2), installed from Debian
 * and run on 127.0.0.1, with the OpenAPI document it publishes. The project is generated with `init` and built;
 * the tools are called as an assistant calls them (MCP tools/call), and every effect is checked on the server
 * itself, through its own API, besides the tool's answer.
 *
 * Each check arranges what it needs through the server's API, so that one failure does not fail the next.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { environmentVariables } from '../src/names/environment.js';
import { connect } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import { ALERTMANAGER_SPEC, call, fetchJson, requireProgram, startAlertmanager, success, type Answer, type RealServer } from './support/real-apis.js';
import { buildProjects, initProject, projectDll } from './support/real-api-projects.js';

const time = (value: string): number => new Date(value).getTime();
const isoIn = (ms: number): string => new Date(Date.now() + ms).toISOString();
const HOUR = 3_600_000;
/** Labels of this run: a server is fresh for each run, this keeps them readable when one is not. */
const RUN = `r${process.pid}`;

const ALERTMANAGER_TOOLS = ['create_alert', 'create_silence', 'delete_silence', 'get_silence', 'get_status', 'list_alert_groups', 'list_alerts', 'list_receivers', 'list_silences'];

describe('generated MCP server against Prometheus Alertmanager 0.25 (API v2; Debian package on 127.0.0.1)', { timeout: 10 * 60_000 }, () => {
  let work = '';
  let alertmanager: RealServer | undefined;
  let am: Client | undefined;
  let amTools = new Set<string>();

  before(async () => {
    // Install first (apt-get, when root): a missing package is a clear failure here rather than a failed start.
    requireProgram('prometheus-alertmanager', 'prometheus-alertmanager');
    work = scratchDir('real-apis-alertmanager');
    const init = await initProject(work, ALERTMANAGER_SPEC, 'Alertmanager', 'alertmanager');
    assert.equal(init.code, 0, init.errors);
    // The build, while the server starts.
    const [output, started] = await Promise.all([buildProjects(work, ['alertmanager/Alertmanager.csproj']), startAlertmanager()]);
    alertmanager = started;
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    am = await connect(projectDll(work, 'alertmanager', 'Alertmanager'), { [environmentVariables('Alertmanager').baseUrl]: `${alertmanager.origin}/api/v2` });
    amTools = new Set((await am.listTools()).tools.map((t) => t.name));
  });

  after(async () => {
    await am?.close();
    await alertmanager?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

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
