/**
 * `bundle`: an init project published and packed as an MCP Bundle (`.mcpb`). The official mcpb CLI validates its
 * manifest; the bundle is unpacked with the official library, and the server is started exactly as the manifest's
 * `server.mcp_config` says, with `${__dirname}` and `${user_config.*}` replaced by the official library's
 * getMcpConfigForManifest (the MCPB reference for what a host such as Claude Desktop fills in), for a real MCP client to list and
 * call the tools against the library API on 127.0.0.1, which sees the credential typed into user_config.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { getMcpConfigForManifest, MANIFEST_SCHEMAS, unpackExtension, type McpbManifestAny } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { planNames, prepare, runCli, selectOperations } from '../src/index.js';
import { emitMcpbManifest } from '../src/emit/project/mcpb.js';
import { LIBRARY_KEY, LIBRARY_SPEC, startLibraryApi, type LibraryApi } from './support/library-api.js';
import { scratchDir } from './support/scratch.js';

/** The official mcpb command line, as installed. */
const MCPB_CLI = join(dirname(createRequire(import.meta.url).resolve('@anthropic-ai/mcpb')), 'cli', 'cli.js');
/** A key left in the project's appsettings.json on the machine that bundles it: it must not travel. */
const LOCAL_KEY = 'appsettings-SENTINEL-key-77c1';

/** A 2×2 PNG image, made here (the icon Claude Desktop shows). */
function png(): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.from([0, 255, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 0, 255, 255]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows.subarray(0, 14))), chunk('IEND', Buffer.alloc(0))]);
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

function mcpb(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [MCPB_CLI, ...args], { encoding: 'utf8' });
  return { status: result.status, output: result.stdout + result.stderr };
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Unpacks a bundle and starts its server as Claude Desktop does, with what the user typed into its settings. */
async function install(bundle: string, folder: string, userConfig: Record<string, string>): Promise<{ manifest: McpbManifestAny; client: Client; config: { command: string; args?: string[]; env?: Record<string, string> } }> {
  assert.equal(await unpackExtension({ mcpbPath: bundle, outputDir: folder, silent: true }), true);
  const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as McpbManifestAny;
  const config = await getMcpConfigForManifest({
    manifest, extensionPath: folder, userConfig, pathSeparator: sep,
    systemDirs: { HOME: homedir(), DESKTOP: join(homedir(), 'Desktop'), DOCUMENTS: join(homedir(), 'Documents'), DOWNLOADS: join(homedir(), 'Downloads') },
  });
  assert.ok(config, 'the manifest gives no server configuration for these settings');
  // The client's transport adds only its default environment (PATH, HOME, ...) to the manifest's env.
  const transport = new StdioClientTransport({ command: config.command, args: config.args ?? [], env: config.env ?? {}, stderr: 'pipe' });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (log = (log + chunk.toString('utf8')).slice(-8000)));
  const client = new Client({ name: 'bundle-test', version: '1.0.0' });
  await client.connect(transport).catch((error: unknown) => assert.fail(`${config.command} did not start: ${String(error)}\n${log}`));
  return { manifest, client, config };
}

async function callText(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args }) as { content: { text?: string }[]; isError?: boolean };
  return { text: result.content.map((c) => c.text ?? '').join(''), isError: result.isError === true };
}

