/**
 * Red team of code mode's sandbox: what a hostile script tries (reaching .NET, compiling strings, escaping to the
 * global object, polluting what the next script sees, reading the environment, taking the process down, reading
 * the API key), each refused or harmless, proven on the answers, on the API's own log, and by the server serving
 * the next script.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildCodeProject, processesOf, resultOf, type CodeProject } from './support/code-project.js';
import { LIBRARY_KEY } from './support/library-api.js';

describe('code mode sandbox (red team)', () => {
  let server: CodeProject;

  before(async () => {
    const start = await buildCodeProject('Sandbox');
    server = await start({ SCRIPT_TIMEOUT_SECONDS: '10' });
  });

  after(async () => {
    await server?.close();
  });

  const alive = async (): Promise<void> => assert.equal(resultOf(await server.run('return (await api.get_book({ bookId: 1 })).title;')), 'Book 1');

  test('no .NET: interop names are undefined, and nothing on api, its functions, promises or errors leads to a CLR type', async () => {
    const answer = await server.run(`
      const names = ['importNamespace', 'System', 'clrTypes', 'host', 'require', 'process', 'module', 'Deno', 'setTimeout', 'fetch', 'XMLHttpRequest'];
      const p = api.get_book({ bookId: 1 });
      await p;
      let error; try { await api.get_book({ bookId: 999 }); } catch (e) { error = e; }
      return {
        globals: names.filter((n) => typeof globalThis[n] !== 'undefined'),
        apiKeys: Object.getOwnPropertyNames(api).filter((n) => typeof api[n] !== 'function'),
        fn: [Object.getOwnPropertyNames(api.get_book).sort(), typeof api.get_book.GetType, typeof api.GetType],
        promise: [p instanceof Promise, Object.getPrototypeOf(p) === Promise.prototype, typeof p.GetType],
        error: [error instanceof Error, Object.getPrototypeOf(error) === Error.prototype, Object.keys(error).sort(), typeof error.GetType],
      };`);
    assert.deepEqual(resultOf(answer), {
      globals: [], apiKeys: [],
      fn: [['length', 'name'], 'undefined', 'undefined'],
      promise: [true, true, 'undefined'],
      error: [true, true, ['status'], 'undefined'],
    });
  });

  test('no string compilation: Function("return this"), constructor.constructor and eval of a string are refused', async () => {
    for (const code of ['return Function("return this")();', 'return api.get_book.constructor.constructor("return globalThis")();', 'return (async () => {}).constructor("return 1")();', 'return eval("1 + 1");']) {
      const answer = await server.run(code);
      assert.equal(answer.isError, true, code);
      assert.match(answer.text, /^Error: script failed: (TypeError|EvalError): .*(disabled|not allowed)/i, code);
    }
    await alive();
  });

  test('nothing one script changes is visible to the next: Object.prototype, JSON, globals, api', async () => {
    const first = await server.run(`
      Object.prototype.polluted = 'yes'; Array.prototype.map = () => 'hijacked'; JSON.stringify = () => '"hijacked"';
      globalThis.leftover = 1; try { api.get_book = () => 'hijacked'; } catch {} try { api.added = 1; } catch {}
      return typeof api.added;`);
    assert.equal(first.isError, false, first.text);
    const second = await server.run(`return [({}).polluted, [1].map((x) => x + 1), JSON.stringify({ a: 1 }), typeof leftover, (await api.get_book({ bookId: 2 })).title];`);
    assert.deepEqual(resultOf(second), [null, [2], '{"a":1}', 'undefined', 'Book 2']);
  });

  test('a script cannot read the server\'s environment or settings: its interpreter has none', async () => {
    const answer = await server.run(`
      const found = [];
      for (const key of Object.getOwnPropertyNames(globalThis)) { try { const v = String(globalThis[key]); if (v.includes('SANDBOX_') || v.includes('library-SENTINEL')) found.push(key); } catch {} }
      return found;`);
    assert.deepEqual(resultOf(answer), []);
    // The interpreter processes themselves: their environment holds no setting and no secret of the server's.
    const serverProcess = processesOf(server.dll).find((p) => !p.args.includes('--mcp-script-runner'));
    const runners = processesOf(server.dll).filter((p) => p.args.includes('--mcp-script-runner'));
    assert.ok(serverProcess && runners.length >= 1);
    assert.match(readFileSync(`/proc/${serverProcess.pid}/environ`, 'utf8'), /SANDBOX_API_KEY=library-SENTINEL/, 'the server itself has the key');
    for (const runner of runners) {
      const environment = readFileSync(`/proc/${runner.pid}/environ`, 'utf8');
      assert.doesNotMatch(environment, /SANDBOX_|library-SENTINEL/);
      assert.deepEqual(environment.split('\0').filter((v) => v !== '').map((v) => v.split('=')[0]).filter((name) => !/^DOTNET_/.test(name ?? '')), []);
    }
  });

  test('the API key never reaches a script, its result or its logs, even from an API that echoes it', async () => {
    const answer = await server.run(`
      const echoed = await api.get_echo();
      console.log('echoed', JSON.stringify(echoed));
      return echoed;`);
    assert.equal(answer.isError, false, answer.text);
    assert.ok(!answer.text.includes(LIBRARY_KEY), answer.text);
    const echoed = resultOf(answer) as Record<string, string>;
    assert.ok(echoed['x-api-key'] !== undefined && echoed['x-api-key'] !== LIBRARY_KEY, JSON.stringify(echoed));
  });

  test('values nested deep enough to exhaust a native stack end the script, not the server', async () => {
    const cases = [
      'let a = []; a.push(a); return a.flat(Infinity).length;',
      'let a = []; for (let i = 0; i < 200000; i++) a = [a]; return JSON.stringify(a).length;',
      'let a = []; for (let i = 0; i < 200000; i++) a = [a]; return String(a).length;',
      'let a = {}; for (let i = 0; i < 200000; i++) a = { a }; return a;',
      `return ${'['.repeat(9000)}${']'.repeat(9000)};`,
    ];
    for (const code of cases) {
      const answer = await server.run(code);
      assert.equal(answer.isError, true, `${code.slice(0, 60)}: ${answer.text.slice(0, 200)}`);
      assert.match(answer.text, /^Error: script failed: /);
      await alive();
    }
  });

  test('a script that allocates without end is stopped at its memory limit, and the server goes on', async () => {
    const answer = await server.run('const all = []; while (true) all.push({ n: all.length, s: "x".repeat(100) });');
    assert.equal(answer.isError, true);
    assert.match(answer.text, /SCRIPT_MAX_(MEMORY_MB|STATEMENTS)/);
    await alive();
  });

  test('an interpreter process that dies under its script fails only that script; the next runs in another', async () => {
    const waiting = server.run('await new Promise(() => {});');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const runners = processesOf(server.dll).filter((p) => p.args.includes('--mcp-script-runner')).map((p) => p.pid);
    assert.ok(runners.length >= 1, 'the interpreter processes of this server are found');
    for (const pid of runners) process.kill(pid, 'SIGKILL');
    const answer = await waiting;
    assert.equal(answer.isError, true);
    assert.match(answer.text, /^Error: script failed: the interpreter stopped \(exit code \d+\)$/);
    assert.ok(answer.ms < 5000, `${answer.ms} ms`);
    await alive();
  });
});
