/**
 * A held-out real API: PowerDNS Authoritative Server 4.7 (Debian's pdns-server with the SQLite backend) and the
 * Swagger document the PowerDNS project publishes for its HTTP API, driven through a generated MCP server as an
 * assistant would drive it. The generator was not tuned to this server: these checks measure it.
 *
 * This file: zone settings and metadata, DNSSEC keys, TSIG keys, autoprimaries, search, the cache and the server's
 * configuration (test/real-apis-powerdns-zones.test.ts has the rest of the checks). Every effect is checked on the
 * server itself: its HTTP API, `pdnsutil`, its SQLite database, and DNS queries on its DNS port.
 *
 * Each check arranges what it needs through the server's API, so that one failure does not fail the next.
 * Checks that fail are not weakened or skipped.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { success } from './support/real-apis.js';
import { RUN, SERVER, usePowerDns, zoneName } from './support/powerdns-suite.js';

describe('generated MCP server against PowerDNS Authoritative 4.7, settings and keys (held out; Debian packages on 127.0.0.1)', { timeout: 10 * 60_000 }, () => {
  const { pdns, tool, api, ok, arrangeZone, arrangeRRset } = usePowerDns({ overlaid: false });

  test('update_server_zone (PUT): kind and SOA-EDIT changed on the server', async () => {
    const id = await arrangeZone('put');
    success(await tool('update_server_zone', { serverId: SERVER, zoneId: id, body: { kind: 'Master', soa_edit: 'INCEPTION-INCREMENT' } }));
    const zone = await ok(`/zones/${id}`);
    assert.deepEqual([zone.kind, zone.soa_edit], ['Master', 'INCEPTION-INCREMENT']);
    assert.match(await pdns().pdnsutil('get-meta', zoneName('put'), 'SOA-EDIT'), /SOA-EDIT = INCEPTION-INCREMENT/);
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
    await pdns().sql(`INSERT INTO records (domain_id, name, type, content, ttl, prio, disabled, ordername, auth) VALUES ((SELECT id FROM domains WHERE name = '${domain}'), 'direct.${domain}', 'A', '192.0.2.7', 60, 0, 0, NULL, 0)`);
    const row = (): Promise<string> => pdns().sql(`SELECT quote(ordername), auth FROM records WHERE name = 'direct.${domain}'`);
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
    for (let i = 0; i < 2; i++) assert.equal((await pdns().dig(name, 'A')).status, 'NOERROR');
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
    const dnskey = (await pdns().dig(zoneName('key-create'), 'DNSKEY')).answers;
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
    assert.match(await pdns().pdnsutil('list-tsig-keys'), new RegExp(`^${name}\\. hmac-sha256\\. ${secret.replace(/[+/=]/g, '\\$&')}$`, 'm'));
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
    assert.equal((await pdns().sql(`SELECT algorithm, secret FROM tsigkeys WHERE name = 'update-${RUN}'`)).trim(), `hmac-sha256|${rotated}`);
  });

  test('delete_server_tsigkey: the key gone from the server', async () => {
    const key = await ok('/tsigkeys', { body: { name: `delete-${RUN}`, algorithm: 'hmac-sha256' } });
    success(await tool('delete_server_tsigkey', { serverId: SERVER, tsigkeyId: key.id }));
    assert.equal((await api(`/tsigkeys/${key.id}`)).status, 404);
    assert.doesNotMatch(await pdns().pdnsutil('list-tsig-keys'), new RegExp(`^delete-${RUN}\\.`, 'm'));
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
    assert.equal(setting('webserver-port'), new URL(pdns().baseUrl).port);
    assert.equal(setting('local-port'), String(pdns().dnsPort));
    assert.equal(setting('api-key'), '***');
  });

});
