/**
 * A held-out real API: PowerDNS Authoritative Server 4.7 (Debian's pdns-server with the SQLite backend) and the
 * Swagger document the PowerDNS project publishes for its HTTP API, driven through a generated MCP server as an
 * assistant would drive it. The generator was not tuned to this server: these checks measure it.
 *
 * This file: the project from the document as published, zones and their records, errors. The document is YAML with
 * merge keys (`<<: *commonErrors` in every operation's responses); the project is generated from it as it is, and once
 * more with test/fixtures/real-apis/pdns-rrset-delete.overlay.yaml, which fixes where the document is wrong about the
 * server. Every effect is checked on the server itself: its HTTP API, `pdnsutil`, its SQLite database, and DNS
 * queries on its DNS port (test/real-apis-powerdns-settings.test.ts has the rest of the checks).
 *
 * Each check arranges what it needs through the server's API, so that one failure does not fail the next.
 * Checks that fail are not weakened or skipped.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fetchJson, success } from './support/real-apis.js';
import { RUN, SERVER, usePowerDns, zoneName } from './support/powerdns-suite.js';

/** The PowerDNS tools these checks call (of 36, one per operation). */
const POWERDNS_TOOLS = [
  'create_server_autoprimary', 'create_server_tsigkey', 'create_server_zone', 'create_server_zone_cryptokey', 'create_server_zone_metadata',
  'delete_server_autoprimary', 'delete_server_tsigkey', 'delete_server_zone', 'delete_server_zone_cryptokey', 'delete_server_zone_metadata',
  'get_server', 'get_server_config', 'get_server_search_data', 'get_server_tsigkey', 'get_server_zone', 'get_server_zone_export',
  'list_server_autoprimaries', 'list_server_statistics', 'list_server_zones', 'list_servers', 'patch_server_zone', 'update_server_cache_flush',
  'update_server_tsigkey', 'update_server_zone', 'update_server_zone_cryptokey', 'update_server_zone_metadata', 'update_server_zone_rectify',
];

