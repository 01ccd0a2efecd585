/**
 * A held-out real API: PowerDNS Authoritative Server 4.7 (Debian's pdns-server with the SQLite backend) and the
 * Swagger document the PowerDNS project publishes for its HTTP API, driven through a generated MCP server as an
 * assistant would drive it. The generator was not tuned to this server: these checks measure it.
 *
 * The document as published is YAML with merge keys (`<<: *commonErrors` in every operation's responses); the
 * project is generated from it as it is, and once more with test/fixtures/real-apis/pdns-rrset-delete.overlay.yaml,
 * which fixes where the document is wrong about the server. All are built in one `dotnet build`, and every effect is checked
 * on the server itself: its HTTP API, `pdnsutil`, its SQLite database, and DNS queries on its DNS port.
 *
 * Each check arranges what it needs through the server's API, so that one failure does not fail the next.
 * Checks that fail are not weakened or skipped.
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
import { connect } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import { call, fetchJson, success, type Answer } from './support/real-apis.js';
import { POWERDNS_RRSET_OVERLAY, POWERDNS_SPEC, requirePowerDns, startPowerDns, type PowerDnsServer } from './support/powerdns.js';

/** Zone names of this run: the server is fresh for each run, this keeps them readable when one is not. */
const RUN = `r${process.pid}`;
const zoneName = (label: string): string => `${label}.${RUN}.test.`;
const SERVER = 'localhost';

/** The PowerDNS tools these checks call (of 36, one per operation). */
const POWERDNS_TOOLS = [
  'create_server_autoprimary', 'create_server_tsigkey', 'create_server_zone', 'create_server_zone_cryptokey', 'create_server_zone_metadata',
  'delete_server_autoprimary', 'delete_server_tsigkey', 'delete_server_zone', 'delete_server_zone_cryptokey', 'delete_server_zone_metadata',
  'get_server', 'get_server_config', 'get_server_search_data', 'get_server_tsigkey', 'get_server_zone', 'get_server_zone_export',
  'list_server_autoprimaries', 'list_server_statistics', 'list_server_zones', 'list_servers', 'patch_server_zone', 'update_server_cache_flush',
  'update_server_tsigkey', 'update_server_zone', 'update_server_zone_cryptokey', 'update_server_zone_metadata', 'update_server_zone_rectify',
];