describe('an MCP Bundle of a generated server', () => {
  const work = scratchDir('bundle');
  const project = join(work, 'library');
  const bundle = join(project, 'library.mcpb');
  let api: LibraryApi;
  let made: { code: number; out: string; err: string };
  const clients: Client[] = [];

  before(async () => {
    api = await startLibraryApi();
    assert.equal((await cli(['init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Library', '--output-dir', project])).code, 0);
    await writeFile(join(project, 'appsettings.json'), JSON.stringify({ LIBRARY_API_KEY: LOCAL_KEY }));
    await writeFile(join(work, 'icon.png'), png());
    made = await cli(['bundle', '--project-dir', project, '--icon', join(work, 'icon.png'), '--author', 'Library team']);
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await api.close();
  });

  test('writes the bundle, whose manifest the official mcpb validate accepts', () => {
    assert.equal(made.code, 0, made.err);
    assert.match(made.out, new RegExp(`^Wrote ${bundle.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\([\\d.]+ MB, 7 tools, started with dotnet\\)`));
    const validated = mcpb('validate', join(project, 'bin/mcpb/manifest.json'));
    assert.equal(validated.status, 0, validated.output);
    assert.match(validated.output, /Manifest schema validation passes/);
  });

  test('the server starts as the manifest says and calls the API with the key from user_config', async () => {
    const folder = join(work, 'installed');
    const { manifest, client, config } = await install(bundle, folder, { base_url: api.url, api_key: LIBRARY_KEY });
    clients.push(client);
    assert.deepEqual({ command: config.command, args: config.args }, { command: 'dotnet', args: [join(folder, 'server/Library.dll')] });
    // What the user typed, and the optional headers left empty: empty, not the reference unreplaced.
    assert.deepEqual(config.env, { LIBRARY_BASE_URL: api.url, LIBRARY_API_KEY: LIBRARY_KEY, LIBRARY_HEADERS: '' });

    // tools/list is what the manifest announces, name for name and description for description.
    const listed = (await client.listTools()).tools.map((t) => ({ name: t.name, description: t.description }));
    assert.deepEqual(listed, manifest.tools);
    assert.equal(listed.length, 7);

    const book = await callText(client, 'get_book', { bookId: 3 });
    assert.equal(book.isError, false, book.text);
    assert.equal((JSON.parse(book.text) as { title: string }).title, 'Book 3');
    // The API answers only the right key (401 otherwise); the key it saw is the one typed into user_config.
    const at = api.requests.indexOf('GET /books/3');
    assert.ok(at >= 0, api.requests.join('\n'));
    assert.equal(api.keys[at], LIBRARY_KEY);
    // The server knows it as a secret: an answer that would show it shows [redacted].
    const echo = await callText(client, 'get_echo', {});
    assert.equal((JSON.parse(echo.text) as Record<string, string>)['x-api-key'], '[redacted]');
  });

  test('the manifest asks for the base URL and the credential (sensitive), and the bundle holds no credential', () => {
    const manifest = JSON.parse(readFileSync(join(work, 'installed/manifest.json'), 'utf8')) as Record<string, any>;
    assert.deepEqual(manifest.user_config.base_url, { type: 'string', title: 'API base URL', description: 'Base URL of the API (http or https); the spec\'s is http://127.0.0.1:9/', required: false, default: 'http://127.0.0.1:9/' });
    assert.equal(manifest.user_config.api_key.sensitive, true);
    assert.equal(manifest.user_config.api_key.required, true, 'every operation needs the key');
    assert.equal(manifest.user_config.api_key.default, undefined);
    assert.equal(manifest.user_config.headers.sensitive, true);
    assert.deepEqual(manifest.server.mcp_config.env, { LIBRARY_BASE_URL: '${user_config.base_url}', LIBRARY_API_KEY: '${user_config.api_key}', LIBRARY_HEADERS: '${user_config.headers}' });
    assert.deepEqual({ author: manifest.author, icon: manifest.icon }, { author: { name: 'Library team' }, icon: 'icon.png' });
    assert.deepEqual(readFileSync(join(work, 'installed/icon.png')), png());
    const files = filesUnder(join(work, 'installed'));
    assert.ok(files.some((f) => f.endsWith('Library.dll')));
    for (const file of files) {
      const text = readFileSync(file).toString('latin1');
      assert.ok(!text.includes(LOCAL_KEY), `${file} holds the machine's key from appsettings.json`);
      assert.ok(!text.includes(LIBRARY_KEY), `${file} holds the key`);
      // Built deterministically with source paths mapped: nothing names the folder (or machine) it was built in.
      assert.ok(!text.includes(project), `${file} holds the builder's path ${project}`);
    }
  });

  test('an existing bundle is kept: one line, exit 4, the file unchanged', async () => {
    const before = sha(bundle);
    const again = await cli(['bundle', '--project-dir', project]);
    assert.equal(again.code, 4);
    assert.equal(again.err, `error: ${bundle}: exists: pass --force to replace it\n`);
    assert.equal(sha(bundle), before);
  });

  test('a bundle that cannot be packed leaves the existing one as it was, even with --force', async () => {
    const before = sha(bundle);
    const failed = await cli(['bundle', '--project-dir', project, '--force', '--mcpb', join(work, 'no-such-mcpb')]);
    assert.equal(failed.code, 4);
    assert.match(failed.err, /\nerror: mcpb validate failed \(cannot start \S*no-such-mcpb: not found\)\n$/);
    assert.equal(sha(bundle), before);
    assert.deepEqual(readdirSync(project).filter((f) => f.endsWith('.partial')), []);
  });

  test('wrong inputs are one line each, before anything is published', async () => {
    const runtimes = await cli(['bundle', '--project-dir', project, '--runtime', 'osx-arm64,osx-x64', '--output', join(work, 'x.mcpb')]);
    assert.deepEqual([runtimes.code, runtimes.err], [2, 'error: --runtime osx-arm64 and osx-x64 both run on darwin: a bundle starts one executable per operating system\n']);
    const icon = await cli(['bundle', '--project-dir', project, '--icon', LIBRARY_SPEC, '--output', join(work, 'x.mcpb')]);
    assert.deepEqual([icon.code, icon.err], [2, `error: ${LIBRARY_SPEC}: not a PNG image: Claude Desktop shows a bundle's icon from a PNG file\n`]);
    const http = join(work, 'http');
    assert.equal((await cli(['init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Library', '--output-dir', http, '--transport', 'http'])).code, 0);
    const served = await cli(['bundle', '--project-dir', http]);
    assert.equal(served.code, 2);
    assert.match(served.err, /^error: .*Library\.csproj: an HTTP server \(--transport http\) cannot be a bundle: [^\n]*\n$/);
    const none = await cli(['bundle', '--project-dir', work]);
    assert.equal(none.code, 2);
    assert.equal(none.err, `error: ${join(work, 'openapi-mcp.json')}: no openapi-mcp.json here: bundle works in a project written by init\n`);
    assert.equal(filesUnder(work).some((f) => f.endsWith('x.mcpb')), false);
  });

  test('several runtimes: the first is the command, the others platform_overrides the host picks by operating system', async () => {
    const library = await prepare(LIBRARY_SPEC);
    const plan = planNames(library.model);
    const manifest = JSON.parse(emitMcpbManifest({
      serverName: 'Library', model: library.model, plan, operations: selectOperations(library.model, plan).selected, mode: 'operations',
      assembly: 'Library', framework: 'net10.0', runtimes: ['osx-arm64', 'win-x64', 'linux-x64'], author: 'Library team', icon: false,
    })) as McpbManifestAny;
    const checked = MANIFEST_SCHEMAS['0.3'].safeParse(manifest);
    assert.ok(checked.success, JSON.stringify(checked.error?.issues));
    assert.deepEqual(manifest.server.mcp_config.platform_overrides, {
      win32: { command: '${__dirname}/server/win-x64/Library.exe' },
      linux: { command: '${__dirname}/server/linux-x64/Library' },
    });
    assert.deepEqual(manifest.compatibility?.platforms, ['darwin', 'win32', 'linux']);
    const here = await getMcpConfigForManifest({ manifest, extensionPath: '/ext', userConfig: { api_key: 'k' }, pathSeparator: '/', systemDirs: {} });
    const expected: Record<string, string> = { darwin: '/ext/server/osx-arm64/Library', win32: '/ext/server/win-x64/Library.exe', linux: '/ext/server/linux-x64/Library' };
    assert.equal(here?.command, expected[process.platform]);
  });

  test('--runtime: a self-contained executable per platform, started from the bundle as the manifest says', async () => {
    const selfContained = join(work, 'library-linux.mcpb');
    const result = await cli(['bundle', '--project-dir', project, '--runtime', 'linux-x64', '--output', selfContained]);
    assert.equal(result.code, 0, result.err);
    const folder = join(work, 'installed-linux');
    const { manifest, client, config } = await install(selfContained, folder, { base_url: api.url, api_key: LIBRARY_KEY });
    clients.push(client);
    assert.equal(config.command, join(folder, 'server/linux-x64/Library'));
    assert.deepEqual((manifest.compatibility as { platforms?: string[] }).platforms, ['linux']);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(listed, manifest.tools?.map((t) => t.name));
    const page = await callText(client, 'list_books', { pageSize: 2 });
    assert.equal(page.isError, false, page.text);
    assert.equal((JSON.parse(page.text) as { items: unknown[] }).items.length, 2);
    assert.ok(api.requests.includes('GET /books?pageSize=2'), api.requests.join('\n'));
  });
});
