/**
 * A real framework app: the generated MCP server driven against a Fastify 5 app (test/fixtures/frameworks/fastify,
 * plain JavaScript, ESM) whose OpenAPI 3.1 document @fastify/swagger 9 writes at run time from the routes' JSON
 * schemas (body, querystring, params, headers, response), with @fastify/multipart for a file upload and an API key
 * checked in a preHandler. The project is generated with `init` from the document URL the app serves, built, and its
 * tools called as an assistant calls them (MCP tools/call); every effect is checked in the state file the app writes
 * after each change (and the poster's bytes in its upload folder), besides the tool's answer.
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
import { environmentVariables } from '../src/names/environment.js';
import { connect } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import { call, success, type Answer } from './support/real-apis.js';
import { buildProjects, credentialVariable, initProject, projectDll } from './support/real-api-projects.js';
import { ensureFastifyApp, fastifyVersions, startFastify, type FastifyServer, type StoredEvent } from './support/frameworks/fastify.js';

const EVENT_TOOLS = ['create_event', 'create_event_poster', 'delete_event', 'get_event', 'list_events', 'update_event'];

describe('generated MCP server against a Fastify 5 app with @fastify/swagger 9 (OpenAPI 3.1, on 127.0.0.1)', { timeout: 20 * 60_000 }, () => {
  let work = '';
  let app: FastifyServer | undefined;
  let client: Client | undefined;
  /** The same server with a wrong API key, and with none. */
  let wrongKey: Client | undefined;
  let noKey: Client | undefined;
  let keyVariable = '';
  let tools = new Set<string>();
  let document: any;

  before(async () => {
    ensureFastifyApp();
    work = scratchDir('framework-fastify');
    app = await startFastify();
    document = await (await fetch(app.documentUrl)).json();
    const init = await initProject(work, app.documentUrl, 'Events', 'events');
    assert.equal(init.code, 0, init.errors);
    const output = await buildProjects(work, ['events/Events.csproj']);
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    keyVariable = await credentialVariable(work, 'events', 'Events');
    assert.equal(keyVariable, 'EVENTS_API_KEY');
    const base = { [environmentVariables('Events').baseUrl]: app.origin };
    const dll = projectDll(work, 'events', 'Events');
    [client, wrongKey, noKey] = await Promise.all([
      connect(dll, { ...base, [keyVariable]: app.apiKey }),
      connect(dll, { ...base, [keyVariable]: 'not-the-key' }),
      connect(dll, base),
    ]);
    tools = new Set((await client.listTools()).tools.map((t) => t.name));
  });

  after(async () => {
    await Promise.all([client?.close(), wrongKey?.close(), noKey?.close()]);
    await app?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const tool = (name: string, args: Record<string, unknown> = {}, mcp: Client = client!): Promise<Answer> => call(mcp, tools, name, args);
  /** A multipart upload made directly to the app as browsers send it (Node's FormData is the WHATWG one): the file name in UTF-8, a quote as %22. */
  const uploadDirectly = async (path: string, fileName: string): Promise<void> => {
    const form = new FormData();
    form.set('poster', new File([Buffer.from('direct')], fileName, { type: 'text/plain' }));
    const response = await fetch(`${app!.origin}${path}`, { method: 'POST', headers: { 'x-api-key': app!.apiKey }, body: form });
    assert.ok(response.ok, await response.text());
  };
  const assertError = (answer: Answer, reason: RegExp): void => {
    assert.equal(answer.isError, true, `not an error: ${answer.text.slice(0, 300)}`);
    assert.match(answer.text, reason);
  };
  /** An event as the app stores it, with the fields a test does not care about filled in. */
  const eventBody = (title: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({
    title,
    category: 'talk',
    startsAt: '2027-03-01T10:00:00Z',
    venue: { name: 'Hall A', address: { city: 'Leipzig', country: 'DE' } },
    ...more,
  });
  const addEvent = async (title: string, more: Record<string, unknown> = {}): Promise<number> =>
    Number((await app!.api('/events', { body: eventBody(title, more) })).id);
  /** What an event's fields are in the state, without what the app adds (id, createdAt, poster). */
  const fields = (event: StoredEvent | undefined): Record<string, unknown> => {
    assert.ok(event, 'no such event in the state');
    const { id: _id, createdAt: _createdAt, poster: _poster, ...rest } = event;
    return rest;
  };

  test('the document: OpenAPI 3.1.0, as @fastify/swagger writes it; tools/list has one tool per operation', () => {
    assert.equal(document.openapi, '3.1.0');
    assert.deepEqual(document.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The API key for writes' });
    // @fastify/multipart's ajvFilePlugin turns `isFile` into a binary string, which the document publishes.
    assert.deepEqual(document.paths['/events/{id}/poster'].post.requestBody.content['multipart/form-data'].schema.properties.poster, { type: 'string', format: 'binary' });
    assert.deepEqual(document.paths['/events'].post.responses['201'].headers.Location.schema, { type: 'string' });
    assert.deepEqual([...tools].sort(), EVENT_TOOLS);
    const versions = fastifyVersions();
    assert.deepEqual(versions, { fastify: '5.12.8', '@fastify/swagger': '9.9.3', '@fastify/multipart': '10.1.9' });
  });

  test('create_event: nested venue and address, an array of speakers, tags, an enum, numbers and the start time stored as given', async () => {
    const body = {
      title: 'Jazz im Hof — „Sommer“',
      category: 'concert',
      startsAt: '2027-04-30T18:00:00.000Z',
      endsAt: '2027-04-30T22:30:00.000Z',
      venue: { name: 'Hof der Schaubühne', address: { street: 'Kurfürstendamm 153', city: 'Berlin', country: 'DE' } },
      speakers: [{ name: 'Ada Lovelace', email: 'ada@example.com', bio: 'Poet of science' }, { name: 'Charles Babbage', email: 'charles@example.org', bio: null }],
      tags: ['jazz', 'open-air'],
      capacity: 250,
      price: 18.5,
    };
    const answer = success(await tool('create_event', { body }));
    const id = Number(answer.id);
    // The start and end times are the model's own text ("send a valid date-time as written"): the app stores the string.
    assert.deepEqual(fields(app!.event(id)), body);
    assert.equal(answer.title, body.title);
  });

  test("create_event: the 201's Location header reaches the model beside the event", async () => {
    const result = await client!.callTool({ name: 'create_event', arguments: { body: eventBody('Located') } });
    const blocks = (result.content as { text?: string }[]).map((c) => c.text ?? '');
    assert.notEqual(result.isError, true, blocks[0]);
    const id = Number(JSON.parse(blocks[0]!).id);
    assert.equal(app!.event(id)?.title, 'Located');
    assert.match(blocks.slice(1).join('\n'), new RegExp(`^Location: /events/${id}$`, 'im'));
  });

  test('create_event with an Idempotency-Key header: the retry answers the same event, and the state has it once', async () => {
    const key = `retry-${process.pid}-${Date.now()}`;
    const first = success(await tool('create_event', { idempotencyKey: key, body: eventBody('Retried once') }));
    const second = success(await tool('create_event', { idempotencyKey: key, body: eventBody('Retried once') }));
    assert.equal(second.id, first.id);
    const state = app!.state();
    assert.equal(state.idempotencyKeys[key], Number(first.id));
    assert.deepEqual(state.events.filter((e) => e.title === 'Retried once').map((e) => e.id), [Number(first.id)]);
  });

  test('get_event: the event as the state has it', async () => {
    const id = await addEvent('Read me', { speakers: [{ name: 'Grace Hopper', email: 'grace@example.com' }], tags: ['cobol'], capacity: 40 });
    const answer = success(await tool('get_event', { id }));
    const stored = app!.event(id)!;
    assert.deepEqual(answer, stored);
  });

  test('get_event of an id that does not exist: the 404 with the reason the app gives', async () => {
    assertError(await tool('get_event', { id: 999_999 }), /event 999999 not found.*\(HTTP 404\)/);
  });

  test('list_events filtered by category and tag: the events the state has, in start order', async () => {
    const tag = `t${process.pid}`;
    await addEvent('Late workshop', { category: 'workshop', tags: [tag], startsAt: '2027-06-02T09:00:00Z' });
    await addEvent('Early workshop', { category: 'workshop', tags: [tag, 'x'], startsAt: '2027-06-01T09:00:00Z' });
    await addEvent('Talk with the tag', { category: 'talk', tags: [tag] });
    await addEvent('Workshop without it', { category: 'workshop' });
    const answer = success(await tool('list_events', { category: 'workshop', tag })) as { total: number; items: { title: string }[] };
    const expected = app!.state().events.filter((e) => e.category === 'workshop' && e.tags.includes(tag))
      .sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt)).map((e) => e.title);
    assert.deepEqual(answer.items.map((e) => e.title), expected);
    assert.deepEqual(expected, ['Early workshop', 'Late workshop']);
    assert.equal(answer.total, 2);
  });

  test('list_events with limit and offset: the second page of what the state has, and the total over all pages', async () => {
    const tag = `page-${process.pid}`;
    for (const day of [1, 2, 3, 4, 5]) await addEvent(`Page day ${day}`, { tags: [tag], startsAt: `2028-01-0${day}T12:00:00Z` });
    const answer = success(await tool('list_events', { tag, limit: 2, offset: 2 })) as { total: number; items: { id: number; title: string }[] };
    assert.deepEqual(answer.items.map((e) => e.title), ['Page day 3', 'Page day 4']);
    assert.equal(answer.total, app!.state().events.filter((e) => e.tags.includes(tag)).length);
  });

  test('list_events with startsAfter and startsBefore (date-times in the query): the events of that window', async () => {
    const tag = `window-${process.pid}`;
    await addEvent('Before the window', { tags: [tag], startsAt: '2029-02-28T23:59:59Z' });
    await addEvent('In the window', { tags: [tag], startsAt: '2029-03-15T08:00:00+01:00' });
    await addEvent('After the window', { tags: [tag], startsAt: '2029-04-01T00:00:01Z' });
    const answer = success(await tool('list_events', { tag, startsAfter: '2029-03-01T00:00:00Z', startsBefore: '2029-04-01T00:00:00Z' })) as { items: { title: string }[] };
    assert.deepEqual(answer.items.map((e) => e.title), ['In the window']);
    assert.equal(app!.state().events.find((e) => e.title === 'In the window')?.startsAt, '2029-03-15T08:00:00+01:00');
  });

  test('update_event (PUT): every field replaced as given, endsAt set to null, the price left out gone', async () => {
    const id = await addEvent('Before the update', { endsAt: '2027-03-01T12:00:00Z', tags: ['old'], speakers: [{ name: 'Old Speaker', email: 'old@example.com' }], price: 5 });
    const body = {
      title: 'After the update',
      category: 'meetup',
      startsAt: '2027-03-02T17:30:00Z',
      endsAt: null,
      venue: { name: 'Café Central', address: { city: 'Wien', country: 'AT' } },
      speakers: [{ name: 'New Speaker', email: 'new@example.com' }],
      tags: ['new', 'coffee'],
      capacity: 30,
    };
    const answer = success(await tool('update_event', { id, body }));
    assert.equal(answer.title, 'After the update');
    const stored = app!.event(id)!;
    assert.deepEqual(fields(stored), body);
    assert.equal(stored.price, undefined);
  });

  test('delete_event: the event is gone from the state, and the answer says 204', async () => {
    const id = await addEvent('Delete me');
    const answer = success(await tool('delete_event', { id }));
    assert.deepEqual(answer, { status: 204 });
    assert.equal(app!.event(id), undefined);
    assertError(await tool('delete_event', { id }), /event \d+ not found.*\(HTTP 404\)/);
  });

  test("create_event with a speaker's email AJV refuses: Fastify's message names the field and why; nothing stored", async () => {
    const body = eventBody('Bad email', { speakers: [{ name: 'Local', email: 'ada@localhost' }] });
    // The app's own answer to the same body: AJV's email format wants a domain with a dot; the document says only "email".
    await assert.rejects(app!.api('/events', { body }), /HTTP 400: .*body\/speakers\/0\/email must match format \\"email\\"/);
    const before = app!.state().events.length;
    assertError(await tool('create_event', { body }), /body\/speakers\/0\/email must match format "email".*\(HTTP 400\)/);
    assert.equal(app!.state().events.length, before);
    assert.equal(app!.state().events.some((e) => e.title === 'Bad email'), false);
  });

  test('create_event with a category outside the enum and a country outside the pattern: refused before sending, naming each; nothing stored', async () => {
    const body = eventBody('Bad enum', { category: 'party', venue: { name: 'Club', address: { city: 'Hamburg', country: 'Germany' } } });
    await assert.rejects(app!.api('/events', { body }), /HTTP 400: .*must be equal to one of the allowed values/);
    const answer = await tool('create_event', { body });
    assertError(answer, /body\.category/);
    assert.match(answer.text, /concert.*talk.*workshop.*meetup/);
    assert.match(answer.text, /body\.venue\.address\.country.*\^\[A-Z\]\{2\}\$/);
    assert.equal(app!.state().events.some((e) => e.title === 'Bad enum'), false);
  });

  test('create_event with a wrong API key: the 401 with its reason, nothing stored; without a key, not sent', async () => {
    const before = app!.state().events.length;
    assertError(await tool('create_event', { body: eventBody('Wrong key') }, wrongKey), /a valid x-api-key header is required.*\(HTTP 401\)/);
    assertError(await tool('create_event', { body: eventBody('No key') }, noKey), /not sent.*EVENTS_API_KEY/);
    assert.equal(app!.state().events.length, before);
    // Reads need no key.
    const id = await addEvent('Readable without a key');
    assert.equal(success(await tool('get_event', { id }, noKey)).title, 'Readable without a key');
  });

  test("create_event_poster: the file's bytes, name and media type stored, with the alt text from the query", async () => {
    const id = await addEvent('With a poster');
    const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(`poster of event ${id}`)]);
    const answer = success(await tool('create_event_poster', {
      id,
      alt: 'A trumpet on a blue background',
      body: { poster: { content: bytes.toString('base64'), fileName: 'poster.png', contentType: 'image/png' } },
    }));
    const poster = app!.event(id)!.poster!;
    assert.deepEqual({ ...poster, storedAs: undefined }, {
      fileName: 'poster.png', contentType: 'image/png', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), alt: 'A trumpet on a blue background', storedAs: undefined,
    });
    assert.deepEqual(readFileSync(join(app!.uploads, poster.storedAs)), bytes);
    assert.equal(answer.poster.fileName, 'poster.png');
  });

  test('create_event_poster for an event that does not exist: the 404, and no file stored', async () => {
    const answer = await tool('create_event_poster', { id: 888_888, body: { poster: { content: Buffer.from('x').toString('base64'), fileName: 'x.txt', contentType: 'text/plain' } } });
    assertError(answer, /event 888888 not found.*\(HTTP 404\)/);
    assert.deepEqual(readdirSync(app!.uploads).filter((name) => name.startsWith('event-888888-')), []);
  });

  test('create_event_poster with a file name in Unicode and one with double quotes: each stored as the same file sent by a browser', async () => {
    // @fastify/busboy reads the UTF-8 name as it is; it does not decode the %22 browsers write for a quote, so a
    // name with quotes is stored as a browser's upload of it is.
    for (const [fileName, stored] of [['Plakat – Sommer ä.png', 'Plakat – Sommer ä.png'], ['say "hi".png', 'say %22hi%22.png']] as const) {
      const direct = await addEvent(`Poster sent directly, named ${fileName}`);
      await uploadDirectly(`/events/${direct}/poster`, fileName);
      assert.equal(app!.event(direct)!.poster?.fileName, stored);
      const id = await addEvent(`Poster named ${fileName}`);
      const answer = await tool('create_event_poster', { id, body: { poster: { content: Buffer.from(fileName).toString('base64'), fileName, contentType: 'image/png' } } });
      assert.equal(answer.isError, false, answer.text);
      assert.equal(app!.event(id)!.poster?.fileName, stored);
    }
  });

  test('create_event with a start time without an offset: refused (by the tool or by AJV), naming startsAt; never stored as a time the model did not write', async () => {
    const body = eventBody('No offset', { startsAt: '2027-04-30T18:00:00' });
    await assert.rejects(app!.api('/events', { body }), /body\/startsAt must match format \\"date-time\\"/);
    assertError(await tool('create_event', { body }), /startsAt/);
    assert.deepEqual(app!.state().events.filter((e) => e.title === 'No offset'), []);
  });

  // Held out: written after the checks above, and run once.
  test('unseen: update_event after a poster upload: the fields replaced, the poster kept in the state with its file', async () => {
    const id = await addEvent('Poster then PUT');
    await uploadDirectly(`/events/${id}/poster`, 'kept.png');
    const before = app!.event(id)!.poster!;
    success(await tool('update_event', { id, body: eventBody('PUT after the poster', { category: 'workshop', tags: ['after'] }) }));
    const stored = app!.event(id)!;
    assert.deepEqual([stored.title, stored.category, stored.tags], ['PUT after the poster', 'workshop', ['after']]);
    assert.deepEqual(stored.poster, before);
    assert.equal(readFileSync(join(app!.uploads, before.storedAs), 'utf8'), 'direct');
  });

  test('unseen: list_events with an offset past the last match: no items, and the total of every match', async () => {
    const tag = `past-${process.pid}`;
    for (const n of [1, 2, 3]) await addEvent(`Past ${n}`, { tags: [tag] });
    const answer = success(await tool('list_events', { tag, offset: 10 })) as { total: number; items: unknown[] };
    assert.deepEqual([answer.items, answer.total], [[], app!.state().events.filter((e) => e.tags.includes(tag)).length]);
  });

  test('unseen: create_event at the lowest bounds (price 0, capacity 1) with a speaker whose bio is null: stored as given', async () => {
    const body = eventBody('Free and tiny', { price: 0, capacity: 1, speakers: [{ name: 'Solo', email: 'solo@example.com', bio: null }] });
    const answer = success(await tool('create_event', { body }));
    const stored = app!.event(Number(answer.id))!;
    assert.deepEqual([stored.price, stored.capacity, stored.speakers], [0, 1, [{ name: 'Solo', email: 'solo@example.com', bio: null }]]);
  });

  test('unseen: list_events by a category and a start window together, second page: the events the state selects in start order (offsets compared as instants), and the total', async () => {
    const tag = `combo-${process.pid}`;
    const starts = [['meetup', '2030-05-01T18:00:00Z'], ['meetup', '2030-05-02T10:00:00+02:00'], ['talk', '2030-05-02T10:00:00Z'], ['meetup', '2030-05-02T09:00:00Z'], ['meetup', '2030-05-05T18:00:00Z'], ['meetup', '2030-06-01T18:00:00Z']];
    for (const [i, [category, startsAt]] of starts.entries()) await addEvent(`Combo ${i}`, { category, startsAt, tags: [tag] });
    const window = { startsAfter: '2030-05-01T20:00:00Z', startsBefore: '2030-05-31T00:00:00Z' };
    const answer = success(await tool('list_events', { tag, category: 'meetup', ...window, limit: 2, offset: 1 })) as { total: number; items: { title: string }[] };
    const selected = app!.state().events.filter((e) => e.tags.includes(tag) && e.category === 'meetup' && Date.parse(e.startsAt) > Date.parse(window.startsAfter) && Date.parse(e.startsAt) < Date.parse(window.startsBefore))
      .sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt) || a.id - b.id).map((e) => e.title);
    assert.deepEqual([answer.items.map((e) => e.title), answer.total], [selected.slice(1, 3), selected.length]);
    assert.deepEqual([answer.items.map((e) => e.title), answer.total], [['Combo 3', 'Combo 4'], 3]);
  });

  test('unseen: create_event with a title of exactly 120 characters, 20 of them emoji outside the BMP: stored as given; one more character refused, nothing stored', async () => {
    const title = `${'🎷'.repeat(20)}${'Jazz–Ä'.repeat(16)}Ende`;
    assert.deepEqual([[...title].length, title.length], [120, 140]);
    const answer = success(await tool('create_event', { body: eventBody(title) }));
    assert.equal(app!.event(Number(answer.id))?.title, title);
    const longer = `${title}!`;
    assertError(await tool('create_event', { body: eventBody(longer) }), /title/);
    assert.equal(app!.state().events.some((e) => e.title === longer), false);
  });
});
