/**
 * A stand-in for the Azure CLI, as Azure.Identity's AzureCliCredential (and DefaultAzureCredential, which
 * includes it) runs it: `/bin/sh -c "az account get-access-token --output json --resource <resource>"`, with
 * ` --tenant <id>` or ` --subscription "<id>"` when the credential names one, in the working directory /bin/
 * and with the caller's PATH (/usr/bin:/usr/local/bin when PATH is empty). So a test puts the folder this
 * writes first on the PATH of the process that runs Azure.Identity (Azure.Core 1.53's Identity code, which
 * Azure.Identity 1.21 forwards to). The credential reads `accessToken` and `expires_on` (else `expiresOn`,
 * local time, `yyyy-MM-dd HH:mm:ss.ffffff`); a message on stderr that mentions `az login` makes it
 * "unavailable" (DefaultAzureCredential then tries the next credential).
 *
 * The fake prints what the real CLI prints for `az account get-access-token --output json` (also with
 * `--scope`, which the real CLI takes instead of `--resource`) and `az account show --output json`, and logs
 * every run (arguments, time, working directory, exit code, the token's id) as one JSON line in a log file
 * the test reads: which resource was asked for, and whether tokens are cached (the CLI is not run for every
 * request). Its tokens are JWTs signed with HMAC-SHA256 under a secret the test shares with
 * test/support/azure-api.ts, which accepts them for their audience until they expire: they carry `aud` (the
 * resource asked for), `tid`, `exp` and a unique `jti`.
 *
 * Files written in the folder: `az` (a /bin/sh script that runs `az.mjs` with this Node), `az.mjs`,
 * `fake-az.json` (its settings, which {@link FakeAz.configure} rewrites between runs) and `fake-az.log`.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The resource Azure Resource Manager tokens are for (the scope `https://management.azure.com/.default`). */
export const ARM_RESOURCE = 'https://management.azure.com';
/** The resource Microsoft Graph tokens are for (the scope `https://graph.microsoft.com/.default`). */
export const GRAPH_RESOURCE = 'https://graph.microsoft.com';
/** The scopes a client asks Azure.Identity for: ARM's and Graph's `.default`. */
export const ARM_SCOPE = `${ARM_RESOURCE}/.default`;
export const GRAPH_SCOPE = `${GRAPH_RESOURCE}/.default`;
/** The tenant the fake CLI is signed in to. */
export const FAKE_TENANT = '72f988bf-0000-4000-8000-00000000a2ad';
/** The subscription `az account show` names by default (the stand-in ARM's first subscription). */
export const FAKE_SUBSCRIPTION = '00000000-0000-0000-0000-000000000001';

export interface FakeAzSettings {
  /** The HMAC secret the tokens are signed with (share it with the stand-in API). */
  secret: string;
  tenant: string;
  subscription: string;
  /** Lifetime of each token, in seconds (default 3600; a short one tests refresh). */
  expiresInSeconds: number;
  /** How long each run takes before answering, in milliseconds (the real CLI takes about a second). */
  delayMs: number;
  /** When true, `get-access-token` fails as the real CLI does when nobody is signed in. */
  loggedOut: boolean;
}

export interface FakeAzInvocation {
  /** When the run started (ISO 8601). */
  time: string;
  /** The arguments after `az`. */
  argv: string[];
  /** `--resource`, or the resource of `--scope` (without `/.default`); undefined for other commands. */
  resource?: string;
  scope?: string;
  tenant?: string;
  subscription?: string;
  /** The working directory it ran in (AzureCliCredential uses /bin/). */
  cwd: string;
  /** The PATH it ran with. */
  path: string;
  exitCode: number;
  /** The `jti` of the token it printed. */
  tokenId?: string;
}

export interface FakeAz {
  /** The folder with the `az` script: put it first on PATH. */
  readonly folder: string;
  /** The `az` script. */
  readonly path: string;
  readonly logFile: string;
  readonly secret: string;
  readonly tenant: string;
  readonly subscription: string;
  /** Each run so far, oldest first. */
  invocations(): FakeAzInvocation[];
  /** The runs that printed a token. */
  tokenRuns(): FakeAzInvocation[];
  /** Changes settings for the runs to come. */
  configure(change: Partial<Omit<FakeAzSettings, 'secret'>>): void;
  /** `path` (default: this process's PATH) with the fake's folder first. */
  pathWith(path?: string): string;
}

export interface TokenClaims {
  aud: string;
  iss: string;
  tid: string;
  oid: string;
  upn: string;
  name: string;
  appid: string;
  scp: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
  ver: string;
}

