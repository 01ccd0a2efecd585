/**
 * `--resources`: the GET operations without side effects as MCP resources, end to end over stdio. The library API's
 * spec, with an optional query parameter on getBook, getOwner marked `x-mcp: { resource: false }` and a search that
 * requires a query parameter, is generated with `init --resources` and built once; a real MCP client lists the
 * resources and templates and reads them from the server, which calls the real API on 127.0.0.1 with its API key.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { planResources, resourceScheme } from '../src/emit/resources/resources.js';
import { prepare } from '../src/generate.js';
import { planNames } from '../src/names/plan.js';
import { connect, dotnetBuild, serverLog } from '../examples/harness.js';
import { LIBRARY_KEY, LIBRARY_SPEC, startLibraryApi, type LibraryApi } from './support/library-api.js';
import { scratchDir } from './support/scratch.js';
import { wholeLines } from './support/replicas.js';

const quiet = { out: (): void => {}, err: (): void => {} };

interface AuditLine { caller: string; resource?: string; outcome: string; status: number | null; durationMs: number; bytes: number }

/** The audit lines in the server's log (the simple console formatter: the JSON line under `info: Library.Audit[…]`). */
function auditLines(log: string): AuditLine[] {
  const lines = wholeLines(log);
  return lines.flatMap((line, i) => (/^info: Library\.Audit\[\d+\]/.test(lines[i - 1] ?? '') ? [JSON.parse(line.trim()) as AuditLine] : []));
}

/** The text of a read's one content, which must be text (not a blob). */
function textOf(contents: readonly ({ text: string } | { blob: string })[]): string {
  assert.equal(contents.length, 1);
  const [content] = contents;
  assert.ok(content !== undefined && 'text' in content, JSON.stringify(content));
  return content.text;
}

/** library.yaml with what tells resources from tools apart, written into `directory`. */
async function writeSpec(directory: string): Promise<string> {
  const spec = parse(await readFile(LIBRARY_SPEC, 'utf8')) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  const paths = spec.paths;
  paths['/books/{bookId}']!.get!.parameters = [{ name: 'format', in: 'query', schema: { type: 'string', enum: ['full', 'short'] }, description: 'How much of the book.' }];
  paths['/owners/{ownerId}']!.get!['x-mcp'] = { resource: false };
  paths['/search'] = {
    get: {
      operationId: 'searchBooks', summary: 'Search books',
      parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'string' } }],
      responses: { 200: { description: 'Matches', content: { 'application/json': { schema: { type: 'array', items: { type: 'integer' } } } } } },
    },
  };
  const path = join(directory, 'library.json');
  await writeFile(path, JSON.stringify(spec));
  return path;
}

let work: string;

