/**
 * The ASP.NET Core app of test/fixtures/frameworks/aspnetcore (net10.0): a small shop, products as Minimal APIs with
 * TypedResults and orders as an [ApiController], which serves the OpenAPI document of its endpoints three times,
 * each written at run time by another generator:
 *   Microsoft.AspNetCore.OpenApi 10.0.15 at /openapi/v1.json (OpenAPI 3.1),
 *   Swashbuckle.AspNetCore 10.3.1      at /swagger/v1/swagger.json (OpenAPI 3.0),
 *   NSwag.AspNetCore 14.8.0            at /nswag/v1/openapi.json (OpenAPI 3.0).
 * It is built once per test run into a scratch folder (`dotnet build --artifacts-path`: no bin or obj in the repo;
 * NuGet restores its packages), then started with `dotnet Shop.dll --urls http://127.0.0.1:<port>`, its state a
 * SQLite database file in a scratch folder that the tests read with the sqlite3 CLI (Debian's, installed when
 * missing). Its API key and the symmetric key of its JWT bearer tokens are made for each start.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { REPO } from '../golden.js';
import { scratchDir } from '../scratch.js';
import { fetchJson, freePort, requireProgram, startProcess, withFreshPorts, type RealServer } from '../real-apis.js';

export const SHOP_APP = join(REPO, 'test/fixtures/frameworks/aspnetcore');
/** The overlay that fixes what NSwag's document says wrongly about the upload (its caption, its file). */
export const SHOP_NSWAG_OVERLAY = join(SHOP_APP, 'nswag-upload.overlay.yaml');
export const SHOP_ISSUER = 'shop';
export const SHOP_AUDIENCE = 'shop-api';

/** The three documents of the app: where each generator serves its own. */
export const SHOP_DOCUMENTS = {
  microsoft: { path: '/openapi/v1.json', generator: 'Microsoft.AspNetCore.OpenApi 10.0.15' },
  swashbuckle: { path: '/swagger/v1/swagger.json', generator: 'Swashbuckle.AspNetCore 10.3.1' },
  nswag: { path: '/nswag/v1/openapi.json', generator: 'NSwag.AspNetCore 14.8.0' },
} as const;
export type ShopDocument = keyof typeof SHOP_DOCUMENTS;

/**
 * `dotnet build` of the app into a scratch folder (Debug, warnings as errors): the path of Shop.dll. The first build
 * restores its NuGet packages (about a minute); later ones take some 20 s on two cores.
 */
export async function buildShop(): Promise<string> {
  const artifacts = scratchDir('aspnetcore-build');
  try {
    await promisify(execFile)('dotnet', ['build', join(SHOP_APP, 'Shop.csproj'), '--artifacts-path', artifacts, '-warnaserror', '-nologo', '-clp:NoSummary'], { maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    throw new Error(`dotnet build of ${SHOP_APP} failed:\n${failure.stdout ?? ''}${failure.stderr ?? ''}`);
  }
  return join(artifacts, 'bin/Shop/debug/Shop.dll');
}

export interface ShopServer extends RealServer {
  /** The API key the app takes (header X-Api-Key). */
  readonly apiKey: string;
  /** The URL of a generator's document. */
  documentUrl(document: ShopDocument): string;
  /** A JWT signed with the app's key (HS256), its issuer and audience, for `subject`, expiring in `expiration` ('2h') or at that time (seconds since 1970). */
  token(subject: string, expiration?: string | number): Promise<string>;
  /** Rows of a query run on the app's SQLite database file (sqlite3 CLI, JSON mode). */
  rows(sql: string): Record<string, unknown>[];
  /** A request to the app (path from the root) with its API key and a bearer token of subject `arranger`. */
  api(path: string, init?: Parameters<typeof fetchJson>[1]): Promise<any>;
}

/** The app built at `dll`, started on a free port of 127.0.0.1 with a fresh database. */
export function startShop(dll: string): Promise<ShopServer> {
  return withFreshPorts(() => startOnce(dll));
}

async function startOnce(dll: string): Promise<ShopServer> {
  const sqlite3 = requireProgram('sqlite3', 'sqlite3');
  const folder = scratchDir('aspnetcore');
  const apiKey = randomBytes(18).toString('base64url');
  const signingKey = randomBytes(32);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    Shop__DataFolder: folder,
    Shop__ApiKey: apiKey,
    Jwt__SigningKey: signingKey.toString('base64'),
    Jwt__Issuer: SHOP_ISSUER,
    Jwt__Audience: SHOP_AUDIENCE,
    Logging__LogLevel__Default: 'Warning',
    DOTNET_NOLOGO: '1',
  };
  const server = await startProcess('the ASP.NET Core shop', 'dotnet', [dll, '--urls', origin], folder, origin,
    async () => (await fetch(`${origin}/openapi/v1.json`, { signal: AbortSignal.timeout(5_000) })).ok, env);
  const token = (subject: string, expiration: string | number = '2h'): Promise<string> => new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(subject)
    .setIssuer(SHOP_ISSUER)
    .setAudience(SHOP_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(expiration)
    .sign(signingKey);
  const arranger = await token('arranger');
  const database = join(folder, 'shop.sqlite');
  return {
    ...server,
    apiKey,
    documentUrl: (document) => `${origin}${SHOP_DOCUMENTS[document].path}`,
    token,
    rows: (sql) => JSON.parse(execFileSync(sqlite3, ['-json', database, sql], { encoding: 'utf8' }) || '[]') as Record<string, unknown>[],
    api: (path, init = {}) => fetchJson(`${origin}${path}`, { ...init, headers: { 'x-api-key': apiKey, authorization: `Bearer ${arranger}`, ...init.headers } }),
  };
}
