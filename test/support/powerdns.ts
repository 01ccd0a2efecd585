/**
 * PowerDNS Authoritative Server for the real-API tests: installed from Debian (`pdns-server`, with the SQLite
 * backend `pdns-backend-sqlite3`), run in the foreground on 127.0.0.1 with its HTTP API on one free port and its
 * DNS listener on another, its configuration and SQLite database in a scratch folder. Besides the HTTP API, the
 * tests check what the server has with `pdnsutil` (same configuration), the database itself (`sqlite3`) and DNS
 * queries (`dig`).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO } from './golden.js';
import { scratchDir } from './scratch.js';
import { freePort, requireFile, requireProgram, startProcess, withFreshPorts, type RealServer } from './real-apis.js';

const run = promisify(execFile);

/** The document PowerDNS publishes, at the version Debian bookworm ships (see test/fixtures/real-apis/README.md). */
export const POWERDNS_SPEC = join(REPO, 'test/fixtures/real-apis/pdns-auth-4.7.3.yaml');
/** An overlay that fixes where the document is wrong about deleting an RRSet (it requires `ttl` and `records`). */
export const POWERDNS_RRSET_OVERLAY = join(REPO, 'test/fixtures/real-apis/pdns-rrset-delete.overlay.yaml');
/** The schema the SQLite backend package ships. */
const SQLITE_SCHEMA = '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql';

/** Installs what the PowerDNS checks need (apt-get, when root): the server, its SQLite backend, sqlite3 and dig. */
export function requirePowerDns(): void {
  requireProgram('pdns_server', 'pdns-server');
  requireFile(SQLITE_SCHEMA, 'pdns-backend-sqlite3');
  requireProgram('sqlite3', 'sqlite3');
  requireProgram('dig', 'bind9-dnsutils');
}

export interface DnsAnswer {
  /** NOERROR, NXDOMAIN, REFUSED… */
  readonly status: string;
  /** The answer section's records as `name ttl class type data`, whitespace collapsed. */
  readonly answers: string[];
}

export interface PowerDnsServer extends RealServer {
  /** The HTTP API's base URL, http://127.0.0.1:<port>/api/v1. */
  readonly baseUrl: string;
  /** The API key the server was started with (its X-API-Key header). */
  readonly apiKey: string;
  /** The DNS listener's UDP and TCP port on 127.0.0.1. */
  readonly dnsPort: number;
  /** A request to the HTTP API under /api/v1/servers/localhost (with the key): its status and body (JSON when it is JSON). */
  api(path: string, init?: { method?: string; body?: unknown; accept?: string }): Promise<{ status: number; body: any; text: string }>;
  /** `pdnsutil` with the server's configuration: its output, or an error with it. */
  pdnsutil(...args: string[]): Promise<string>;
  /** One SQL statement on the server's database (sqlite3, `|`-separated rows). */
  sql(statement: string): Promise<string>;
  /** A DNS query to the server (dig, no recursion). */
  dig(name: string, type: string): Promise<DnsAnswer>;
}

/** PowerDNS with the gsqlite3 backend (DNSSEC on), the API on, security polling off, everything on 127.0.0.1. */
export function startPowerDns(): Promise<PowerDnsServer> {
  return withFreshPorts(startPowerDnsOnce);
}

async function startPowerDnsOnce(): Promise<PowerDnsServer> {
  const program = requireProgram('pdns_server', 'pdns-server');
  const sqlite3 = requireProgram('sqlite3', 'sqlite3');
  const pdnsutilProgram = requireProgram('pdnsutil', 'pdns-server');
  const digProgram = requireProgram('dig', 'bind9-dnsutils');
  const folder = scratchDir('pdns');
  const database = join(folder, 'pdns.sqlite3');
  await run(sqlite3, [database, `.read ${requireFile(SQLITE_SCHEMA, 'pdns-backend-sqlite3')}`]);
  const [webPort, dnsPort] = [await freePort(), await freePort()];
  const apiKey = `key-${randomBytes(12).toString('hex')}`;
  await writeFile(join(folder, 'pdns.conf'), [
    'launch=gsqlite3',
    `gsqlite3-database=${database}`,
    'gsqlite3-dnssec=yes',
    'api=yes',
    `api-key=${apiKey}`,
    'webserver=yes',
    'webserver-address=127.0.0.1',
    `webserver-port=${webPort}`,
    'webserver-allow-from=127.0.0.1',
    'local-address=127.0.0.1',
    `local-port=${dnsPort}`,
    // No security-status query to the Internet.
    'security-poll-suffix=',
    '',
  ].join('\n'));
  const origin = `http://127.0.0.1:${webPort}`;
  const baseUrl = `${origin}/api/v1`;
  const api: PowerDnsServer['api'] = async (path, init = {}) => {
    const response = await fetch(`${baseUrl}/servers/localhost${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { 'x-api-key': apiKey, ...(init.accept && { accept: init.accept }), ...(init.body !== undefined && { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(5_000),
    });
    const text = await response.text();
    let body: unknown = text;
    if (/json/.test(response.headers.get('content-type') ?? '') && text !== '') body = JSON.parse(text);
    return { status: response.status, body, text };
  };
  const server = await startProcess('PowerDNS', program, [
    `--config-dir=${folder}`,
    '--daemon=no',
    '--guardian=no',
    '--disable-syslog',
    `--socket-dir=${folder}`,
  ], folder, origin, async () => (await api('')).status === 200);
  return {
    ...server,
    baseUrl,
    apiKey,
    dnsPort,
    api,
    pdnsutil: async (...args) => (await run(pdnsutilProgram, [`--config-dir=${folder}`, ...args])).stdout,
    sql: async (statement) => (await run(sqlite3, [database, statement])).stdout,
    async dig(name, type) {
      const { stdout } = await run(digProgram, [`@127.0.0.1`, '-p', String(dnsPort), '+norecurse', '+nosplit', '+tries=1', '+time=3', name, type]);
      const status = /status: ([A-Z]+)/.exec(stdout)?.[1] ?? `no status in: ${stdout}`;
      const section = /;; ANSWER SECTION:\n([\s\S]*?)(?:\n\n|$)/.exec(stdout)?.[1] ?? '';
      return { status, answers: section.split('\n').filter((line) => line.trim()).map((line) => line.trim().split(/\s+/).join(' ')) };
    },
  };
}