describe('generated MCP server against PowerDNS Authoritative 4.7 (held out; Debian packages on 127.0.0.1)', { timeout: 10 * 60_000 }, () => {
  let work = '';
  let pdns: PowerDnsServer | undefined;
  let client: Client | undefined;
  let overlaid: Client | undefined;
  let wrongKey: Client | undefined;
  let tools = new Set<string>();
  let published = { code: -1, errors: '' };

  before(async () => {
    // Install first (apt-get, when root): a missing package is a clear failure here rather than a failed start.
    requirePowerDns();
    work = scratchDir('real-apis-pdns');
    const init = async (spec: string, folder: string, ...more: string[]): Promise<{ code: number; errors: string }> => {
      let errors = '';
      const code = await runCli(['init', '--openapi-url', spec, '--server-name', 'PowerDns', '--output-dir', join(work, folder), ...more], { out: () => {}, err: (text: string) => void (errors += text) });
      return { code, errors };
    };
    // The document as published: whether it gives a project is the first check.
    published = await init(POWERDNS_SPEC, 'powerdns');
    assert.equal(published.code, 0, published.errors);
    const fixed = await init(POWERDNS_SPEC, 'powerdns-overlaid', '--overlay', POWERDNS_RRSET_OVERLAY);
    assert.equal(fixed.code, 0, fixed.errors);
    // The credential variable the project asks for, as its mcp.json entry names it (a placeholder there).
    const entry = JSON.parse(await readFile(join(work, 'powerdns/mcp.json'), 'utf8')) as { mcpServers: Record<string, { env?: Record<string, string> }> };
    const names = environmentVariables('PowerDns');
    const keyVariable = Object.keys(Object.values(entry.mcpServers)[0]?.env ?? {}).find((name) => name !== names.baseUrl) ?? '';
    assert.match(keyVariable, /^POWER_DNS_/);
    // One build for both projects (same name: one in a solution folder), while the server starts.
    await writeFile(join(work, 'all.slnx'), '<Solution>\n  <Project Path="powerdns/PowerDns.csproj" />\n  <Folder Name="/overlaid/">\n    <Project Path="powerdns-overlaid/PowerDns.csproj" />\n  </Folder>\n</Solution>\n');
    const build = promisify(execFile)('dotnet', ['build', join(work, 'all.slnx'), '-warnaserror', '-nologo', '-clp:NoSummary'], { maxBuffer: 64 * 1024 * 1024 })
      .then(({ stdout }) => stdout, (error: { stdout?: string; stderr?: string }) => `build failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    const [output, started] = await Promise.all([build, startPowerDns().then((s) => ({ s }), (error: unknown) => ({ error }))]);
    if ('error' in started) throw started.error;
    pdns = started.s;
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    const dll = (folder: string): { command: string; args: string[] } => ({ command: 'dotnet', args: [join(work, folder, 'bin/Debug', detectFramework(), 'PowerDns.dll')] });
    [client, overlaid, wrongKey] = await Promise.all([
      connect(dll('powerdns'), { [names.baseUrl]: pdns.baseUrl, [keyVariable]: pdns.apiKey }),
      connect(dll('powerdns-overlaid'), { [names.baseUrl]: pdns.baseUrl, [keyVariable]: pdns.apiKey }),
      connect(dll('powerdns'), { [names.baseUrl]: pdns.baseUrl, [keyVariable]: 'not-the-key' }),
    ]);
    tools = new Set((await client.listTools()).tools.map((t) => t.name));
  });

  after(async () => {
    await Promise.allSettled([client?.close(), overlaid?.close(), wrongKey?.close()]);
    await pdns?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const tool = (name: string, args: Record<string, unknown> = {}): Promise<Answer> => call(client!, tools, name, args);
  const api = (path: string, init?: Parameters<PowerDnsServer['api']>[1]): ReturnType<PowerDnsServer['api']> => pdns!.api(path, init);
  /** The body of a successful API call; fails with the status and body otherwise. */
  const ok = async (path: string, init?: Parameters<PowerDnsServer['api']>[1]): Promise<any> => {
    const response = await api(path, init);
    assert.ok(response.status >= 200 && response.status < 300, `${init?.method ?? 'GET'} ${path}: HTTP ${response.status}: ${response.text}`);
    return response.body;
  };
  /** A Native zone with one nameserver, created through the API; its id. */
  const arrangeZone = async (label: string, more: Record<string, unknown> = {}): Promise<string> =>
    ((await ok('/zones?rrsets=false', { body: { name: zoneName(label), kind: 'Native', nameservers: [`ns1.${zoneName(label)}`], ...more } })) as { id: string }).id;
  const arrangeRRset = (zoneId: string, rrset: Record<string, unknown>): Promise<any> =>
    ok(`/zones/${zoneId}`, { method: 'PATCH', body: { rrsets: [{ changetype: 'REPLACE', ...rrset }] } });
  /** The zone's RRSet of that name and type on the server (from the whole zone: its rrset_name filter leaves out disabled records). */
  const rrsetOnServer = async (zoneId: string, name: string, type: string): Promise<any> =>
    ((await ok(`/zones/${zoneId}`)) as { rrsets: { name: string; type: string }[] }).rrsets.find((r) => r.name === name && r.type === type);
  const zoneNames = async (): Promise<string[]> => ((await ok('/zones')) as { name: string }[]).map((z) => z.name);

  test('init: the document as published (YAML with merge keys) gives a project', () => {
    assert.equal(published.code, 0, published.errors);
  });

  test('tools/list: one tool per operation of the document (36), among them the ones these checks call', () => {
    assert.equal(tools.size, 36, [...tools].join(', '));
    assert.deepEqual(POWERDNS_TOOLS.filter((name) => !tools.has(name)), []);
  });

  test('list_servers: the one server, as the server lists it', async () => {
    const answer = success(await tool('list_servers'));
    assert.deepEqual(answer, await fetchJson(`${pdns!.baseUrl}/servers`, { headers: { 'x-api-key': pdns!.apiKey } }));
    assert.deepEqual(answer.map((s: { id: string; daemon_type: string }) => [s.id, s.daemon_type]), [[SERVER, 'authoritative']]);
  });

  test('get_server localhost: the server with its version', async () => {
    const answer = success(await tool('get_server', { serverId: SERVER }));
    assert.deepEqual(answer, await ok(''));
    assert.equal(answer.version, '4.7.3');
  });

  test('list_server_statistics without rings: the statistics the server has, no ring among them', async () => {
    const answer = success(await tool('list_server_statistics', { serverId: SERVER, includerings: false })) as { name: string; type: string }[];
    const server = (await ok('/statistics?includerings=false')) as { name: string; type: string }[];
    assert.deepEqual(answer.map((s) => `${s.name}:${s.type}`), server.map((s) => `${s.name}:${s.type}`));
    assert.ok(answer.some((s) => s.name === 'uptime'), JSON.stringify(answer).slice(0, 300));
    assert.ok(!answer.some((s) => s.type === 'RingStatisticItem'), 'a ring was included');
  });

  test('list_server_statistics of one statistic: only that one', async () => {
    const answer = success(await tool('list_server_statistics', { serverId: SERVER, statistic: 'udp-queries' }));
    assert.deepEqual(answer.map((s: { name: string }) => s.name), ['udp-queries']);
  });

  test("list_server_statistics of an unknown statistic: the server's reason (HTTP 422)", async () => {
    const answer = await tool('list_server_statistics', { serverId: SERVER, statistic: 'no-such-statistic' });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /Unknown statistic name.*HTTP 422/);
  });

  test('create_server_zone (Native, with nameservers): the zone is on the server with its NS records and answers SOA queries', async () => {
    const name = zoneName('created');
    const nameservers = [`ns1.${name}`, 'ns2.example.net.'];
    const answer = success(await tool('create_server_zone', { serverId: SERVER, body: { name, kind: 'Native', nameservers } }));
    assert.equal(answer.name, name);
    const zone = await ok(`/zones/${answer.id}`);
    assert.equal(zone.kind, 'Native');
    const ns = zone.rrsets.find((r: { type: string }) => r.type === 'NS');
    assert.deepEqual(ns.records.map((r: { content: string }) => r.content).sort(), [...nameservers].sort());
    assert.ok((await pdns!.pdnsutil('list-all-zones')).split('\n').includes(name.slice(0, -1)));
    const dns = await pdns!.dig(name, 'SOA');
    assert.equal(dns.status, 'NOERROR');
    assert.equal(dns.answers.length, 1, dns.answers.join('\n'));
  });

  test('create_server_zone with rrsets=false: an answer without RRSets, the zone on the server', async () => {
    const name = zoneName('no-rrsets');
    const answer = success(await tool('create_server_zone', { serverId: SERVER, rrsets: false, body: { name, kind: 'Native', nameservers: [`ns1.${name}`] } }));
    assert.equal(answer.rrsets, undefined, JSON.stringify(answer));
    assert.equal((await ok(`/zones/${answer.id}`)).name, name);
  });

  test('create_server_zone from a BIND zone file (zone): its records on the server and in DNS', async () => {
    const name = zoneName('imported');
    const zone = `${name} 3600 IN SOA ns1.${name} hostmaster.${name} 7 10800 3600 604800 3600\n${name} 3600 IN NS ns1.${name}\nmail.${name} 300 IN TXT "v=spf1 -all"\n`;
    const answer = success(await tool('create_server_zone', { serverId: SERVER, body: { name, kind: 'Native', zone } }));
    const txt = await rrsetOnServer(answer.id, `mail.${name}`, 'TXT');
    assert.deepEqual(txt?.records.map((r: { content: string }) => r.content), ['"v=spf1 -all"']);
    const soa = await rrsetOnServer(answer.id, name, 'SOA');
    assert.match(soa?.records[0]?.content ?? '', new RegExp(`^ns1\\.${name.replace(/\./g, '\\.')} hostmaster\\.`), JSON.stringify(soa));
    assert.deepEqual((await pdns!.dig(`mail.${name}`, 'TXT')).answers, [`mail.${name} 300 IN TXT "v=spf1 -all"`]);
  });

  test('get_server_zone: the zone as the server has it', async () => {
    const id = await arrangeZone('get');
    await arrangeRRset(id, { name: `www.${zoneName('get')}`, type: 'A', ttl: 120, records: [{ content: '192.0.2.1', disabled: false }] });
    const answer = success(await tool('get_server_zone', { serverId: SERVER, zoneId: id }));
    assert.deepEqual(answer, await ok(`/zones/${id}`));
    assert.ok(answer.rrsets.some((r: { type: string }) => r.type === 'A'), JSON.stringify(answer.rrsets));
  });

  test('get_server_zone limited to one RRSet (rrsetName, rrsetType): only that RRSet', async () => {
    const id = await arrangeZone('one-rrset');
    const name = zoneName('one-rrset');
    await arrangeRRset(id, { name: `www.${name}`, type: 'A', ttl: 120, records: [{ content: '192.0.2.1', disabled: false }] });
    const answer = success(await tool('get_server_zone', { serverId: SERVER, zoneId: id, rrsetName: name, rrsetType: 'NS' }));
    assert.deepEqual(answer.rrsets.map((r: { name: string; type: string }) => `${r.name} ${r.type}`), [`${name} NS`]);
  });

  test('list_server_zones: every zone the server has; with zone, only that one, as the server lists it', async () => {
    const id = await arrangeZone('listed');
    const all = success(await tool('list_server_zones', { serverId: SERVER })) as { id: string }[];
    assert.deepEqual(all.map((z) => z.id).sort(), ((await ok('/zones')) as { id: string }[]).map((z) => z.id).sort());
    assert.ok(all.some((z) => z.id === id));
    const one = success(await tool('list_server_zones', { serverId: SERVER, zone: zoneName('listed') }));
    assert.deepEqual(one, await ok(`/zones?zone=${encodeURIComponent(zoneName('listed'))}`));
    assert.equal(one.length, 1);
  });

  test('list_server_zones with dnssec=false: the zones without their dnssec and edited_serial fields', async () => {
    await arrangeZone('no-dnssec');
    const answer = success(await tool('list_server_zones', { serverId: SERVER, zone: zoneName('no-dnssec'), dnssec: false }));
    assert.equal(answer.length, 1);
    assert.deepEqual([answer[0].dnssec, answer[0].edited_serial], [undefined, undefined], JSON.stringify(answer[0]));
  });

  test('patch_server_zone REPLACE an A record: the RRSet on the server and in DNS', async () => {
    const id = await arrangeZone('replace');
    const name = `www.${zoneName('replace')}`;
    success(await tool('patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.10' }] }] } }));
    const rrset = await rrsetOnServer(id, name, 'A');
    assert.equal(rrset?.ttl, 300);
    assert.deepEqual(rrset?.records, [{ content: '192.0.2.10', disabled: false }]);
    assert.deepEqual((await pdns!.dig(name, 'A')).answers, [`${name} 300 IN A 192.0.2.10`]);
  });

  test('patch_server_zone REPLACE with a disabled record and a comment: both on the server, only the enabled record in DNS', async () => {
    const id = await arrangeZone('disabled');
    const name = `www.${zoneName('disabled')}`;
    const records = [{ content: '192.0.2.1', disabled: false }, { content: '192.0.2.2', disabled: true }];
    success(await tool('patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'A', ttl: 60, changetype: 'REPLACE', records, comments: [{ content: 'web front ends', account: 'ops' }] }] } }));
    const rrset = await rrsetOnServer(id, name, 'A');
    assert.deepEqual(rrset?.records, records);
    assert.deepEqual(rrset?.comments.map((c: { content: string; account: string }) => [c.content, c.account]), [['web front ends', 'ops']]);
    assert.deepEqual((await pdns!.dig(name, 'A')).answers, [`${name} 60 IN A 192.0.2.1`]);
  });

  test('patch_server_zone DELETE an RRSet (with ttl and no records, as the schema requires): gone from the server and from DNS', async () => {
    const id = await arrangeZone('delete');
    const name = `old.${zoneName('delete')}`;
    await arrangeRRset(id, { name, type: 'A', ttl: 60, records: [{ content: '192.0.2.3', disabled: false }] });
    success(await tool('patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'A', ttl: 60, changetype: 'DELETE', records: [] }] } }));
    assert.equal(await rrsetOnServer(id, name, 'A'), undefined);
    assert.equal((await pdns!.dig(name, 'A')).status, 'NXDOMAIN');
  });

  const deleteAsDescribed = async (mcp: Client, label: string): Promise<void> => {
    const id = await arrangeZone(label);
    const name = `old.${zoneName(label)}`;
    await arrangeRRset(id, { name, type: 'TXT', ttl: 60, records: [{ content: '"bye"', disabled: false }] });
    // The RRSet's description: with DELETE the ttl MUST NOT be included, and records must be empty.
    success(await call(mcp, tools, 'patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'TXT', changetype: 'DELETE' }] } }));
    assert.equal(await rrsetOnServer(id, name, 'TXT'), undefined);
  };

  test('patch_server_zone DELETE as the RRSet description says (no ttl, no records): the document\'s schema forbids it, nothing sent', async () => {
    // The spec's own error (its RRSet requires ttl and records for every change): the overlay below fixes it.
    const id = await arrangeZone('delete-described');
    const name = `old.${zoneName('delete-described')}`;
    await arrangeRRset(id, { name, type: 'TXT', ttl: 60, records: [{ content: '"bye"', disabled: false }] });
    const answer = await call(client!, tools, 'patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'TXT', changetype: 'DELETE' }] } });
    assert.equal(answer.isError, true, answer.text);
    assert.equal(answer.text, "Error: invalid arguments for patch_server_zone: 'body.rrsets[0].ttl' is required; 'body.rrsets[0].records' is required");
    assert.notEqual(await rrsetOnServer(id, name, 'TXT'), undefined);
  });

  test('patch_server_zone DELETE as described, with pdns-rrset-delete.overlay.yaml: gone from the server', async () => {
    await deleteAsDescribed(overlaid!, 'delete-overlaid');
  });

  test("patch_server_zone with an A record that is not an address: the server's reason (HTTP 422), nothing written", async () => {
    const id = await arrangeZone('bad-record');
    const name = `bad.${zoneName('bad-record')}`;
    const answer = await tool('patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'A', ttl: 60, changetype: 'REPLACE', records: [{ content: 'not-an-address' }] }] } });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /while parsing IP address.*\(HTTP 422\)/);
    assert.equal(await rrsetOnServer(id, name, 'A'), undefined);
  });

  test('update_server_zone (PUT): kind and SOA-EDIT changed on the server', async () => {
    const id = await arrangeZone('put');
    success(await tool('update_server_zone', { serverId: SERVER, zoneId: id, body: { kind: 'Master', soa_edit: 'INCEPTION-INCREMENT' } }));
    const zone = await ok(`/zones/${id}`);
    assert.deepEqual([zone.kind, zone.soa_edit], ['Master', 'INCEPTION-INCREMENT']);
    assert.match(await pdns!.pdnsutil('get-meta', zoneName('put'), 'SOA-EDIT'), /SOA-EDIT = INCEPTION-INCREMENT/);
  });

  test('create_server_zone_metadata: the values on the server', async () => {
    const id = await arrangeZone('meta-create');
    success(await tool('create_server_zone_metadata', { serverId: SERVER, zoneId: id, body: { kind: 'X-OWNER', metadata: ['team-dns', 'oncall'] } }));
    assert.deepEqual((await ok(`/zones/${id}/metadata/X-OWNER`)).metadata, ['team-dns', 'oncall']);
  });

  test('update_server_zone_metadata: the values replaced on the server', async () => {
    const id = await arrangeZone('meta-update');
    await ok(`/zones/${id}/metadata`, { body: { kind: 'X-OWNER', metadata: ['old'] } });
    const answer = success(await tool('update_server_zone_metadata', { serverId: SERVER, zoneId: id, metadataKind: 'X-OWNER', body: { kind: 'X-OWNER', metadata: ['new-1', 'new-2'] } }));
    assert.deepEqual(answer.metadata, ['new-1', 'new-2']);
    assert.deepEqual((await ok(`/zones/${id}/metadata/X-OWNER`)).metadata, ['new-1', 'new-2']);
  });

  test('delete_server_zone_metadata: the kind gone from the server', async () => {
    const id = await arrangeZone('meta-delete');
    await ok(`/zones/${id}/metadata`, { body: { kind: 'X-OWNER', metadata: ['doomed'] } });
    success(await tool('delete_server_zone_metadata', { serverId: SERVER, zoneId: id, metadataKind: 'X-OWNER' }));
    assert.ok(!((await ok(`/zones/${id}/metadata`)) as { kind: string }[]).some((m) => m.kind === 'X-OWNER'));
  });

  test('update_server_zone_rectify on a DNSSEC zone: a record written behind its back gets its ordername and auth', async () => {
    const id = await arrangeZone('rectify');
    await ok(`/zones/${id}/cryptokeys`, { body: { keytype: 'csk', active: true } });
    const domain = zoneName('rectify').slice(0, -1);
    await pdns!.sql(`INSERT INTO records (domain_id, name, type, content, ttl, prio, disabled, ordername, auth) VALUES ((SELECT id FROM domains WHERE name = '${domain}'), 'direct.${domain}', 'A', '192.0.2.7', 60, 0, 0, NULL, 0)`);
    const row = (): Promise<string> => pdns!.sql(`SELECT quote(ordername), auth FROM records WHERE name = 'direct.${domain}'`);
    assert.equal((await row()).trim(), 'NULL|0');
    const answer = await tool('update_server_zone_rectify', { serverId: SERVER, zoneId: id });
    assert.equal(answer.isError, false, answer.text);
    assert.match(answer.text, /Rectified/);
    assert.equal((await row()).trim(), "'direct'|1");
  });

  test('get_server_zone_export: the zone in AXFR text, exactly as the server exports it', async () => {
    const id = await arrangeZone('export');
    await arrangeRRset(id, { name: `www.${zoneName('export')}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.20', disabled: false }] });
    const answer = success(await tool('get_server_zone_export', { serverId: SERVER, zoneId: id }));
    const server = await api(`/zones/${id}/export`, { accept: 'text/plain' });
    assert.match(server.text, /\tIN\tA\t192\.0\.2\.20\n/);
    // As text (a JSON string), or as PowerDNS answers an Accept: application/json ({"zone": …}): the same AXFR text.
    assert.equal(typeof answer === 'string' ? answer : answer.zone, server.text, JSON.stringify(answer));
  });

  test('get_server_search_data: the records the server finds, and only zones with objectType zone', async () => {
    const id = await arrangeZone('search');
    const name = `needle.${zoneName('search')}`;
    await arrangeRRset(id, { name, type: 'A', ttl: 60, records: [{ content: '192.0.2.30', disabled: false }] });
    const answer = success(await tool('get_server_search_data', { serverId: SERVER, q: `needle.search.${RUN}.*`, max: 10 }));
    assert.deepEqual(answer, await ok(`/search-data?q=${encodeURIComponent(`needle.search.${RUN}.*`)}&max=10`));
    assert.deepEqual(answer.map((r: { object_type: string; name: string; content: string }) => [r.object_type, r.name, r.content]), [['record', name, '192.0.2.30']]);
    const zones = success(await tool('get_server_search_data', { serverId: SERVER, q: `search.${RUN}*`, max: 10, objectType: 'zone' }));
    assert.deepEqual(zones.map((r: { object_type: string; name: string }) => [r.object_type, r.name]), [['zone', zoneName('search')]]);
  });

  test('update_server_cache_flush: the cached answers for the name are gone from the server cache', async () => {
    const id = await arrangeZone('cache');
    const name = `cached.${zoneName('cache')}`;
    await arrangeRRset(id, { name, type: 'A', ttl: 60, records: [{ content: '192.0.2.40', disabled: false }] });
    for (let i = 0; i < 2; i++) assert.equal((await pdns!.dig(name, 'A')).status, 'NOERROR');
    const answer = success(await tool('update_server_cache_flush', { serverId: SERVER, domain: name }));
    assert.equal(answer.result, 'Flushed cache.');
    assert.ok(answer.count >= 1, JSON.stringify(answer));
    assert.equal((await ok(`/cache/flush?domain=${encodeURIComponent(name)}`, { method: 'PUT' })).count, 0);
  });

  test('create_server_zone_cryptokey: an active key on the server, its DNSKEY in DNS', async () => {
    const id = await arrangeZone('key-create');
    const answer = success(await tool('create_server_zone_cryptokey', { serverId: SERVER, zoneId: id, body: { keytype: 'csk', active: true } }));
    const keys = (await ok(`/zones/${id}/cryptokeys`)) as { id: number; active: boolean; dnskey: string }[];
    assert.deepEqual(keys.map((k) => [k.id, k.active]), [[answer.id, true]]);
    const dnskey = (await pdns!.dig(zoneName('key-create'), 'DNSKEY')).answers;
    assert.equal(dnskey.length, 1, dnskey.join('\n'));
    assert.ok(dnskey[0]!.endsWith(`DNSKEY ${keys[0]!.dnskey}`), `${dnskey[0]} vs ${keys[0]!.dnskey}`);
  });

  test('update_server_zone_cryptokey: the key deactivated on the server', async () => {
    const id = await arrangeZone('key-update');
    const key = (await ok(`/zones/${id}/cryptokeys`, { body: { keytype: 'csk', active: true } })) as { id: number };
    success(await tool('update_server_zone_cryptokey', { serverId: SERVER, zoneId: id, cryptokeyId: String(key.id), body: { active: false } }));
    assert.equal((await ok(`/zones/${id}/cryptokeys/${key.id}`)).active, false);
  });

  test('delete_server_zone_cryptokey: the key gone from the server', async () => {
    const id = await arrangeZone('key-delete');
    const key = (await ok(`/zones/${id}/cryptokeys`, { body: { keytype: 'csk', active: true } })) as { id: number };
    success(await tool('delete_server_zone_cryptokey', { serverId: SERVER, zoneId: id, cryptokeyId: String(key.id) }));
    assert.deepEqual(await ok(`/zones/${id}/cryptokeys`), []);
  });

  const secret = Buffer.from(`tsig secret of ${RUN}, 32 bytes.`.padEnd(32, '.')).toString('base64');

  test('create_server_tsigkey with its secret: the key on the server (API and pdnsutil)', async () => {
    const name = `xfer-${RUN}`;
    const answer = success(await tool('create_server_tsigkey', { serverId: SERVER, body: { name, algorithm: 'hmac-sha256', key: secret } }));
    const server = await ok(`/tsigkeys/${answer.id}`);
    assert.deepEqual([server.name, server.algorithm, server.key], [name, 'hmac-sha256', secret]);
    assert.match(await pdns!.pdnsutil('list-tsig-keys'), new RegExp(`^${name}\\. hmac-sha256\\. ${secret.replace(/[+/=]/g, '\\$&')}$`, 'm'));
  });

  test('get_server_tsigkey: the key with its secret, as the server has it', async () => {
    const key = await ok('/tsigkeys', { body: { name: `get-${RUN}`, algorithm: 'hmac-sha512' } });
    const answer = success(await tool('get_server_tsigkey', { serverId: SERVER, tsigkeyId: key.id }));
    assert.deepEqual(answer, await ok(`/tsigkeys/${key.id}`));
    assert.match(answer.key, /^[A-Za-z0-9+/]+=*$/);
  });

  // A new secret (key rotation). A new algorithm is not checked: PowerDNS 4.7 then adds a second key of that name
  // (a second row in its tsigkeys table) and goes on serving the first, whoever sends the PUT.
  test('update_server_tsigkey: the secret replaced on the server, the algorithm kept', async () => {
    const key = await ok('/tsigkeys', { body: { name: `update-${RUN}`, algorithm: 'hmac-sha256', key: secret } });
    const rotated = Buffer.from(`rotated secret of ${RUN}`.padEnd(32, '!')).toString('base64');
    success(await tool('update_server_tsigkey', { serverId: SERVER, tsigkeyId: key.id, body: { key: rotated } }));
    const server = await ok(`/tsigkeys/${key.id}`);
    assert.deepEqual([server.algorithm, server.key], ['hmac-sha256', rotated]);
    assert.equal((await pdns!.sql(`SELECT algorithm, secret FROM tsigkeys WHERE name = 'update-${RUN}'`)).trim(), `hmac-sha256|${rotated}`);
  });

  test('delete_server_tsigkey: the key gone from the server', async () => {
    const key = await ok('/tsigkeys', { body: { name: `delete-${RUN}`, algorithm: 'hmac-sha256' } });
    success(await tool('delete_server_tsigkey', { serverId: SERVER, tsigkeyId: key.id }));
    assert.equal((await api(`/tsigkeys/${key.id}`)).status, 404);
    assert.doesNotMatch(await pdns!.pdnsutil('list-tsig-keys'), new RegExp(`^delete-${RUN}\\.`, 'm'));
  });

  test('create_server_autoprimary, list, delete (IPv6 address in the path): as on the server', async () => {
    const autoprimary = { ip: '2001:db8::53', nameserver: `ns.${zoneName('primary')}`, account: 'ops' };
    success(await tool('create_server_autoprimary', { serverId: SERVER, body: autoprimary }));
    assert.deepEqual(await ok('/autoprimaries'), [autoprimary]);
    assert.deepEqual(success(await tool('list_server_autoprimaries', { serverId: SERVER })), [autoprimary]);
    success(await tool('delete_server_autoprimary', { serverId: SERVER, ip: autoprimary.ip, nameserver: autoprimary.nameserver }));
    assert.deepEqual(await ok('/autoprimaries'), []);
  });

  test('get_server_config: the settings the server runs with (its port; the API key masked)', async () => {
    const answer = success(await tool('get_server_config', { serverId: SERVER })) as { name: string; value: string }[];
    const setting = (name: string): string | undefined => answer.find((s) => s.name === name)?.value;
    assert.equal(setting('webserver-port'), new URL(pdns!.baseUrl).port);
    assert.equal(setting('local-port'), String(pdns!.dnsPort));
    assert.equal(setting('api-key'), '***');
  });

  test('delete_server_zone: the zone gone from the server and from DNS', async () => {
    const id = await arrangeZone('deleted');
    assert.equal((await pdns!.dig(zoneName('deleted'), 'SOA')).status, 'NOERROR');
    success(await tool('delete_server_zone', { serverId: SERVER, zoneId: id }));
    assert.equal((await api(`/zones/${id}`)).status, 404);
    assert.ok(!(await pdns!.pdnsutil('list-all-zones')).split('\n').includes(zoneName('deleted').slice(0, -1)));
    assert.equal((await pdns!.dig(zoneName('deleted'), 'SOA')).status, 'REFUSED');
  });

  test('a zone whose name has a slash (RFC 2317): created, then read and changed by the id the server gives (=2F)', async () => {
    const name = `0/26.2.0.192.in-addr.arpa.`;
    const answer = success(await tool('create_server_zone', { serverId: SERVER, body: { name, kind: 'Native', nameservers: ['ns1.example.net.'] } }));
    assert.equal(answer.id, '0=2F26.2.0.192.in-addr.arpa.');
    assert.equal(success(await tool('get_server_zone', { serverId: SERVER, zoneId: answer.id, rrsets: false })).name, name);
    success(await tool('patch_server_zone', { serverId: SERVER, zoneId: answer.id, body: { rrsets: [{ name: `5.${name}`, type: 'PTR', ttl: 60, changetype: 'REPLACE', records: [{ content: 'host5.example.net.' }] }] } }));
    assert.deepEqual((await rrsetOnServer(answer.id, `5.${name}`, 'PTR'))?.records, [{ content: 'host5.example.net.', disabled: false }]);
  });

  test('get_server_zone of a zone that does not exist: a not-found error naming it (the server says only "Not Found")', async () => {
    assert.equal((await api(`/zones/${zoneName('missing')}`)).text.trim(), 'Not Found');
    const answer = await tool('get_server_zone', { serverId: SERVER, zoneId: zoneName('missing') });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /^Error: .*not found.*\(HTTP 404\)$/i);
    assert.ok(answer.text.includes(zoneName('missing')), answer.text);
  });

  test("create_server_zone with an invalid name: the server's reason (HTTP 422), nothing created", async () => {
    const before = await zoneNames();
    const answer = await tool('create_server_zone', { serverId: SERVER, body: { name: `bad..${RUN}.test.`, kind: 'Native', nameservers: [] } });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, new RegExp(`Unable to parse DNS Name 'bad\\.\\.${RUN}\\.test\\.'.*\\(HTTP 422\\)`));
    assert.deepEqual(await zoneNames(), before);
  });

  test('create_server_zone of a zone that exists: a conflict (HTTP 409), the zone unchanged', async () => {
    const id = await arrangeZone('twice');
    const serial = (await ok(`/zones/${id}`)).serial;
    const answer = await tool('create_server_zone', { serverId: SERVER, body: { name: zoneName('twice'), kind: 'Master', nameservers: ['ns9.example.net.'] } });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /conflict.*\(HTTP 409\)/i);
    const zone = await ok(`/zones/${id}`);
    assert.deepEqual([zone.kind, zone.serial], ['Native', serial]);
  });

  test('with a wrong API key: refused as unauthenticated (HTTP 401), nothing created', async () => {
    const answer = await call(wrongKey!, tools, 'create_server_zone', { serverId: SERVER, body: { name: zoneName('unauthorized'), kind: 'Native', nameservers: [] } });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /HTTP 401/);
    assert.ok(!(await zoneNames()).includes(zoneName('unauthorized')));
  });
});
