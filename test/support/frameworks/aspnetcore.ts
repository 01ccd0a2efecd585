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
 *
 * Below the app, what the framework test needs of the servers generated from its documents: their generation, build
 * and start, and the small helpers its checks share.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SignJWT } from 'jose';
import { environmentVariables } from '../../../src/names/environment.js';
import { connect } from '../../../examples/harness.js';
import { REPO } from '../golden.js';
import { scratchDir } from '../scratch.js';
import { buildProjects, initProject, projectDll } from '../real-api-projects.js';
import { fetchJson, freePort, requireProgram, startProcess, withFreshPorts, type Answer, type RealServer } from '../real-apis.js';

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

/** A JSON value as the checks read it: an answer, a row, a schema. */
export type Json = Record<string, any>;

/** The tools of each generated server, one per operation of the document, sorted. */
export const SHOP_TOOLS = [
  'create_order', 'create_product', 'create_product_image', 'delete_order', 'delete_product', 'get_order', 'get_product',
  'list_orders', 'list_products', 'update_order_shipment', 'update_product',
];
/** The three documents, in the order the checks run over them. */
export const SHOP_DOCUMENT_NAMES: readonly ShopDocument[] = ['microsoft', 'swashbuckle', 'nswag'];
/** The environment variables of the generated servers: the app's URL, its API key and a bearer token. */
const VARIABLES = { baseUrl: environmentVariables('Shop').baseUrl, apiKey: 'SHOP_API_KEY', bearer: 'SHOP_BEARER_TOKEN' };

/** The generated servers, by document, and what their tools/list publishes. */
export interface ShopServers {
  /** Each server with the app's API key and a token of its own subject (`mcp-<document>`). */
  readonly clients: Map<ShopDocument, Client>;
  /** Each server with a wrong API key and an expired token. */
  readonly strangers: Map<ShopDocument, Client>;
  readonly tools: Map<ShopDocument, Set<string>>;
  /** The input schema of each tool, by tool name. */
  readonly schemas: Map<ShopDocument, Map<string, Json>>;
}

/**
 * `init` of a project from each document as `shop` serves it (NSwag's with SHOP_NSWAG_OVERLAY) into `work/<document>`,
 * one `dotnet build` of the three, then each server started twice (see ShopServers) and its tools listed. The servers
 * go into `servers` as each connects, so that those connected are closed even when a later one fails.
 */
export async function setUpShopServers(work: string, shop: ShopServer, servers: ShopServers): Promise<void> {
  for (const document of SHOP_DOCUMENT_NAMES) {
    const overlay = document === 'nswag' ? ['--overlay', SHOP_NSWAG_OVERLAY] : [];
    const init = await initProject(work, shop.documentUrl(document), 'Shop', document, ...overlay);
    assert.equal(init.code, 0, init.errors);
  }
  const output = await buildProjects(work, SHOP_DOCUMENT_NAMES.map((document) => `${document}/Shop.csproj`));
  assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
  const expired = Math.floor(Date.now() / 1000) - 600;
  await Promise.all(SHOP_DOCUMENT_NAMES.map(async (document) => {
    const dll = projectDll(work, document, 'Shop');
    servers.clients.set(document, await connect(dll, { [VARIABLES.baseUrl]: shop.origin, [VARIABLES.apiKey]: shop.apiKey, [VARIABLES.bearer]: await shop.token(`mcp-${document}`) }));
    servers.strangers.set(document, await connect(dll, { [VARIABLES.baseUrl]: shop.origin, [VARIABLES.apiKey]: `not-${shop.apiKey}`, [VARIABLES.bearer]: await shop.token(`mcp-${document}`, expired) }));
    const listed = (await servers.clients.get(document)!.listTools()).tools;
    servers.tools.set(document, new Set(listed.map((t) => t.name)));
    servers.schemas.set(document, new Map(listed.map((t) => [t.name, t.inputSchema as Json])));
  }));
}

/** Every text block of a successful answer: the answer, then what the server adds beside it (response headers). */
export async function textBlocks(client: Client, name: string, args: Json): Promise<string[]> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 });
  const texts = (result.content as { text?: string }[]).map((c) => c.text ?? '');
  assert.notEqual(result.isError, true, texts[0]);
  return texts;
}

/** That the answer is an error whose text matches each reason. */
export function assertError(answer: Answer, ...reasons: RegExp[]): void {
  assert.equal(answer.isError, true, `not an error: ${answer.text.slice(0, 300)}`);
  for (const reason of reasons) assert.match(answer.text, reason);
}

/** A day `days` from today, as DateOnly writes it (yyyy-MM-dd). */
export const day = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
/** `text` as an SQL string literal. */
export const quote = (text: string): string => `'${text.replaceAll("'", "''")}'`;
/** The types a JSON schema allows, `type` as a list. */
export const types = (schema: Json): string[] => [schema.type ?? []].flat();