/**
 * Signs `claims` as an HS256 JWT. Self-contained (it uses only its arguments and Buffer): its source is copied
 * into the fake CLI's script, so both sign alike.
 */
function signJwt(hmac: typeof createHmac, secret: string, claims: object): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${body}.${hmac('sha256', secret).update(body).digest('base64url')}`;
}

/**
 * The claims of a token for `resource` that `az` prints at `now` (Unix seconds). Self-contained like
 * {@link signJwt}: the fake CLI's script has a copy.
 */
function claimsAt(random: typeof randomBytes, resource: string, tenant: string, lifetimeSeconds: number, now: number): TokenClaims {
  return {
    aud: resource,
    iss: `https://sts.windows.net/${tenant}/`,
    tid: tenant,
    oid: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
    upn: 'developer@contoso.example',
    name: 'Fake Developer',
    // The Azure CLI's own client id, as in the real CLI's tokens.
    appid: '04b07795-8ddb-461a-bbee-02f9e1bf7b46',
    scp: resource.replace(/\/+$/, '') === 'https://graph.microsoft.com' ? 'User.Read.All User.ReadWrite.All' : 'user_impersonation',
    iat: now,
    nbf: now - 300,
    exp: now + lifetimeSeconds,
    jti: random(9).toString('base64url'),
    ver: '1.0',
  };
}

/** A token signed with `secret`, as the fake CLI prints: for tests that need one without running the CLI (an expired one, another audience). */
export function mintToken(secret: string, resource: string, overrides: Partial<TokenClaims> & { lifetimeSeconds?: number } = {}): string {
  const { lifetimeSeconds, ...claims } = overrides;
  const tenant = claims.tid ?? FAKE_TENANT;
  return signJwt(createHmac, secret, { ...claimsAt(randomBytes, resource, tenant, lifetimeSeconds ?? 3600, Math.floor(Date.now() / 1000)), ...claims });
}

export type TokenCheck =
  | { ok: true; claims: TokenClaims }
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' | 'not-yet-valid'; claims?: TokenClaims };

/** Whether `token` was signed with `secret` and is valid now (the audience is the caller's to check). */
export function verifyToken(secret: string, token: string, nowSeconds = Math.floor(Date.now() / 1000)): TokenCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) return { ok: false, reason: 'malformed' };
  const [header, payload, signature] = parts as [string, string, string];
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
  let claims: TokenClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) return { ok: false, reason: 'expired', claims };
  if (typeof claims.nbf === 'number' && claims.nbf > nowSeconds + 300) return { ok: false, reason: 'not-yet-valid', claims };
  return { ok: true, claims };
}

/** The claims of a JWT, unverified (for tests that look at what a server sent). */
export function tokenClaims(token: string): TokenClaims | undefined {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as TokenClaims;
  } catch {
    return undefined;
  }
}

