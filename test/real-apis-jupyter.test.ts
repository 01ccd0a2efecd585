/**
 * A real API: the generated MCP server driven against Jupyter Server 1.23 (Debian's jupyter-server, with the Python
 * kernel of python3-ipykernel), run on 127.0.0.1 with a token, with the OpenAPI document it serves at /api/spec.yaml.
 * The projects (the document as published, and with jupyter-server.overlay.yaml, which fixes where the document is
 * wrong about the server: the token it requires, notebook contents, a session's kernel) are generated with `init` and built in one `dotnet build`; the tools are called as an assistant calls
 * them (MCP tools/call), and every effect is checked on the server itself: the files in its root folder, its
 * configuration files, the kernel and terminal processes it starts, and its own API.
 *
 * Each check arranges what it needs on the server (files written into its root folder, or its API), so that one
 * failure does not fail the next. Checks that fail are not weakened or skipped.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { environmentVariables } from '../src/names/environment.js';
import { connect } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import { call, success, type Answer } from './support/real-apis.js';
import { buildProjects, credentialVariable, initProject, projectDll } from './support/real-api-projects.js';
import { eventually, JUPYTER_OVERLAY, JUPYTER_SPEC, notebook, requireJupyter, startJupyter, type JupyterServer } from './support/jupyter.js';

describe('generated MCP server against Jupyter Server 1.23 (token; Debian packages on 127.0.0.1)', { timeout: 10 * 60_000 }, () => {
  let work = '';
  let jupyter: JupyterServer | undefined;
  const clients: { main?: Client; published?: Client; publishedQuery?: Client } = {};
  let tools = new Set<string>();
  let tokenVariable = '';

  before(async () => {
    // Install first (apt-get, when root): a missing package is a clear failure here rather than a failed start.
    requireJupyter();
    work = scratchDir('real-apis-jupyter');
    for (const init of [await initProject(work, JUPYTER_SPEC, 'Jupyter', 'jupyter'), await initProject(work, JUPYTER_SPEC, 'Jupyter', 'jupyter-overlaid', '--overlay', JUPYTER_OVERLAY)]) {
      assert.equal(init.code, 0, init.errors);
    }
    tokenVariable = await credentialVariable(work, 'jupyter-overlaid', 'Jupyter');
    // One build for both projects, while the server starts.
    const [output, started] = await Promise.all([
      buildProjects(work, ['jupyter/Jupyter.csproj', 'jupyter-overlaid/Jupyter.csproj']),
      startJupyter().then((s) => ({ s }), (error: unknown) => ({ error })),
    ]);
    if ('error' in started) throw started.error;
    jupyter = started.s;
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    const baseUrl = environmentVariables('Jupyter').baseUrl;
    [clients.main, clients.published, clients.publishedQuery] = await Promise.all([
      connect(projectDll(work, 'jupyter-overlaid', 'Jupyter'), { [baseUrl]: jupyter.origin, [tokenVariable]: `token ${jupyter.token}` }),
      connect(projectDll(work, 'jupyter', 'Jupyter'), { [baseUrl]: jupyter.origin }),
      // With the document as published, the token can still go in the base URL's query, as Jupyter prints it.
      connect(projectDll(work, 'jupyter', 'Jupyter'), { [baseUrl]: `${jupyter.origin}/?token=${jupyter.token}` }),
    ]);
    tools = new Set((await clients.main.listTools()).tools.map((t) => t.name));
  });

  after(async () => {
    await Promise.allSettled([clients.main?.close(), clients.published?.close(), clients.publishedQuery?.close()]);
    await jupyter?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const tool = (name: string, args: Record<string, unknown> = {}, client: keyof typeof clients = 'main'): Promise<Answer> => call(clients[client]!, tools, name, args);
  const onDisk = (path: string): string => join(jupyter!.root, path);
  /** Writes a file into the server's root folder (its folders too). */
  const arrange = async (path: string, content: string | Buffer): Promise<void> => {
    await mkdir(dirname(onDisk(path)), { recursive: true });
    await writeFile(onDisk(path), content);
  };
  const text = (path: string): Promise<string> => readFile(onDisk(path), 'utf8');
  const kernelProcesses = async (id: string): Promise<number[]> => (await jupyter!.processes()).filter((p) => p.command.includes(`kernel-${id}.json`)).map((p) => p.pid);

  test('tools/list: one tool per operation of the document (29); the overlaid project asks for the token in mcp.json', () => {
    assert.equal(tools.size, 29, [...tools].join(', '));
    assert.equal(tokenVariable, 'JUPYTER_TOKEN_KEY');
  });

  test('the document as published declares no token: the call is sent without one, refused (HTTP 403), nothing written', async () => {
    const answer = await tool('update_content', { path: 'refused.txt', body: { type: 'file', format: 'text', content: 'x' } }, 'published');
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /HTTP 403/);
    assert.match(jupyter!.log(), /403 PUT \/api\/contents\/refused\.txt/);
    assert.equal(existsSync(onDisk('refused.txt')), false);
  });

  test('the document as published, the token in the base URL query: the file is written', async () => {
    success(await tool('update_content', { path: 'by-query.txt', body: { type: 'file', format: 'text', content: 'sent with ?token=' } }, 'publishedQuery'));
    assert.equal(await text('by-query.txt'), 'sent with ?token=');
  });

  test('the document as published types a notebook\'s content as a string: the notebook is refused, nothing written', async () => {
    const answer = await tool('update_content', { path: 'published.ipynb', body: { type: 'notebook', format: 'json', content: notebook('1') } }, 'publishedQuery');
    assert.equal(answer.text, "Error: invalid arguments for update_content: 'body.content' must be a string");
    assert.equal(existsSync(onDisk('published.ipynb')), false);
  });

  test('the document as published requires a session kernel\'s id: a session naming its kernel is refused, none started', async () => {
    const answer = await tool('create_session', { body: { path: 'published.ipynb', type: 'notebook', kernel: { name: 'python3' } } }, 'publishedQuery');
    assert.equal(answer.text, "Error: invalid arguments for create_session: 'body.kernel.id' is required");
    assert.deepEqual((await jupyter!.api('/api/sessions')).body, []);
  });

  test('update_content of a text file in a folder: the file has exactly that text on disk', async () => {
    await mkdir(onDisk('notes'), { recursive: true });
    const answer = success(await tool('update_content', { path: 'notes/todo.txt', body: { type: 'file', format: 'text', content: 'buy milk\nécrire «ça»\n' } }));
    assert.deepEqual([answer.path, answer.type], ['notes/todo.txt', 'file']);
    assert.equal(await text('notes/todo.txt'), 'buy milk\nécrire «ça»\n');
  });

  test('update_content of a notebook (content as nbformat JSON): a valid notebook with that cell on disk', async () => {
    success(await tool('update_content', { path: 'analysis.ipynb', body: { type: 'notebook', format: 'json', content: notebook('print(6 * 7)') } }));
    const saved = JSON.parse(await text('analysis.ipynb'));
    assert.equal(saved.nbformat, 4);
    // nbformat writes a cell's source as its lines.
    assert.deepEqual(saved.cells.map((c: { source: string | string[] }) => [c.source].flat().join('')), ['print(6 * 7)']);
  });

  test('get_content of a text file: the text on disk, with its type and mimetype', async () => {
    await arrange('read/hello.txt', 'hello from disk\n');
    const answer = success(await tool('get_content', { path: 'read/hello.txt' }));
    assert.deepEqual([answer.content, answer.format, answer.type, answer.mimetype], ['hello from disk\n', 'text', 'file', 'text/plain']);
  });

  test('get_content of a binary file as base64: exactly the bytes on disk', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10]);
    await arrange('read/image.bin', bytes);
    const answer = success(await tool('get_content', { path: 'read/image.bin', format: 'base64' }));
    assert.deepEqual(Buffer.from(answer.content, 'base64'), bytes);
  });

  test('get_content of a folder: its entries, as on disk', async () => {
    for (const name of ['a.txt', 'b.txt', 'c.ipynb']) await arrange(`listed/${name}`, name.endsWith('.ipynb') ? JSON.stringify(notebook('1')) : name);
    await mkdir(onDisk('listed/sub'));
    const answer = success(await tool('get_content', { path: 'listed' }));
    assert.equal(answer.type, 'directory');
    const entries = (answer.content as { name: string; type: string }[]).map((e) => `${e.name}:${e.type}`).sort();
    assert.deepEqual(entries, ['a.txt:file', 'b.txt:file', 'c.ipynb:notebook', 'sub:directory']);
    assert.deepEqual(entries.map((e) => e.split(':')[0]), (await readdir(onDisk('listed'))).sort());
  });

  test('get_content of the root folder (path "/"): the root entries, as on disk', async () => {
    await arrange('at-root.txt', 'root');
    const answer = success(await tool('get_content', { path: '/' }));
    assert.equal(answer.path, '');
    const names = (answer.content as { name: string }[]).map((e) => e.name);
    assert.ok(names.includes('at-root.txt'), names.join(' '));
    assert.deepEqual(names.sort(), (await readdir(onDisk(''))).filter((n) => !n.startsWith('.')).sort());
  });

  test('create_content of a new notebook in a folder: an empty untitled notebook on disk, named in the answer', async () => {
    await mkdir(onDisk('new'), { recursive: true });
    const answer = success(await tool('create_content', { path: 'new', body: { type: 'notebook' } }));
    assert.match(answer.path, /^new\/Untitled\d*\.ipynb$/);
    assert.deepEqual(JSON.parse(await text(answer.path)).cells, []);
  });

  test('create_content of a new folder: the folder on disk', async () => {
    await mkdir(onDisk('parent'), { recursive: true });
    const answer = success(await tool('create_content', { path: 'parent', body: { type: 'directory' } }));
    assert.equal(answer.type, 'directory');
    assert.deepEqual(await readdir(onDisk('parent')), [answer.name]);
  });

  test('create_content with copy_from: a copy with the same bytes, the original kept', async () => {
    await arrange('copy/original.txt', 'copied text');
    const answer = success(await tool('create_content', { path: 'copy', body: { copy_from: 'copy/original.txt' } }));
    assert.match(answer.path, /^copy\/original-Copy\d*\.txt$/);
    assert.equal(await text(answer.path), 'copied text');
    assert.equal(await text('copy/original.txt'), 'copied text');
  });

  test('patch_content renames a file: gone from the old path, the same bytes at the new one', async () => {
    await arrange('rename/old.txt', 'renamed text');
    const answer = success(await tool('patch_content', { path: 'rename/old.txt', body: { path: 'rename/new.txt' } }));
    assert.equal(answer.path, 'rename/new.txt');
    assert.equal(existsSync(onDisk('rename/old.txt')), false);
    assert.equal(await text('rename/new.txt'), 'renamed text');
  });

  test("patch_content onto a file that exists: the server's reason (HTTP 409), both files unchanged", async () => {
    await arrange('clash/one.txt', 'one');
    await arrange('clash/two.txt', 'two');
    const answer = await tool('patch_content', { path: 'clash/one.txt', body: { path: 'clash/two.txt' } });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /File already exists: clash\/two\.txt.*HTTP 409/);
    assert.deepEqual([await text('clash/one.txt'), await text('clash/two.txt')], ['one', 'two']);
  });

  test('delete_content of a file: gone from disk, its neighbour kept', async () => {
    await arrange('delete/doomed.txt', 'x');
    await arrange('delete/kept.txt', 'y');
    success(await tool('delete_content', { path: 'delete/doomed.txt' }));
    // Deleting a file's checkpoints, the server makes the (empty) folder they would be in.
    assert.deepEqual((await readdir(onDisk('delete'))).filter((name) => name !== '.ipynb_checkpoints'), ['kept.txt']);
  });

  test("get_content of a file that does not exist: not found, with the server's reason naming it (HTTP 404)", async () => {
    const answer = await tool('get_content', { path: 'missing/nothing.txt' });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /^Error: file or directory does not exist: 'missing\/nothing\.txt' \(HTTP 404\)$/);
  });

  test('an argument typo (paht) is refused before anything is sent, naming the arguments the tool takes', async () => {
    const answer = await tool('delete_content', { paht: 'delete/kept.txt' });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /paht/);
    assert.match(answer.text, /'path'/);
  });

  test('checkpoints: create, list, restore the file to it after a change on disk, delete', async () => {
    await arrange('saved/draft.txt', 'version 1');
    const checkpoint = success(await tool('create_content_checkpoint', { path: 'saved/draft.txt' }));
    assert.equal(await text('saved/.ipynb_checkpoints/draft-checkpoint.txt'), 'version 1');
    const listed = success(await tool('list_content_checkpoints', { path: 'saved/draft.txt' }));
    assert.deepEqual(listed.map((c: { id: string }) => c.id), [checkpoint.id]);
    await writeFile(onDisk('saved/draft.txt'), 'version 2');
    success(await tool('create_content_checkpoint_by_checkpoint_id', { path: 'saved/draft.txt', checkpointId: checkpoint.id }));
    assert.equal(await text('saved/draft.txt'), 'version 1');
    success(await tool('delete_content_checkpoint', { path: 'saved/draft.txt', checkpointId: checkpoint.id }));
    assert.equal(existsSync(onDisk('saved/.ipynb_checkpoints/draft-checkpoint.txt')), false);
  });

  test('update_content of a binary file as base64: exactly those bytes on disk', async () => {
    const bytes = Buffer.from([0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff, 0x0a, 0x22]);
    success(await tool('update_content', { path: 'upload.bin', body: { type: 'file', format: 'base64', content: bytes.toString('base64') } }));
    assert.deepEqual(await readFile(onDisk('upload.bin')), bytes);
  });

  test('patch_content renames a folder: its files at the new path, the old folder gone', async () => {
    await arrange('project-a/data/one.csv', 'a,b\n1,2\n');
    await arrange('project-a/readme.md', '# A');
    success(await tool('patch_content', { path: 'project-a', body: { path: 'project-b' } }));
    assert.equal(existsSync(onDisk('project-a')), false);
    assert.deepEqual([await text('project-b/data/one.csv'), await text('project-b/readme.md')], ['a,b\n1,2\n', '# A']);
  });

  test("get_content of a binary file as text: the server's reason (bad format, HTTP 400)", async () => {
    await arrange('read/binary.dat', Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    const answer = await tool('get_content', { path: 'read/binary.dat', format: 'text' });
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /read\/binary\.dat is not UTF-8 encoded.*HTTP 400/);
  });

  test('create_kernel, get_kernel, delete_kernel: the kernel process runs, then is gone', async () => {
    const kernel = success(await tool('create_kernel', { body: { name: 'python3' } }));
    assert.equal(kernel.name, 'python3');
    assert.ok(await eventually(async () => (await kernelProcesses(kernel.id)).length === 1), 'no kernel process');
    assert.equal(success(await tool('get_kernel', { kernelId: kernel.id })).id, kernel.id);
    assert.ok(success(await tool('list_kernels')).some((k: { id: string }) => k.id === kernel.id));
    success(await tool('delete_kernel', { kernelId: kernel.id }));
    assert.ok(await eventually(async () => (await kernelProcesses(kernel.id)).length === 0), 'the kernel process is still running');
    assert.equal((await jupyter!.api(`/api/kernels/${kernel.id}`)).status, 404);
  });

  test('restart_kernel: the same kernel id, a new kernel process in place of the old one', async () => {
    const kernel = (await jupyter!.api('/api/kernels', { method: 'POST', body: { name: 'python3' } })).body as { id: string };
    assert.ok(await eventually(async () => (await kernelProcesses(kernel.id)).length === 1), 'no kernel process');
    const [before] = await kernelProcesses(kernel.id);
    assert.equal(success(await tool('restart_kernel', { kernelId: kernel.id })).id, kernel.id);
    assert.ok(await eventually(async () => { const now = await kernelProcesses(kernel.id); return now.length === 1 && now[0] !== before; }), 'the kernel process was not replaced');
    await jupyter!.api(`/api/kernels/${kernel.id}`, { method: 'DELETE' });
  });

  test('create_session for a notebook: the session on the server, its kernel process running; delete_session ends both', async () => {
    await arrange('sessions/work.ipynb', JSON.stringify(notebook('x = 1')));
    const session = success(await tool('create_session', { body: { path: 'sessions/work.ipynb', name: 'work.ipynb', type: 'notebook', kernel: { name: 'python3' } } }));
    const onServer = (await jupyter!.api('/api/sessions')).body as { id: string; path: string; kernel: { id: string } }[];
    assert.deepEqual(onServer.filter((s) => s.id === session.id).map((s) => [s.path, s.kernel.id]), [['sessions/work.ipynb', session.kernel.id]]);
    assert.ok(await eventually(async () => (await kernelProcesses(session.kernel.id)).length === 1), 'no kernel process');
    success(await tool('delete_session', { session: session.id }));
    assert.equal((await jupyter!.api(`/api/sessions/${session.id}`)).status, 404);
    assert.ok(await eventually(async () => (await kernelProcesses(session.kernel.id)).length === 0), 'the kernel process is still running');
  });

  test('create_terminal, delete_terminal: a shell runs in the root folder, then is gone', async () => {
    const before = new Set((await jupyter!.processes()).map((p) => p.pid));
    const terminal = success(await tool('create_terminal'));
    const shells = async (): Promise<number[]> => (await jupyter!.processes()).filter((p) => !before.has(p.pid) && !p.command.includes('ipykernel')).map((p) => p.pid);
    assert.ok(await eventually(async () => (await shells()).length === 1), 'no shell');
    assert.equal(success(await tool('get_terminal', { terminalId: terminal.name })).name, terminal.name);
    success(await tool('delete_terminal', { terminalId: terminal.name }));
    assert.ok(await eventually(async () => (await shells()).length === 0), 'the shell is still running');
  });

  test('patch_config: the section in its file in the configuration folder, and read back by get_config', async () => {
    success(await tool('patch_config', { sectionName: 'assistant', body: { theme: 'dark', fontSize: 14 } }));
    const file = JSON.parse(await readFile(join(jupyter!.configFolder, 'serverconfig', 'assistant.json'), 'utf8'));
    assert.deepEqual(file, { theme: 'dark', fontSize: 14 });
    assert.deepEqual(success(await tool('get_config', { sectionName: 'assistant' })), file);
  });

  test('get_status and list_kernelspecs: as the server reports them', async () => {
    const status = success(await tool('get_status'));
    assert.equal(status.started, (await jupyter!.api('/api/status')).body.started);
    const specs = success(await tool('list_kernelspecs'));
    assert.deepEqual(specs, (await jupyter!.api('/api/kernelspecs')).body);
    assert.equal(specs.default, 'python3');
  });

  test('get_spec: the document the server serves, as the fixture has it', async () => {
    const answer = await tool('get_spec');
    assert.equal(answer.isError, false, answer.text);
    const fixture = (await readFile(JUPYTER_SPEC, 'utf8')).split('\n').slice(2).join('\n');
    assert.equal(answer.text.trim(), fixture.trim());
  });
});