describe('resources (--resources)', () => {
  let spec: string;
  let api: LibraryApi;
  let client: Client;

  before(async () => {
    work = scratchDir('resources');
    spec = await writeSpec(scratchDir('resources-spec'));
    assert.equal(await runCli(['init', '--openapi-url', spec, '--server-name', 'Library', '--output-dir', work, '--resources'], quiet), 0);
    const build = await dotnetBuild(work);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    api = await startLibraryApi();
    client = await connect({ command: 'dotnet', args: [join(work, 'bin/Debug', detectFramework(), 'Library.dll')] }, { LIBRARY_BASE_URL: api.url, LIBRARY_API_KEY: LIBRARY_KEY });
  });

  after(async () => {
    await client?.close();
    await api?.close();
  });

  test('resources/list: the GETs that need no argument, named as their tools, with title, description and media type', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => [r.name, r.uri, r.mimeType]).sort(), [
      ['get_echo', 'library://echo', 'application/json'],
      ['list_books', 'library://books', 'application/json'],
    ]);
    const books = resources.find((r) => r.name === 'list_books');
    assert.equal(books?.title, 'List books, newest update first, a page at a time');
    assert.equal(books?.description, 'List books, newest update first, a page at a time');
    // The tools are all still there, resources or not.
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.equal(tools.length, 8, tools.join(', '));
    for (const name of ['list_books', 'get_book', 'get_owner', 'get_echo', 'create_book', 'update_book', 'delete_book']) assert.ok(tools.includes(name), name);
  });

  test('resources/templates/list: a GET whose only required parameters are in the path, optional query parameters as {?…}; not one marked resource: false', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => [t.name, t.uriTemplate, t.mimeType]), [['get_book', 'library://books/{bookId}{?format}', 'application/json']]);
    assert.equal(resourceTemplates[0]?.title, 'Get a book');
  });

  test('resources/read of a resource: the API\'s answer, through the same client as the tools (credential sent)', async () => {
    const before = api.requests.length;
    const { contents } = await client.readResource({ uri: 'library://books' });
    assert.equal(contents.length, 1);
    assert.equal(contents[0]?.uri, 'library://books');
    assert.equal(contents[0]?.mimeType, 'application/json');
    const page = JSON.parse(textOf(contents)) as { items: { id: number }[]; page: number };
    assert.equal(page.page, 1);
    assert.equal(page.items.length, 10);
    // The library API answers 401 to a request without the key: it had the key.
    assert.deepEqual(api.requests.slice(before), ['GET /books']);
  });

  test('resources/read of a template: the path and query the URI gives reach the API', async () => {
    const before = api.requests.length;
    const seven = await client.readResource({ uri: 'library://books/7?format=short' });
    assert.equal(seven.contents[0]?.uri, 'library://books/7?format=short');
    assert.equal((JSON.parse(textOf(seven.contents)) as { id: number; title: string }).title, 'Book 7');
    const eight = await client.readResource({ uri: 'library://books/8' });
    assert.equal((JSON.parse(textOf(eight.contents)) as { id: number }).id, 8);
    assert.deepEqual(api.requests.slice(before), ['GET /books/7?format=short', 'GET /books/8']);
  });

  test('a resource whose answer echoes the credential: the API got it, the client never sees it', async () => {
    const { contents } = await client.readResource({ uri: 'library://echo' });
    const headers = JSON.parse(textOf(contents)) as Record<string, string>;
    assert.equal(headers['x-api-key'], '[redacted]');
    assert.ok(!textOf(contents).includes(LIBRARY_KEY));
  });

  test('a read the API refuses (404 with a reason) is an MCP error that carries the reason, never the credential', async () => {
    const before = api.requests.length;
    const error = await client.readResource({ uri: 'library://books/999' }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof McpError, String(error));
    assert.match(error.message, /no book 999/);
    assert.match(error.message, /404/);
    assert.ok(!error.message.includes(LIBRARY_KEY));
    assert.deepEqual(api.requests.slice(before), ['GET /books/999']);
  });

  test('a URI whose value does not fit the template (a word for an integer) is invalid params, and nothing is sent', async () => {
    const before = api.requests.length;
    const error = await client.readResource({ uri: 'library://books/seven' }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, -32602);
    assert.match(error.message, /library:\/\/books\/seven/);
    assert.equal(api.requests.length, before);
  });

  test('each read writes an audit line: the resource, its outcome and the API\'s status, never the URI\'s values or the key', async () => {
    const deadline = Date.now() + 10_000;
    const reads = (): AuditLine[] => auditLines(serverLog(client)).filter((line) => line.resource !== undefined);
    while (reads().length < 6 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = reads();
    assert.deepEqual(lines.map((line) => [line.resource, line.outcome, line.status]), [
      ['list_books', 'ok', 200], ['get_book', 'ok', 200], ['get_book', 'ok', 200], ['get_echo', 'ok', 200], ['get_book', 'error', 404], ['get_book', 'error', null],
    ]);
    assert.ok(lines.every((line) => line.caller === 'local' && line.durationMs >= 0));
    assert.ok(lines[0]!.bytes > 1000);
    assert.ok(!serverLog(client).includes(LIBRARY_KEY));
    assert.ok(!JSON.stringify(lines).includes('seven') && !JSON.stringify(lines).includes('format'));
  });

  test('the option is recorded: regenerating the project writes the same files, resources included', async () => {
    const record = JSON.parse(await readFile(join(work, 'openapi-mcp.json'), 'utf8')) as { options: Record<string, unknown> };
    assert.equal(record.options.resources, true);
    assert.equal(await runCli(['regenerate', '--project-dir', work, '--check'], quiet), 0);
  });
});

describe('resources: regeneration on build', () => {
  test('a build after McpResources.g.cs is gone writes it again from the spec and compiles it', async () => {
    // After the server above has stopped: the build writes its program again.
    const path = join(work, 'McpResources.g.cs');
    const before = await readFile(path, 'utf8');
    await rm(path);
    const build = await dotnetBuild(work);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    assert.equal(await readFile(path, 'utf8'), before);
  });
});

describe('resources: the generator', () => {
  test('the URI scheme is the server name as a URI scheme allows it', () => {
    assert.equal(resourceScheme('Library'), 'library');
    assert.equal(resourceScheme('My Books API'), 'my-books-api');
    assert.equal(resourceScheme('42 Things'), 'mcp-42-things');
    assert.match(resourceScheme('Über Bücher!'), /^[a-z][a-z0-9+.-]*$/);
  });

  test('which operations are resources: GET with a body to read and no required argument outside the path', async () => {
    const api = await prepare(await writeSpec(scratchDir('resources-plan')));
    const plan = planNames(api.model, 'Library.Client');
    const planned = planResources(plan, api.model.operations, 'Library');
    assert.deepEqual(planned.map((r) => r.uri), ['library://books', 'library://books/{bookId}{?format}', 'library://echo']);
  });

  test('a path a URI cannot hold is no resource (half of a surrogate pair); characters a template may not have are percent-encoded', async () => {
    const ok = { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };
    const file = join(scratchDir('resources-paths'), 'paths.json');
    await writeFile(file, JSON.stringify({
      openapi: '3.0.3', info: { title: 'T', version: '1' },
      paths: { '/a\ud800b': { get: { responses: ok } }, '/c d/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: ok } } },
    }));
    const api = await prepare(file);
    assert.deepEqual(planResources(planNames(api.model, 'T.Client'), api.model.operations, 'T').map((r) => r.uri), ['t://c%20d/{id}']);
  });

  test('without --resources nothing changes; --resources with --auth oauth is refused (reads are not scope-checked)', async () => {
    const plain = scratchDir('resources-none');
    assert.equal(await runCli(['init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Library', '--output-dir', plain], quiet), 0);
    await assert.rejects(readFile(join(plain, 'McpResources.g.cs')));
    assert.doesNotMatch(await readFile(join(plain, 'Program.cs'), 'utf8'), /WithResources/);
    let error = '';
    const code = await runCli(['init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Library', '--output-dir', scratchDir('resources-oauth'), '--resources', '--transport', 'http', '--auth', 'oauth'], { out: () => {}, err: (t) => (error += t) });
    assert.equal(code, 2);
    assert.match(error, /--resources with --auth oauth/);
  });
});