/** The fake CLI itself (an ES module run by Node), reading its settings from fake-az.json beside it. */
function script(): string {
  return `// The fake Azure CLI written by test/support/fake-az.ts: see there.
import { createHmac, randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

${signJwt.toString()}

${claimsAt.toString()}

const here = dirname(fileURLToPath(import.meta.url));
const settings = JSON.parse(readFileSync(join(here, 'fake-az.json'), 'utf8'));
const args = process.argv.slice(2);
const started = new Date();
const record = { time: started.toISOString(), argv: args, cwd: process.cwd(), path: process.env.PATH ?? '' };

/** The values after --name, up to the next option (the CLI's --scope takes several). */
function values(name) {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const found = [];
  for (let i = at + 1; i < args.length && !args[i].startsWith('--'); i++) found.push(args[i]);
  return found;
}
const value = (name) => values(name)?.[0];

function finish(exitCode, stdout, stderr, extra = {}) {
  appendFileSync(join(here, 'fake-az.log'), JSON.stringify({ ...record, ...extra, exitCode }) + '\\n');
  if (stdout) process.stdout.write(stdout);
  if (stderr) process.stderr.write(stderr);
  process.exitCode = exitCode;
}

/** Local time as the CLI prints expiresOn: yyyy-MM-dd HH:mm:ss.ffffff */
function localTime(date) {
  const two = (n) => String(n).padStart(2, '0');
  return \`\${date.getFullYear()}-\${two(date.getMonth() + 1)}-\${two(date.getDate())} \${two(date.getHours())}:\${two(date.getMinutes())}:\${two(date.getSeconds())}.\${String(date.getMilliseconds() * 1000).padStart(6, '0')}\`;
}

if (settings.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, settings.delayMs));

if (args[0] === '--version' || args[0] === 'version') {
  finish(0, 'azure-cli                         2.67.0 (fake, test/support/fake-az.ts)\\n');
} else if (args[0] === 'account' && args[1] === 'show') {
  if (settings.loggedOut) finish(1, '', "ERROR: Please run 'az login' to setup account.\\n");
  else finish(0, JSON.stringify({
    environmentName: 'AzureCloud', homeTenantId: settings.tenant, id: settings.subscription, isDefault: true,
    managedByTenants: [], name: 'Fake Subscription', state: 'Enabled', tenantId: settings.tenant,
    user: { name: 'developer@contoso.example', type: 'user' },
  }, null, 2) + '\\n');
} else if (args[0] === 'account' && args[1] === 'get-access-token') {
  const scopes = values('--scope');
  let resource = value('--resource') ?? value('--resource-type');
  const tenant = value('--tenant');
  const subscription = value('--subscription');
  const asked = { resource, scope: scopes?.join(' '), tenant, subscription };
  if (settings.loggedOut) {
    finish(1, '', "ERROR: Please run 'az login' to setup account.\\n", asked);
  } else if (resource !== undefined && scopes !== undefined) {
    finish(2, '', "ERROR: usage error: --resource/--resource-type/--scope are mutually exclusive\\n", asked);
  } else if (tenant !== undefined && subscription !== undefined) {
    finish(2, '', "ERROR: usage error: --tenant and --subscription can't be used together\\n", asked);
  } else if (scopes !== undefined && scopes.length !== 1) {
    finish(1, '', 'ERROR: AADSTS70011: The provided request must include a single resource in its scopes.\\n', asked);
  } else {
    // The CLI's default resource is the classic management endpoint; a scope's resource is the scope without /.default.
    resource ??= scopes !== undefined ? scopes[0].replace(/\\/\\.default$/, '') : 'https://management.core.windows.net/';
    const tid = tenant ?? settings.tenant;
    const claims = claimsAt(randomBytes, resource, tid, settings.expiresInSeconds, Math.floor(started.getTime() / 1000));
    const token = signJwt(createHmac, settings.secret, claims);
    finish(0, JSON.stringify({
      accessToken: token,
      expiresOn: localTime(new Date(claims.exp * 1000)),
      expires_on: claims.exp,
      subscription: subscription ?? settings.subscription,
      tenant: tid,
      tokenType: 'Bearer',
    }, null, 2) + '\\n', '', { ...asked, resource, tokenId: claims.jti });
  }
} else {
  finish(2, '', \`ERROR: '\${args.join(' ')}' is misspelled or not recognized by the system (this fake az knows account get-access-token and account show).\\n\`);
}
`;
}

/** A shell-quoted word. */
const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Writes the fake `az` into `folder` (which must exist) and returns its handle. Settings not given: a random
 * secret, {@link FAKE_TENANT}, {@link FAKE_SUBSCRIPTION}, tokens for an hour, no delay, signed in.
 */
export function writeFakeAz(folder: string, settings: Partial<FakeAzSettings> = {}): FakeAz {
  const full: FakeAzSettings = {
    secret: settings.secret ?? randomBytes(24).toString('base64url'),
    tenant: settings.tenant ?? FAKE_TENANT,
    subscription: settings.subscription ?? FAKE_SUBSCRIPTION,
    expiresInSeconds: settings.expiresInSeconds ?? 3600,
    delayMs: settings.delayMs ?? 0,
    loggedOut: settings.loggedOut ?? false,
  };
  const settingsFile = join(folder, 'fake-az.json');
  const logFile = join(folder, 'fake-az.log');
  const path = join(folder, 'az');
  writeFileSync(join(folder, 'az.mjs'), script());
  writeFileSync(settingsFile, JSON.stringify(full, null, 2));
  writeFileSync(logFile, '');
  writeFileSync(path, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(join(folder, 'az.mjs'))} "$@"\n`);
  chmodSync(path, 0o755);
  const invocations = (): FakeAzInvocation[] => existsSync(logFile)
    ? readFileSync(logFile, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as FakeAzInvocation)
    : [];
  return {
    folder,
    path,
    logFile,
    secret: full.secret,
    tenant: full.tenant,
    subscription: full.subscription,
    invocations,
    tokenRuns: () => invocations().filter((run) => run.tokenId !== undefined),
    configure(change) {
      const current = JSON.parse(readFileSync(settingsFile, 'utf8')) as FakeAzSettings;
      writeFileSync(settingsFile, JSON.stringify({ ...current, ...change, secret: current.secret }, null, 2));
    },
    pathWith: (base = process.env.PATH ?? '') => (base ? `${folder}${delimiter}${base}` : folder),
  };
}
