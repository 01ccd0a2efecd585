/**
 * A real framework app: the generated MCP server driven against a NestJS 11 app (test/fixtures/frameworks/nestjs,
 * TypeScript on Express) whose OpenAPI 3.0 document @nestjs/swagger 11 builds at run time from its controllers and
 * DTOs (SwaggerModule.createDocument, served by SwaggerModule.setup at /api-json): class-validator DTOs with
 * @ApiProperty, a global ValidationPipe, a bearer-token guard (@ApiBearerAuth) on the writes, and a FileInterceptor
 * upload (@ApiConsumes multipart/form-data). The project is generated with `init` from the document URL the app
 * serves, built, and its tools called as an assistant calls them (MCP tools/call); every effect is checked in the state
 * file the app writes after each change (and the attachments' bytes in its upload folder), besides the tool's answer.
 *
 * Each check arranges what it needs through the app's own API, so that one failure does not fail the next. Where a
 * check expects what the generator does not do yet, the same request made directly to the app shows that the check
 * asks for what the app does.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { scratchDir } from './support/scratch.js';
import { call, success, type Answer } from './support/real-apis.js';
import {
  assertError, connectTasks, ensureNestApp, fields, generateTaskProjects, nestVersions, startNest, TASK_TOOLS, uploadDirectly, type NestServer,
} from './support/frameworks/nestjs.js';

describe('generated MCP server against a NestJS 11 app with @nestjs/swagger 11 (OpenAPI 3.0, on 127.0.0.1)', { timeout: 20 * 60_000 }, () => {
  let work = '';
  let app: NestServer | undefined;
  let client: Client | undefined;
  /** The same server with a wrong bearer token, and with none. */
  let wrongToken: Client | undefined;
  let noToken: Client | undefined;
  /** The server generated with the overlay. */
  let overlaid: Client | undefined;
  let tools = new Set<string>();
  let document: any;

  before(async () => {
    ensureNestApp();
    work = scratchDir('framework-nestjs');
    app = await startNest();
    document = await (await fetch(app.documentUrl)).json();
    // The project as published (tasks) and with the overlay (tasks-overlaid), in one build.
    const tokenVariable = await generateTaskProjects(work, app);
    [client, wrongToken, noToken, overlaid] = await connectTasks(work, app, tokenVariable);
    tools = new Set((await client.listTools()).tools.map((t) => t.name));
  });

  after(async () => {
    await Promise.all([client?.close(), wrongToken?.close(), noToken?.close(), overlaid?.close()]);
    await app?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const tool = (name: string, args: Record<string, unknown> = {}, mcp: Client = client!): Promise<Answer> => call(mcp, tools, name, args);
  const addTask = async (title: string, more: Record<string, unknown> = {}): Promise<number> =>
    Number((await app!.api('/tasks', { body: { title, priority: 'normal', ...more } })).id);

  test('the document: OpenAPI 3.0.0, as @nestjs/swagger builds it; tools/list has one tool per operation', () => {
    assert.equal(document.openapi, '3.0.0');
    assert.deepEqual(document.components.securitySchemes.bearer, { scheme: 'bearer', bearerFormat: 'JWT', type: 'http' });
    assert.deepEqual(document.paths['/tasks/{id}/attachments'].post.requestBody.content['multipart/form-data'].schema.properties.file,
      { type: 'string', format: 'binary', description: 'The file, at most 1 MB' });
    // Without the @nestjs/swagger CLI plugin, the class-validator rules that @ApiProperty does not repeat are not in the document.
    assert.deepEqual(document.components.schemas.CreateTaskDto.properties.title, { type: 'string', example: 'Write the quarterly report' });
    assert.deepEqual([...tools].sort(), TASK_TOOLS);
    const versions = nestVersions();
    assert.deepEqual([versions['@nestjs/core'], versions['@nestjs/swagger'], versions['class-validator']], ['11.2.10', '11.4.7', '0.15.1']);
  });

  test('create_task: nested assignee, an array of checklist objects, tags, enums, a decimal and the due time stored as given', async () => {
    const body = {
      title: 'Quartalsbericht schreiben — Q3',
      description: 'Numbers from finance, text from everyone',
      priority: 'high',
      status: 'in_progress',
      tags: ['finance', 'q3'],
      assignee: { name: 'Ada Lovelace', email: 'ada@example.com' },
      checklist: [{ text: 'Collect the numbers', done: true }, { text: 'Write the draft', done: false }],
      dueAt: '2027-04-30T18:00:00.000Z',
      estimateHours: 6.5,
    };
    const answer = success(await tool('create_task', { body }));
    const id = Number(answer.id);
    // The due time is the model's own text ("send a valid date-time as written"): the app stores the string.
    assert.deepEqual(fields(app!.task(id)), body);
    assert.equal(answer.title, body.title);
  });

  test('get_task: the task as the state has it', async () => {
    const id = await addTask('Read me', { tags: ['read'], assignee: { name: 'Grace Hopper', email: 'grace@example.com' }, dueAt: '2027-01-15T09:00:00.000Z' });
    const answer = success(await tool('get_task', { id }));
    assert.deepEqual(answer, app!.task(id));
  });

  test('get_task of an id that does not exist: the 404 with the reason Nest gives', async () => {
    assertError(await tool('get_task', { id: 999_999 }), /Task 999999 not found.*\(HTTP 404\)/);
  });

  test('list_tasks filtered by status, priority and tag: the tasks the state has', async () => {
    const tag = `t${process.pid}`;
    const wanted = [await addTask('Urgent and open', { priority: 'urgent', tags: [tag] }), await addTask('Urgent and open 2', { priority: 'urgent', tags: ['x', tag] })];
    await addTask('Urgent but done', { priority: 'urgent', status: 'done', tags: [tag] });
    await addTask('Open but low', { priority: 'low', tags: [tag] });
    await addTask('Urgent without the tag', { priority: 'urgent' });
    const answer = success(await tool('list_tasks', { status: 'todo', priority: 'urgent', tag })) as { total: number; items: { id: number }[] };
    const expected = app!.state().tasks.filter((t) => t.status === 'todo' && t.priority === 'urgent' && t.tags.includes(tag)).map((t) => t.id);
    assert.deepEqual(answer.items.map((t) => t.id), expected);
    assert.deepEqual(expected, wanted);
    assert.equal(answer.total, 2);
  });

  test('list_tasks with page and limit: the second page of what the state has, and the total over all pages', async () => {
    const tag = `page-${process.pid}`;
    const ids = [];
    for (const n of [1, 2, 3, 4, 5]) ids.push(await addTask(`Page task ${n}`, { tags: [tag] }));
    const answer = success(await tool('list_tasks', { tag, page: 2, limit: 2 })) as { total: number; page: number; limit: number; items: { id: number }[] };
    assert.deepEqual(answer.items.map((t) => t.id), ids.slice(2, 4));
    assert.deepEqual([answer.total, answer.page, answer.limit], [app!.state().tasks.filter((t) => t.tags.includes(tag)).length, 2, 2]);
  });

  test('list_tasks with dueBefore (a date-time in the query): the tasks due before it', async () => {
    const tag = `due-${process.pid}`;
    const early = await addTask('Due early', { tags: [tag], dueAt: '2030-03-01T08:00:00.000Z' });
    await addTask('Due late', { tags: [tag], dueAt: '2030-03-02T08:00:00.000Z' });
    await addTask('Never due', { tags: [tag] });
    const answer = success(await tool('list_tasks', { tag, dueBefore: '2030-03-01T12:00:00Z' })) as { items: { id: number }[] };
    assert.deepEqual(answer.items.map((t) => t.id), [early]);
  });

  test('patch_task: the fields given changed (the assignee and description cleared with null, a due time with its offset), the others kept', async () => {
    const id = await addTask('Patch me', {
      description: 'will be cleared', tags: ['keep'], assignee: { name: 'Old', email: 'old@example.com' },
      checklist: [{ text: 'stays', done: false }], dueAt: '2027-05-01T10:00:00.000Z', estimateHours: 2,
    });
    success(await tool('patch_task', { id, body: { status: 'in_progress', assignee: null, description: null, dueAt: '2027-05-03T09:30:00+02:00' } }));
    assert.deepEqual(fields(app!.task(id)), {
      title: 'Patch me', description: null, priority: 'normal', status: 'in_progress', tags: ['keep'], assignee: null,
      checklist: [{ text: 'stays', done: false }], dueAt: '2027-05-03T09:30:00+02:00', estimateHours: 2,
    });
  });

  test("patch_task with only a title: the status keeps its value (the document's default 'todo' is not sent)", async () => {
    const id = await addTask('Old title', { status: 'done', priority: 'low' });
    success(await tool('patch_task', { id, body: { title: 'New title' } }));
    const stored = app!.task(id)!;
    assert.deepEqual([stored.title, stored.status, stored.priority], ['New title', 'done', 'low']);
  });

  test('delete_task: the task is gone from the state, the answer says 204; a second delete is a 404', async () => {
    const id = await addTask('Delete me');
    assert.deepEqual(success(await tool('delete_task', { id })), { status: 204 });
    assert.equal(app!.task(id), undefined);
    assertError(await tool('delete_task', { id }), new RegExp(`Task ${id} not found.*\\(HTTP 404\\)`));
  });

  test("create_task that class-validator refuses: each of the ValidationPipe's reasons (field and why) reaches the model; nothing stored", async () => {
    const body = { title: 'ab', priority: 'high', tags: ['Urgent Stuff'], assignee: { name: 'Local', email: 'ada@localhost' } };
    // The app's own answer: {"message": [...], "error": "Bad Request", "statusCode": 400}; the document states none of these rules.
    await assert.rejects(app!.api('/tasks', { body }), /HTTP 400: \{"message":\["title must be longer than or equal to 3 characters","each tag must be lower-case letters, digits and dashes","assignee\.email must be an email"\]/);
    const before = app!.state().tasks.length;
    const answer = await tool('create_task', { body });
    assertError(answer, /\(HTTP 400\)/);
    assert.match(answer.text, /title must be longer than or equal to 3 characters/);
    assert.match(answer.text, /each tag must be lower-case letters, digits and dashes/);
    assert.match(answer.text, /assignee\.email must be an email/);
    assert.equal(app!.state().tasks.length, before);
  });

  test('create_task with a priority outside the enum and hours above the maximum: refused before sending, naming each; nothing stored', async () => {
    const body = { title: 'Out of bounds', priority: 'critical', estimateHours: 500 };
    await assert.rejects(app!.api('/tasks', { body }), /priority must be one of the following values: low, normal, high, urgent.*estimateHours must not be greater than 200/);
    const answer = await tool('create_task', { body });
    assertError(answer, /body\.priority.*"low", "normal", "high", "urgent"/);
    assert.match(answer.text, /body\.estimateHours.*at most 200/);
    assert.equal(app!.state().tasks.some((t) => t.title === 'Out of bounds'), false);
  });

  test('patch_task with a property the DTO does not have: refused, naming it; the task unchanged', async () => {
    const id = await addTask('Typo target', { status: 'todo' });
    // The app's forbidNonWhitelisted ValidationPipe says the same.
    await assert.rejects(app!.api(`/tasks/${id}`, { method: 'PATCH', body: { state: 'done' } }), /property state should not exist/);
    assertError(await tool('patch_task', { id, body: { state: 'done' } }), /body\.state/);
    assert.equal(app!.task(id)!.status, 'todo');
  });

  test('create_task with a wrong bearer token: the 401 with its reason, nothing stored; without a token, not sent', async () => {
    const before = app!.state().tasks.length;
    assertError(await tool('create_task', { body: { title: 'Wrong token', priority: 'low' } }, wrongToken), /Missing or invalid bearer token.*\(HTTP 401\)/);
    assertError(await tool('create_task', { body: { title: 'No token', priority: 'low' } }, noToken), /not sent.*TASKS_BEARER_TOKEN/);
    assert.equal(app!.state().tasks.length, before);
    // Reads need no token.
    const id = await addTask('Readable without a token');
    assert.equal(success(await tool('get_task', { id }, noToken)).title, 'Readable without a token');
  });

  test("create_task_attachment: the file's bytes, name and media type stored with the note (FileInterceptor, multipart)", async () => {
    const id = await addTask('With an attachment');
    const bytes = Buffer.from(`Meeting notes for task ${id}\nÄrger mit Umlauten: ok\n`, 'utf8');
    const answer = success(await tool('create_task_attachment', {
      id,
      body: { file: { content: bytes.toString('base64'), fileName: 'notes.txt', contentType: 'text/plain' }, note: 'From Monday' },
    }));
    const [attachment] = app!.task(id)!.attachments;
    assert.deepEqual(attachment, {
      id: answer.id, fileName: 'notes.txt', contentType: 'text/plain', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), note: 'From Monday',
    });
    assert.deepEqual(readFileSync(join(app!.uploads, app!.state().files[String(answer.id)]!)), bytes);
  });

  test('create_task_attachment for a task that does not exist: the 404, and no file stored', async () => {
    const answer = await tool('create_task_attachment', { id: 888_888, body: { file: { content: Buffer.from('x').toString('base64'), fileName: 'x.txt', contentType: 'text/plain' } } });
    assertError(answer, /Task 888888 not found.*\(HTTP 404\)/);
    assert.deepEqual(readdirSync(app!.uploads).filter((name) => name.startsWith('task-888888-')), []);
  });

  test('the document types the task id `number` (a C# double): 2.5 reaches the app, whose ParseIntPipe refuses it; with the overlay an integer (long), refused before sending', async () => {
    const id = await addTask('Integer ids');
    assertError(await tool('get_task', { id: 2.5 }), /Validation failed \(numeric string is expected\).*\(HTTP 400\)/);
    assertError(await tool('get_task', { id: 2.5 }, overlaid), /'id' must be an integer/);
    assert.equal(success(await tool('get_task', { id }, overlaid)).title, 'Integer ids');
    assert.match(readFileSync(join(work, 'tasks/Client/ApiClient.g.cs'), 'utf8'), /GetTaskAsync\(this HttpClient httpClient, double id,/);
    assert.match(readFileSync(join(work, 'tasks-overlaid/Client/ApiClient.g.cs'), 'utf8'), /GetTaskAsync\(this HttpClient httpClient, long id,/);
  });

  test('list_tasks with page 1.5: refused by the app (@IsInt) with the published document, before sending with the overlay; then the same page with both', async () => {
    const tag = `int-${process.pid}`;
    for (const n of [1, 2, 3]) await addTask(`Int page ${n}`, { tags: [tag] });
    assertError(await tool('list_tasks', { tag, page: 1.5, limit: 2 }), /page must be an integer number.*\(HTTP 400\)/);
    assertError(await tool('list_tasks', { tag, page: 1.5, limit: 2 }, overlaid), /'page' must be an integer/);
    const titles = async (mcp: Client): Promise<string[]> => (success(await tool('list_tasks', { tag, page: 2, limit: 2 }, mcp)) as { items: { title: string }[] }).items.map((t) => t.title);
    assert.deepEqual(await titles(client!), ['Int page 3']);
    assert.deepEqual(await titles(overlaid!), ['Int page 3']);
  });

  test("patch_task's status: the published document gives it CreateTaskDto's default 'todo' (PartialType), the overlay none", async () => {
    const status = async (mcp: Client): Promise<Record<string, unknown>> => {
      const patch = (await mcp.listTools()).tools.find((t) => t.name === 'patch_task')!;
      return ((patch.inputSchema.properties as any).body.properties.status) as Record<string, unknown>;
    };
    assert.equal((await status(client!)).default, 'todo');
    const fixed = await status(overlaid!);
    assert.equal(fixed.default, undefined);
    assert.doesNotMatch(String(fixed.description ?? ''), /Default/);
  });

  test('create_task_attachment with a file name in Unicode and one with double quotes: each stored under the name given, as the same file sent by a browser', async () => {
    // multer (told to read names as UTF-8, as browsers write them) decodes the %22 browsers write for a quote.
    for (const [fileName, stored] of [['Protokoll – Übersicht.txt', 'Protokoll – Übersicht.txt'], ['say "hi".txt', 'say "hi".txt']] as const) {
      const direct = await addTask(`Attachment sent directly, named ${fileName}`);
      await uploadDirectly(app!, `/tasks/${direct}/attachments`, fileName);
      assert.equal(app!.task(direct)!.attachments[0]?.fileName, stored);
      const id = await addTask(`Attachment named ${fileName}`);
      const answer = await tool('create_task_attachment', { id, body: { file: { content: Buffer.from(fileName).toString('base64'), fileName, contentType: 'text/plain' } } });
      assert.equal(answer.isError, false, answer.text);
      assert.equal(app!.task(id)!.attachments[0]?.fileName, stored);
    }
  });

  test('create_task with a due time without an offset: refused naming dueAt, or stored as written; never rewritten with an offset the model did not write', async () => {
    const answer = await tool('create_task', { body: { title: 'Due without offset', priority: 'low', dueAt: '2027-04-30T18:00:00' } });
    const stored = app!.state().tasks.filter((t) => t.title === 'Due without offset');
    if (answer.isError) {
      assert.match(answer.text, /dueAt/);
      assert.deepEqual(stored, []);
    } else {
      assert.deepEqual(stored.map((t) => t.dueAt), ['2027-04-30T18:00:00']);
    }
  });

  test("create_task with an empty checklist text: class-validator's reason for the nested item reaches the model; nothing stored", async () => {
    const body = { title: 'Empty checklist item', priority: 'low', checklist: [{ text: 'fine' }, { text: '' }] };
    await assert.rejects(app!.api('/tasks', { body }), /checklist\.1\.text should not be empty/);
    assertError(await tool('create_task', { body }), /checklist\.1\.text should not be empty.*\(HTTP 400\)/);
    assert.equal(app!.state().tasks.some((t) => t.title === 'Empty checklist item'), false);
  });

  test("the C# client: a nullable nested DTO (@nestjs/swagger's `nullable: true, allOf: [$ref]`) is that DTO's record, not a copy per property", () => {
    // The document: "assignee": {"nullable": true, "type": "object", "allOf": [{"$ref": "#/components/schemas/AssigneeDto"}]}.
    assert.deepEqual(document.components.schemas.TaskDto.properties.assignee, { nullable: true, type: 'object', allOf: [{ $ref: '#/components/schemas/AssigneeDto' }] });
    const models = readFileSync(join(work, 'tasks/Client/Models.g.cs'), 'utf8');
    // CreateTaskDto, TaskDto and UpdateTaskDto each have the property.
    assert.deepEqual(models.match(/public .*\bAssignee \{ get; init; \}/g), [
      'public AssigneeDto? Assignee { get; init; }', 'public required AssigneeDto? Assignee { get; init; }', 'public AssigneeDto? Assignee { get; init; }',
    ]);
    assert.deepEqual(models.match(/partial record \w*Assignee\w*/g), ['partial record AssigneeDto']);
  });

  // Held out: written after the checks above, and run once.
  test('unseen: patch_task replacing the tags and the checklist: the new arrays whole in the state, the rest kept', async () => {
    const id = await addTask('Arrays replaced', { tags: ['a', 'b'], checklist: [{ text: 'one' }, { text: 'two', done: true }], estimateHours: 1.25 });
    success(await tool('patch_task', { id, body: { tags: ['c'], checklist: [{ text: 'three', done: true }] } }));
    const stored = app!.task(id)!;
    assert.deepEqual([stored.tags, stored.checklist, stored.estimateHours, stored.title], [['c'], [{ text: 'three', done: true }], 1.25, 'Arrays replaced']);
  });

  test('unseen: two attachments on one task: both in the state in order, each file with its own bytes', async () => {
    const id = await addTask('Two attachments');
    const files = [['first.txt', 'first file'], ['second.csv', 'a,b\n1,2\n']] as const;
    for (const [fileName, text] of files) {
      success(await tool('create_task_attachment', { id, body: { file: { content: Buffer.from(text).toString('base64'), fileName, contentType: fileName.endsWith('.csv') ? 'text/csv' : 'text/plain' } } }));
    }
    const state = app!.state();
    const attachments = state.tasks.find((t) => t.id === id)!.attachments;
    assert.deepEqual(attachments.map((a) => [a.fileName, a.contentType, a.size]), [['first.txt', 'text/plain', 10], ['second.csv', 'text/csv', 8]]);
    assert.deepEqual(attachments.map((a) => readFileSync(join(app!.uploads, state.files[String(a.id)]!), 'utf8')), files.map(([, text]) => text));
  });

  test('unseen: list_tasks by priority over two pages: together the tasks the state has of that priority, each once', async () => {
    const tag = `pages-${process.pid}`;
    for (const n of [1, 2, 3]) await addTask(`High ${n}`, { priority: 'high', tags: [tag] });
    await addTask('Low among them', { priority: 'low', tags: [tag] });
    const page = async (n: number): Promise<number[]> => (success(await tool('list_tasks', { tag, priority: 'high', page: n, limit: 2 })) as { items: { id: number }[] }).items.map((t) => t.id);
    const both = [...(await page(1)), ...(await page(2))];
    assert.deepEqual(both, app!.state().tasks.filter((t) => t.priority === 'high' && t.tags.includes(tag)).map((t) => t.id));
    assert.equal(both.length, 3);
  });

  test('unseen: patch_task emptying the tags and the checklist: [] for each in the state, the assignee, the estimate and the rest kept', async () => {
    const id = await addTask('Arrays emptied', { tags: ['x', 'y'], checklist: [{ text: 'one', done: true }], assignee: { name: 'Kim', email: 'kim@example.com' }, estimateHours: 3 });
    const before = fields(app!.task(id));
    success(await tool('patch_task', { id, body: { tags: [], checklist: [] } }));
    assert.deepEqual(fields(app!.task(id)), { ...before, tags: [], checklist: [] });
  });

  test('unseen: create_task with a title in several scripts and a long description (emoji, combining marks, quotes, backslashes, line breaks, U+2028): stored exactly, read back the same', async () => {
    const title = 'Überprüfung 日本語 العربية עברית 👩🏽‍💻 e\u0301 «ok»';
    const description = 'Zeile „eins“ — ✓ 🎉 e\u0301 \\path\\to "quoted" <b>&amp;</b>\ttab\u2028sep\n'.repeat(200);
    const answer = success(await tool('create_task', { body: { title, description, priority: 'low' } }));
    assert.deepEqual([app!.task(Number(answer.id))?.title, app!.task(Number(answer.id))?.description], [title, description]);
    const read = success(await tool('get_task', { id: Number(answer.id) }));
    assert.deepEqual([read.title, read.description, read.description.length], [title, description, description.length]);
  });
});
