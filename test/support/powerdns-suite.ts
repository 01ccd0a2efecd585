/**
 * The setup the PowerDNS checks share: the server started, the project generated from the document as published
 * (and, when asked, once more with pdns-rrset-delete.overlay.yaml) and built, MCP clients connected; and the ways
 * the checks arrange and read state through the server's own API.
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { environmentVariables } from '../../src/names/environment.js';
import { connect } from '../../examples/harness.js';
import { scratchDir } from './scratch.js';
import { call, type Answer } from './real-apis.js';
import { buildProjects, credentialVariable, initProject, projectDll } from './real-api-projects.js';
import { POWERDNS_RRSET_OVERLAY, POWERDNS_SPEC, requirePowerDns, startPowerDns, type PowerDnsServer } from './powerdns.js';

/** Zone names of this run: the server is fresh for each run, this keeps them readable when one is not. */
export const RUN = `r${process.pid}`;
export const zoneName = (label: string): string => `${label}.${RUN}.test.`;
/** The server id PowerDNS gives itself. */
export const SERVER = 'localhost';

type ApiInit = Parameters<PowerDnsServer['api']>[1];

export interface PowerDnsSuite {
  readonly pdns: () => PowerDnsServer;
  /** The tools the project publishes. */
  readonly tools: () => ReadonlySet<string>;
  /** `init` of the document as published: its exit code and errors. */
  readonly published: () => { code: number; errors: string };
  /** A tool's answer, from the project of the document as published (`client`: another connected client). */
  readonly tool: (name: string, args?: Record<string, unknown>, client?: 'overlaid' | 'wrongKey') => Promise<Answer>;
  readonly api: (path: string, init?: ApiInit) => ReturnType<PowerDnsServer['api']>;
  /** The body of a successful API call; fails with the status and body otherwise. */
  readonly ok: (path: string, init?: ApiInit) => Promise<any>;
  /** A Native zone with one nameserver, created through the API; its id. */
  readonly arrangeZone: (label: string, more?: Record<string, unknown>) => Promise<string>;
  readonly arrangeRRset: (zoneId: string, rrset: Record<string, unknown>) => Promise<any>;
  /** The zone's RRSet of that name and type on the server (from the whole zone: its rrset_name filter leaves out disabled records). */
  readonly rrsetOnServer: (zoneId: string, name: string, type: string) => Promise<any>;
  readonly zoneNames: () => Promise<string[]>;
}

/**
 * Registers the suite's `before` and `after` (call it inside a `describe`). `overlaid` also generates and connects the
 * project of the overlaid document, and a client of the published one with a wrong API key.
 */
export function usePowerDns(options: { overlaid: boolean }): PowerDnsSuite {
  let work = '';
  let pdns: PowerDnsServer | undefined;
  const clients: { main?: Client; overlaid?: Client; wrongKey?: Client } = {};
  let tools = new Set<string>();
  let published = { code: -1, errors: '' };

  before(async () => {
    // Install first (apt-get, when root): a missing package is a clear failure here rather than a failed start.
    requirePowerDns();
    work = scratchDir('real-apis-pdns');
    // The document as published: whether it gives a project is the first check.
    published = await initProject(work, POWERDNS_SPEC, 'PowerDns', 'powerdns');
    assert.equal(published.code, 0, published.errors);
    const projects = ['powerdns/PowerDns.csproj'];
    if (options.overlaid) {
      const fixed = await initProject(work, POWERDNS_SPEC, 'PowerDns', 'powerdns-overlaid', '--overlay', POWERDNS_RRSET_OVERLAY);
      assert.equal(fixed.code, 0, fixed.errors);
      projects.push('powerdns-overlaid/PowerDns.csproj');
    }
    const keyVariable = await credentialVariable(work, 'powerdns', 'PowerDns');
    assert.match(keyVariable, /^POWER_DNS_/);
    // One build, while the server starts.
    const [output, started] = await Promise.all([buildProjects(work, projects), startPowerDns().then((s) => ({ s }), (error: unknown) => ({ error }))]);
    if ('error' in started) throw started.error;
    pdns = started.s;
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    const baseUrl = environmentVariables('PowerDns').baseUrl;
    const start = (folder: string, key: string): Promise<Client> => connect(projectDll(work, folder, 'PowerDns'), { [baseUrl]: pdns!.baseUrl, [keyVariable]: key });
    clients.main = await start('powerdns', pdns.apiKey);
    if (options.overlaid) [clients.overlaid, clients.wrongKey] = await Promise.all([start('powerdns-overlaid', pdns.apiKey), start('powerdns', 'not-the-key')]);
    tools = new Set((await clients.main.listTools()).tools.map((t) => t.name));
  });

  after(async () => {
    await Promise.allSettled(Object.values(clients).map((client) => client.close()));
    await pdns?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const api = (path: string, init?: ApiInit): ReturnType<PowerDnsServer['api']> => pdns!.api(path, init);
  const ok = async (path: string, init?: ApiInit): Promise<any> => {
    const response = await api(path, init);
    assert.ok(response.status >= 200 && response.status < 300, `${init?.method ?? 'GET'} ${path}: HTTP ${response.status}: ${response.text}`);
    return response.body;
  };
  return {
    pdns: () => pdns!,
    tools: () => tools,
    published: () => published,
    tool: (name, args = {}, client) => call(clients[client ?? 'main']!, tools, name, args),
    api,
    ok,
    arrangeZone: async (label, more = {}) =>
      ((await ok('/zones?rrsets=false', { body: { name: zoneName(label), kind: 'Native', nameservers: [`ns1.${zoneName(label)}`], ...more } })) as { id: string }).id,
    arrangeRRset: (zoneId, rrset) => ok(`/zones/${zoneId}`, { method: 'PATCH', body: { rrsets: [{ changetype: 'REPLACE', ...rrset }] } }),
    rrsetOnServer: async (zoneId, name, type) =>
      ((await ok(`/zones/${zoneId}`)) as { rrsets: { name: string; type: string }[] }).rrsets.find((r) => r.name === name && r.type === type),
    zoneNames: async () => ((await ok('/zones')) as { name: string }[]).map((z) => z.name),
  };
}
