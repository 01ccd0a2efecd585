/**
 * Confirmation before destructive calls (`--confirm destructive`), end to end: the library API's servers generated
 * with it in operations mode (stdio and stateless HTTP), discovery mode and code mode, built once, started as clients
 * start them, and called by real MCP clients that answer the question as a user would: the TypeScript SDK 1.x
 * (elicitation/create, MCP 2025-11-25) and 2.x pinned to MCP 2026-07-28 (input_required, then the call again with the
 * answer). The API is asked to DELETE a book only when the user accepted; nothing waits for a timeout.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateTools, prepare, runCli } from '../src/index.js';
import { environmentVariables } from '../src/names/environment.js';
import { LIBRARY_KEY, LIBRARY_SPEC, startLibraryApi, type LibraryApi } from './support/library-api.js';
import { buildProjects, initProject, projectDll } from './support/real-api-projects.js';
import { startReplica, type Replica } from './support/replicas.js';
import { scratchDir } from './support/scratch.js';
import { legacyClient, modernClient, type AskingClient, type Endpoint } from './support/elicit-clients.js';

/** A spec whose operations say, each its own way, whether they ask. */
const MARKED = {
  openapi: '3.0.3',
  info: { title: 'Marked', version: '1' },
  paths: {
    '/drafts/{id}': { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], delete: { operationId: 'deleteDraft', 'x-mcp': { confirm: false }, responses: { 204: { description: 'gone' } } } },
    '/books/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { operationId: 'getBook', responses: { 200: { description: 'the book', content: { 'application/json': { schema: { type: 'object' } } } } } },
      delete: { operationId: 'deleteBook', summary: 'Delete a book', responses: { 204: { description: 'gone' } } },
    },
    '/books/{id}/archive': { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], post: { operationId: 'archiveBook', 'x-mcp': { confirm: true }, responses: { 204: { description: 'archived' } } } },
    '/books': { post: { operationId: 'createBook', responses: { 201: { description: 'made' } } } },
    '/tokens/{id}/reveal': { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], get: { operationId: 'revealToken', 'x-mcp': { confirm: true }, responses: { 200: { description: 'the token', content: { 'application/json': { schema: { type: 'object' } } } } } } },
  },
};