describe('generated MCP server against PowerDNS Authoritative 4.7, zones and records (held out; Debian packages on 127.0.0.1)', { timeout: 10 * 60_000 }, () => {
  const { pdns, tools, published, tool, api, ok, arrangeZone, arrangeRRset, rrsetOnServer, zoneNames } = usePowerDns({ overlaid: true });

  test('init: the document as published (YAML with merge keys) gives a project', () => {
    assert.equal(published().code, 0, published().errors);
  });

  test('tools/list: one tool per operation of the document (36), among them the ones these checks call', () => {
    assert.equal(tools().size, 36, [...tools()].join(', '));
    assert.deepEqual(POWERDNS_TOOLS.filter((name) => !tools().has(name)), []);
  });

  test('list_servers: the one server, as the server lists it', async () => {
    const answer = success(await tool('list_servers'));
    assert.deepEqual(answer, await fetchJson(`${pdns().baseUrl}/servers`, { headers: { 'x-api-key': pdns().apiKey } }));
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
    assert.ok((await pdns().pdnsutil('list-all-zones')).split('\n').includes(name.slice(0, -1)));
    const dns = await pdns().dig(name, 'SOA');
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
    assert.deepEqual((await pdns().dig(`mail.${name}`, 'TXT')).answers, [`mail.${name} 300 IN TXT "v=spf1 -all"`]);
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
    assert.deepEqual((await pdns().dig(name, 'A')).answers, [`${name} 300 IN A 192.0.2.10`]);
  });

  test('patch_server_zone REPLACE with a disabled record and a comment: both on the server, only the enabled record in DNS', async () => {
    const id = await arrangeZone('disabled');
    const name = `www.${zoneName('disabled')}`;
    const records = [{ content: '192.0.2.1', disabled: false }, { content: '192.0.2.2', disabled: true }];
    success(await tool('patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'A', ttl: 60, changetype: 'REPLACE', records, comments: [{ content: 'web front ends', account: 'ops' }] }] } }));
    const rrset = await rrsetOnServer(id, name, 'A');
    assert.deepEqual(rrset?.records, records);
    assert.deepEqual(rrset?.comments.map((c: { content: string; account: string }) => [c.content, c.account]), [['web front ends', 'ops']]);
    assert.deepEqual((await pdns().dig(name, 'A')).answers, [`${name} 60 IN A 192.0.2.1`]);
  });

  test('patch_server_zone DELETE an RRSet (with ttl and no records, as the schema requires): gone from the server and from DNS', async () => {
    const id = await arrangeZone('delete');
    const name = `old.${zoneName('delete')}`;
    await arrangeRRset(id, { name, type: 'A', ttl: 60, records: [{ content: '192.0.2.3', disabled: false }] });
    success(await tool('patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'A', ttl: 60, changetype: 'DELETE', records: [] }] } }));
    assert.equal(await rrsetOnServer(id, name, 'A'), undefined);
    assert.equal((await pdns().dig(name, 'A')).status, 'NXDOMAIN');
  });

  const deleteAsDescribed = async (client: 'overlaid' | undefined, label: string): Promise<void> => {
    const id = await arrangeZone(label);
    const name = `old.${zoneName(label)}`;
    await arrangeRRset(id, { name, type: 'TXT', ttl: 60, records: [{ content: '"bye"', disabled: false }] });
    // The RRSet's description: with DELETE the ttl MUST NOT be included, and records must be empty.
    success(await tool('patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'TXT', changetype: 'DELETE' }] } }, client));
    assert.equal(await rrsetOnServer(id, name, 'TXT'), undefined);
  };

  test('patch_server_zone DELETE as the RRSet description says (no ttl, no records): the document\'s schema forbids it, nothing sent', async () => {
    // The spec's own error (its RRSet requires ttl and records for every change): the overlay below fixes it.
    const id = await arrangeZone('delete-described');
    const name = `old.${zoneName('delete-described')}`;
    await arrangeRRset(id, { name, type: 'TXT', ttl: 60, records: [{ content: '"bye"', disabled: false }] });
    const answer = await tool('patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'TXT', changetype: 'DELETE' }] } });
    assert.equal(answer.isError, true, answer.text);
    assert.equal(answer.text, "Error: invalid arguments for patch_server_zone: 'body.rrsets[0].ttl' is required; 'body.rrsets[0].records' is required");
    assert.notEqual(await rrsetOnServer(id, name, 'TXT'), undefined);
  });

  test('patch_server_zone DELETE as described, with pdns-rrset-delete.overlay.yaml: gone from the server', async () => {
    await deleteAsDescribed('overlaid', 'delete-overlaid');
  });

  test("patch_server_zone with an A record that is not an address: the server's reason (HTTP 422), nothing written", async () => {
    const id = await arrangeZone('bad-record');
    const name = `bad.${zoneName('bad-record')}`;
    const answer = await tool('patch_server_zone', { serverId: SERVER, zoneId: id, body: { rrsets: [{ name, type: 'A', ttl: 60, changetype: 'REPLACE', records: [{ content: 'not-an-address' }] }] } });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /while parsing IP address.*\(HTTP 422\)/);
    assert.equal(await rrsetOnServer(id, name, 'A'), undefined);
  });


  test('delete_server_zone: the zone gone from the server and from DNS', async () => {
    const id = await arrangeZone('deleted');
    assert.equal((await pdns().dig(zoneName('deleted'), 'SOA')).status, 'NOERROR');
    success(await tool('delete_server_zone', { serverId: SERVER, zoneId: id }));
    assert.equal((await api(`/zones/${id}`)).status, 404);
    assert.ok(!(await pdns().pdnsutil('list-all-zones')).split('\n').includes(zoneName('deleted').slice(0, -1)));
    assert.equal((await pdns().dig(zoneName('deleted'), 'SOA')).status, 'REFUSED');
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
    const answer = await tool('create_server_zone', { serverId: SERVER, body: { name: zoneName('unauthorized'), kind: 'Native', nameservers: [] } }, 'wrongKey');
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /HTTP 401/);
    assert.ok(!(await zoneNames()).includes(zoneName('unauthorized')));
  });
});
