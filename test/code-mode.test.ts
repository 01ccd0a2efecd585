/**
 * Code mode end to end: a generated `--mode code` server of the library API, built and started as an MCP client
 * starts it, runs the model's scripts against the API on 127.0.0.1. What scripts do is checked on the API's own
 * state (its books, and the requests it received), and every limit is hit once, followed by a normal script.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildCodeProject, processesOf, resultOf, type CodeProject } from './support/code-project.js';

describe('code mode: run_script against a real API', () => {
  let server: CodeProject;

  before(async () => {
    const start = await buildCodeProject('Library');
    server = await start({ SCRIPT_TIMEOUT_SECONDS: '4', SCRIPT_MAX_STATEMENTS: '2000000' });
  });

  after(async () => {
    await server?.close();
  });

  test('tools/list has search_operations, describe_operation and run_script, destructive because the API can delete', async () => {
    const { tools } = await server.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['describe_operation', 'run_script', 'search_operations']);
    const run = tools.find((t) => t.name === 'run_script');
    assert.deepEqual(run?.annotations, { title: 'Run a script against the API', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    assert.deepEqual(run?.inputSchema.required, ['code']);
    assert.equal((run?.inputSchema.properties as { code: { maxLength: number } }).code.maxLength, 20_000);
  });

  test('describe_operation gives the signature a script calls the operation by', async () => {
    const described = await server.client.callTool({ name: 'describe_operation', arguments: { name: 'get_book' } }) as { content: { text: string }[] };
    const operation = JSON.parse(described.content[0]?.text ?? '{}') as { signature: string; inputSchema: unknown };
    assert.equal(operation.signature, 'get_book(args: { bookId: number }): Promise<{ id: number; title: string; tags: string[]; ownerId: number; updatedAt: string; summary?: string }>');
    assert.ok(operation.inputSchema);
  });

  test('search_operations carries the map of the API, and with detail "full" gives each hit\'s signature instead of its inputSchema', async () => {
    const { tools } = await server.client.listTools();
    assert.match(tools.find((t) => t.name === 'search_operations')?.description ?? '', /run_script calls it as api\.<name>\(args\)\.\nTags: Books \(5\), Diagnostics \(1\), Owners \(1\)/);
    const found = await server.client.callTool({ name: 'search_operations', arguments: { query: 'get a book', limit: 2, detail: 'full' } }) as { content: { text: string }[] };
    const hits = JSON.parse(found.content[0]?.text ?? '[]') as { name: string; signature?: string; inputSchema?: unknown }[];
    assert.equal(hits[0]?.name, 'get_book');
    for (const hit of hits) {
      const described = await server.client.callTool({ name: 'describe_operation', arguments: { name: hit.name } }) as { content: { text: string }[] };
      assert.equal(hit.signature, (JSON.parse(described.content[0]?.text ?? '{}') as { signature: string }).signature);
      assert.equal(hit.inputSchema, undefined);
    }
  });

  test('a script calls three operations and joins their answers', async () => {
    const answer = await server.run(`
      const page = await api.list_books({ tag: 'science', pageSize: 3 });
      const owners = await Promise.all(page.items.map((b) => api.get_owner({ ownerId: b.ownerId })));
      const first = await api.get_book({ bookId: page.items[0].id });
      return { titles: page.items.map((b, i) => b.title + ' by ' + owners[i].name), firstTags: first.tags };`);
    const science = [...server.api.books.values()].filter((b) => b.tags.includes('science')).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id - b.id).slice(0, 3);
    assert.deepEqual(resultOf(answer), {
      titles: science.map((b) => `${b.title} by ${server.api.owners.get(b.ownerId)?.name ?? ''}`),
      firstTags: science[0]?.tags,
    });
  });

  test('a script pages through a list to its end, logging as it goes', async () => {
    const before = server.api.requests.length;
    const answer = await server.run(`
      const ids = [];
      for (let page = 1; page; ) {
        const got = await api.list_books({ page, pageSize: 20 });
        console.log('page', page, got.items.length);
        ids.push(...got.items.map((b) => b.id));
        page = got.nextPage;
      }
      return ids.length;`);
    assert.equal(resultOf(answer), server.api.books.size);
    assert.deepEqual((JSON.parse(answer.text) as { logs: string[] }).logs, ['page 1 20', 'page 2 20', 'page 3 5']);
    assert.deepEqual(server.api.requests.slice(before), ['GET /books?page=1&pageSize=20', 'GET /books?page=2&pageSize=20', 'GET /books?page=3&pageSize=20']);
  });

  test('a 404 rejects with an Error of the script\'s world carrying the status; the script catches it and goes on', async () => {
    const answer = await server.run(`
      const found = [];
      for (const id of [1, 999, 2]) {
        try { found.push((await api.get_book({ bookId: id })).id); }
        catch (e) { found.push({ error: e instanceof Error, status: e.status, message: e.message }); }
      }
      return found;`);
    const [first, missing, last] = resultOf(answer) as [number, { error: boolean; status: number; message: string }, number];
    assert.equal(first, 1);
    assert.equal(last, 2);
    assert.equal(missing.error, true);
    assert.equal(missing.status, 404);
    assert.match(missing.message, /^Error: .*no book 999.*404/);
  });

  test('arguments are checked as the tool checks them: an invalid one rejects before anything is sent, with no status', async () => {
    const before = server.api.requests.length;
    const answer = await server.run(`try { await api.get_book({ bookId: 'one' }); } catch (e) { return [e.message, 'status' in e]; }`);
    const [message, hasStatus] = resultOf(answer) as [string, boolean];
    assert.match(message, /^Error: invalid arguments for get_book: 'bookId' must be an integer/);
    assert.equal(hasStatus, false);
    assert.equal(server.api.requests.length, before);
  });

  test('a script changes the API: the book it adds is in the API\'s state, and the one it deletes is gone', async () => {
    const answer = await server.run(`
      const made = await api.create_book({ body: { title: 'Written by a script', tags: ['poetry'], ownerId: 2 } });
      await api.delete_book({ bookId: 45 });
      return made.id;`);
    const id = resultOf(answer) as number;
    assert.equal(server.api.books.get(id)?.title, 'Written by a script');
    assert.equal(server.api.books.has(45), false);
  });

  test('an uncaught error or a syntax error fails the script with its message and line, counted from the first line of code', async () => {
    const thrown = await server.run('const a = 1;\nconst b = null;\nreturn b.title;');
    assert.equal(thrown.isError, true);
    assert.equal(thrown.text, "Error: script failed: TypeError: Cannot read properties of null (reading 'title') (line 3)");
    const syntax = await server.run('const a = 1;\nreturn a +;');
    assert.match(syntax.text, /^Error: script failed: SyntaxError: .* \(line 2\)$/);
    const api = await server.run('await api.get_book({ bookId: 404 });');
    assert.match(api.text, /^Error: script failed: Error: .*no book 404/);
  });

  test('a script longer than 20,000 characters is an invalid argument', async () => {
    const answer = await server.run(`return 1;${' '.repeat(20_000)}`);
    assert.equal(answer.isError, true);
    assert.match(answer.text, /^Error: invalid arguments for run_script: 'code'/);
  });

  test('every limit ends its script with an error that names it, in bounded time; the next script runs normally', async () => {
    const cases: [string, RegExp][] = [
      ['while (true) {}', /more statements than the limit allows \(SCRIPT_MAX_STATEMENTS\)/],
      ['const keep = []; while (true) keep.push("x".repeat(1 << 20));', /more memory than the limit allows \(SCRIPT_MAX_MEMORY_MB\)/],
      ['function down(n) { return down(n + 1) + 1; } return down(0);', /deeper than the limit allows \(SCRIPT_MAX_RECURSION\)/],
      ['const calls = []; for (let i = 0; i < 60; i++) calls.push(api.get_owner({ ownerId: 1 }).catch(() => 0)); try { await Promise.all(calls); } catch {} return "went on";', /more than 50 API calls, the limit \(SCRIPT_MAX_CALLS\)/],
      ['const never = []; for (let i = 0; i < 10000; i++) never.push(new Promise(() => {})); await Promise.all(never);', /longer than the time limit of 4 s \(SCRIPT_TIMEOUT_SECONDS\)/],
    ];
    for (const [code, expected] of cases) {
      const before = server.api.requests.length;
      const answer = await server.run(code);
      assert.equal(answer.isError, true, code);
      assert.match(answer.text, new RegExp(`^Error: script failed: it .*${expected.source}`), code);
      assert.ok(answer.ms < 15_000, `${code}: ${answer.ms} ms`);
      assert.ok(server.api.requests.length - before <= 50, `${code}: ${server.api.requests.length - before} requests`);
      assert.deepEqual(resultOf(await server.run('return (await api.get_owner({ ownerId: 3 })).name;')), 'Owner C', `after: ${code}`);
    }
    // The memory a script took was its interpreter's, never the server's.
    const serverPid = processesOf(server.dll).find((p) => !p.args.includes('--mcp-script-runner'))?.pid;
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${serverPid}/status`, 'utf8'))?.[1]);
    assert.ok(rss > 0 && rss < 250 * 1024, `server RSS ${rss} kB`);
  });

  test('a 10 MB return value is cut at the result limit like any answer, with the usual note', async () => {
    const answer = await server.run('return "x".repeat(10_000_000);');
    assert.equal(answer.isError, false);
    assert.ok(answer.text.length < 101_000, `${answer.text.length}`);
    assert.match(answer.text, /\n\[truncated: the result has \d+ characters and the limit is 100000; return less, e.g. only the fields you need\]$/);
  });

  test('a spinning script does not hold up another caller', async () => {
    const spinning = server.run('while (true) {}');
    const started = Date.now();
    assert.equal(resultOf(await server.run('return 6 * 7;')), 42);
    assert.ok(Date.now() - started < 3000, `${Date.now() - started} ms`);
    assert.equal((await spinning).isError, true);
  });
});