describe('which tools ask', () => {
  test('DELETE asks, x-mcp confirm true asks (and is destructive), x-mcp confirm false does not; nothing asks without --confirm', async () => {
    const work = scratchDir('confirm-marked');
    try {
      await writeFile(join(work, 'marked.json'), JSON.stringify(MARKED));
      const api = await prepare(join(work, 'marked.json'));
      const asking = (content: string): string[] => [...content.matchAll(/\[Confirm\("(\w+)", "([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`).sort();
      const on = generateTools(api, { namespace: 'T', clientNamespace: 'T.Client', confirm: 'destructive' }).content;
      assert.deepEqual(asking(on), ['DELETE /books/{id}', 'GET /tokens/{id}/reveal', 'POST /books/{id}/archive']);
      // A GET that asks has effects: with --resources it stays a tool only, never a resource read as context.
      const withResources = generateTools(api, { namespace: 'T', clientNamespace: 'T.Client', confirm: 'destructive', resources: { serverName: 'Marked' } });
      const resources = withResources.beside.find((f) => f.path === 'McpResources.g.cs')?.content ?? '';
      assert.match(resources, /UriTemplate = "marked:\/\/books\/\{id\}"/, 'the plain GET is a resource');
      assert.doesNotMatch(resources, /reveal/i);
      assert.match(on, /Name = "archive_book"[^\n]*Destructive = true/);
      assert.match(on, /=> McpConfirm\.Refusal\(mcpRequest\) \?\? await RunAsync/);
      const off = generateTools(api, { namespace: 'T', clientNamespace: 'T.Client' }).content;
      assert.deepEqual(asking(off), []);
      assert.doesNotMatch(off, /McpConfirm|ConfirmAttribute|mcpRequest/);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  test('a wrong --confirm is a usage error; a wrong x-mcp confirm leaves its operation out with a warning', async () => {
    const work = scratchDir('confirm-errors');
    try {
      let errors = '';
      const io = { out: () => {}, err: (text: string) => void (errors += text) };
      const args = (spec: string, confirm: string): string[] => ['tools', '--openapi-url', spec, '--output-file', join(work, 'McpTools.g.cs'), '--namespace', 'T', '--server-name', 'T', '--ext-namespace', 'T.Client', '--confirm', confirm];
      await writeFile(join(work, 'marked.json'), JSON.stringify(MARKED));
      assert.equal(await runCli(args(join(work, 'marked.json'), 'always'), io), 2);
      assert.match(errors, /--confirm "always" is not one of destructive/);
      errors = '';
      const wrong = structuredClone(MARKED) as unknown as { paths: Record<string, Record<string, Record<string, unknown>>> };
      wrong.paths['/books']!.post!['x-mcp'] = { confirm: 'yes' };
      await writeFile(join(work, 'wrong.json'), JSON.stringify(wrong));
      // As every operation the generator cannot read: left out, with a warning that says where and why.
      assert.equal(await runCli(args(join(work, 'wrong.json'), 'destructive'), io), 0, errors);
      assert.match(errors, /wrong\.json#\/paths\/~1books\/post\/x-mcp\/confirm: skipped POST \/books: x-mcp confirm must be true or false/);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

const PROJECTS = [
  { name: 'Confirm', folder: 'stdio', more: [] },
  { name: 'ConfirmWeb', folder: 'http', more: ['--transport', 'http'] },
  { name: 'ConfirmFind', folder: 'discovery', more: ['--mode', 'discovery'] },
  { name: 'ConfirmCode', folder: 'code', more: ['--mode', 'code'] },
] as const;

/** A refusal comes at once: far below any client's or server's timeout. */
const AT_ONCE_MS = 10_000;

describe('confirmation before destructive calls (--confirm destructive)', { timeout: 15 * 60_000 }, () => {
  let work = '';
  let api: LibraryApi;
  let web: Replica | undefined;
  const open: AskingClient[] = [];
  const dll = (index: number): string => {
    const project = PROJECTS[index]!;
    return projectDll(work, project.folder, project.name).args[0]!;
  };
  const settings = (name: string, more: Record<string, string> = {}): Record<string, string> => {
    const env = environmentVariables(name);
    return { [env.baseUrl]: api.url, [env.baseUrl.replace(/_BASE_URL$/, '_API_KEY')]: LIBRARY_KEY, ...more };
  };
  const stdio = (index: number, more: Record<string, string> = {}): Endpoint => ({ command: 'dotnet', args: [dll(index)], env: settings(PROJECTS[index]!.name, more) });
  const keep = (client: AskingClient): AskingClient => (open.push(client), client);
  const deletes = (bookId: number): number => api.requests.filter((r) => r === `DELETE /books/${bookId}`).length;

  before(async () => {
    work = scratchDir('confirm');
    for (const project of PROJECTS) {
      const init = await initProject(work, LIBRARY_SPEC, project.name, project.folder, '--confirm', 'destructive', ...project.more);
      assert.equal(init.code, 0, init.errors);
    }
    const [output, started] = await Promise.all([buildProjects(work, PROJECTS.map((p) => `${p.folder}/${p.name}.csproj`)), startLibraryApi()]);
    api = started;
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    web = await startReplica('confirm-web', dll(1), settings('ConfirmWeb'));
  });

  after(async () => {
    for (const client of open) await client.close().catch(() => {});
    web?.process.kill('SIGKILL');
    await api?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('stdio, MCP 2025-11-25: the user is asked, with the operation and its arguments; on accept the DELETE is sent once', async () => {
    const client = keep(await legacyClient(stdio(0), 'accept'));
    const answer = await client.call('delete_book', { bookId: 3 });
    assert.equal(answer.isError, false, answer.text);
    assert.equal(client.questions.length, 1);
    assert.equal(client.questions[0], 'Remove a book\nDELETE /books/3\n\nArguments:\nbookId: 3\n\nSend this request? Nothing is sent unless you accept.');
    assert.ok(!client.questions[0]!.includes(LIBRARY_KEY), 'the question carries no credential');
    assert.equal(deletes(3), 1);
    assert.equal(api.books.has(3), false, 'the book is gone from the API');
  });

  for (const [answer, word] of [['decline', 'declined'], ['cancel', 'cancelled']] as const) {
    test(`stdio, MCP 2025-11-25: on ${answer} nothing is sent and the tool says so`, async () => {
      const bookId = answer === 'decline' ? 4 : 5;
      const client = keep(await legacyClient(stdio(0), answer));
      const result = await client.call('delete_book', { bookId });
      assert.equal(result.isError, true);
      assert.equal(result.text, `Error: not sent: the user ${word}`);
      assert.equal(client.questions.length, 1);
      assert.equal(deletes(bookId), 0);
      assert.equal(api.books.has(bookId), true);
    });
  }

  test('stdio: a client without elicitation is refused at once, told how to allow such calls; nothing is sent', async () => {
    const client = keep(await legacyClient(stdio(0), 'none'));
    const started = Date.now();
    const result = await client.call('delete_book', { bookId: 6 });
    assert.ok(Date.now() - started < AT_ONCE_MS);
    assert.equal(result.isError, true);
    assert.match(result.text, /^Error: not sent: DELETE \/books\/\{bookId\} needs the user's confirmation, and this client cannot ask the user .*set CONFIRM_CONFIRM=off/);
    assert.equal(deletes(6), 0);
  });

  test('a tool that changes nothing asks nothing', async () => {
    const client = keep(await legacyClient(stdio(0), 'decline'));
    const result = await client.call('get_book', { bookId: 7 });
    assert.equal(result.isError, false, result.text);
    assert.equal(JSON.parse(result.text).title, 'Book 7');
    assert.deepEqual(client.questions, []);
  });

  test('CONFIRM=off: destructive calls are sent without asking (trusted automation)', async () => {
    const client = keep(await legacyClient(stdio(0, { CONFIRM_CONFIRM: 'off' }), 'none'));
    const result = await client.call('delete_book', { bookId: 8 });
    assert.equal(result.isError, false, result.text);
    assert.equal(deletes(8), 1);
  });

  test('stdio, MCP 2026-07-28: the question comes as input_required; accept sends, decline does not', async () => {
    const accepting = keep(await modernClient(stdio(0), 'accept'));
    assert.equal((await accepting.call('delete_book', { bookId: 9 })).isError, false);
    assert.equal(accepting.questions.length, 1);
    assert.equal(deletes(9), 1);
    const declining = keep(await modernClient(stdio(0), 'decline'));
    assert.equal((await declining.call('delete_book', { bookId: 10 })).text, 'Error: not sent: the user declined');
    assert.equal(deletes(10), 0);
  });

  test('stateless HTTP, MCP 2026-07-28: accept sends the DELETE once, decline and cancel send nothing', async () => {
    for (const [answer, bookId, sent] of [['accept', 11, 1], ['decline', 12, 0], ['cancel', 13, 0]] as const) {
      const client = keep(await modernClient({ url: web!.url }, answer));
      const result = await client.call('delete_book', { bookId });
      assert.equal(result.isError, answer !== 'accept', result.text);
      assert.equal(client.questions.length, 1, answer);
      assert.match(client.questions[0]!, new RegExp(`^Remove a book\nDELETE /books/${bookId}\n\nArguments:\nbookId: ${bookId}\n`));
      assert.equal(deletes(bookId), sent, answer);
    }
  });

  test('stateless HTTP, MCP 2026-07-28, a client without elicitation: refused at once, nothing sent', async () => {
    const client = keep(await modernClient({ url: web!.url }, 'none'));
    const started = Date.now();
    const result = await client.call('delete_book', { bookId: 21 });
    assert.ok(Date.now() - started < AT_ONCE_MS);
    assert.equal(result.isError, true);
    assert.match(result.text, /^Error: not sent: DELETE \/books\/\{bookId\} needs the user's confirmation, and this client cannot ask the user/);
    assert.equal(deletes(21), 0);
  });

  test('stateless HTTP with a client of MCP 2025-11-25: refused at once (no session to ask on), saying what would work', async () => {
    const client = keep(await legacyClient({ url: web!.url }, 'accept'));
    const started = Date.now();
    const result = await client.call('delete_book', { bookId: 14 });
    assert.ok(Date.now() - started < AT_ONCE_MS);
    assert.equal(result.isError, true);
    assert.match(result.text, /^Error: not sent: DELETE \/books\/\{bookId\} needs the user's confirmation, and this server cannot ask: it serves stateless HTTP .*2026-07-28.*CONFIRM_WEB_CONFIRM=off/);
    assert.deepEqual(client.questions, []);
    assert.equal(deletes(14), 0);
  });

  test('discovery mode: call_operation of a destructive operation asks as its tool does', async () => {
    const accepting = keep(await legacyClient(stdio(2), 'accept'));
    const accepted = await accepting.call('call_operation', { name: 'delete_book', arguments: { bookId: 15 } });
    assert.equal(accepted.isError, false, accepted.text);
    assert.match(accepting.questions[0] ?? '', /DELETE \/books\/15\n[\s\S]*bookId: 15/);
    assert.equal(deletes(15), 1);
    const declining = keep(await modernClient(stdio(2), 'decline'));
    assert.equal((await declining.call('call_operation', { name: 'delete_book', arguments: { bookId: 16 } })).text, 'Error: not sent: the user declined');
    assert.equal(deletes(16), 0);
  });

  test('code mode: a script naming a destructive operation is confirmed once, before it runs, with the script shown', async () => {
    const script = 'for (const bookId of [17, 18]) await api.delete_book({ bookId }); return (await api.list_books({ page: 1 })).length;';
    const accepting = keep(await legacyClient(stdio(3), 'accept'));
    const accepted = await accepting.call('run_script', { code: script });
    assert.equal(accepted.isError, false, accepted.text);
    assert.equal(accepting.questions.length, 1, 'one question for the script, not one per call');
    assert.match(accepting.questions[0]!, /delete_book[\s\S]*api\.delete_book\(\{ bookId \}\)/);
    assert.deepEqual([deletes(17), deletes(18)], [1, 1]);
    const declining = keep(await legacyClient(stdio(3), 'decline'));
    const declined = await declining.call('run_script', { code: script.replace('[17, 18]', '[19]') });
    assert.equal(declined.text, 'Error: not sent: the user declined');
    assert.equal(deletes(19), 0);
  });

  for (const [generation, connectClient, bookId] of [['MCP 2025-11-25', legacyClient, 22], ['MCP 2026-07-28', modernClient, 23]] as const) {
    test(`${generation}: the question shows the request with its target and every argument, before anything long, long values shortened in the middle with their size`, async () => {
      const title = 'harmless '.repeat(400);
      const client = keep(await connectClient(stdio(0), 'accept'));
      // The long part first, as a careless model or a hostile one may send it.
      const answer = await client.call('update_book', { body: { title, tags: ['x'], ownerId: 2 }, bookId });
      assert.equal(answer.isError, false, answer.text);
      assert.equal(client.questions.length, 1);
      const question = client.questions[0]!;
      assert.match(question, new RegExp(`^Update a book\nPUT /books/${bookId}\n\nArguments:\nbookId: ${bookId}\nbody: \\{\n`));
      assert.match(question, /"title": "harmless harmless [^"]* … \[3,600 characters, 3,400 not shown\] … [a-z ]+",/);
      assert.match(question, /"ownerId": 2\n/, 'what comes after the long value is shown');
      assert.ok(question.length < 1200, `${question.length} characters`);
      assert.equal(api.requests.filter((r) => r === `PUT /books/${bookId}`).length, 1);
      assert.equal(api.books.get(bookId)?.title, title);
    });

    test(`${generation}, code mode: the whole script is shown, long comments before the loop that deletes included`, async () => {
      const [first, second] = [bookId + 10, bookId + 20];
      const script = `/* ${'a harmless note about the weather. '.repeat(90)}*/\nfor (const id of [${first}, ${second}]) await api.delete_book({ bookId: id });\nreturn "done";`;
      assert.ok(script.length > 3000);
      const client = keep(await connectClient(stdio(3), 'accept'));
      const answer = await client.call('run_script', { code: script });
      assert.equal(answer.isError, false, answer.text);
      assert.equal(client.questions.length, 1);
      assert.ok(client.questions[0]!.includes(`The script, whole:\n${script}\n\nRun it?`), client.questions[0]!.slice(-400));
      assert.deepEqual([deletes(first), deletes(second)], [1, 1]);
    });
  }

  test('code mode: a destructive call the script text does not name is refused inside the script, never sent', async () => {
    const client = keep(await legacyClient(stdio(3), 'accept'));
    const result = await client.call('run_script', { code: 'const op = "delete" + "_book"; try { await api[op]({ bookId: 20 }); return "sent"; } catch (e) { return e.message; }' });
    assert.deepEqual(client.questions, [], 'nothing named, nothing asked');
    assert.match(result.text, /needs the user's confirmation, which a script gets before it runs for the operations its text names/);
    assert.equal(deletes(20), 0);
  });
});
