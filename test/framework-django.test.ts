/**
 * A framework app: the generated MCP server driven against a lending library written with Django REST framework 3.14
 * on Django 3.2 (Debian's python3-djangorestframework and python3-django, with django-filter 23), from the OpenAPI
 * document drf-spectacular 0.25 serves at /api/schema/ while the app runs (OpenAPI 3.0.3, YAML). The project is
 * generated with `init` from that URL, once as published and once with cover-file.overlay.yaml (which fixes where the
 * document is wrong about the app: the cover upload takes a file, not a URI), both built in one `dotnet build`. The
 * tools are called as an assistant calls them (MCP tools/call), with the DRF tokens of a librarian (staff), of a
 * reader (not staff), a wrong one and none, and every effect is checked in the app's own state: its SQLite database
 * (sqlite3 CLI), the files it stored under MEDIA_ROOT, and its log of the requests as it received them.
 *
 * Each check arranges the rows it needs through the app's API, so that one failure does not fail the next. Checks
 * are written for what the generator should do (see issue 44); those that fail today are kept as they are.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { environmentVariables } from '../src/names/environment.js';
import { connect } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import { call, success, type Answer } from './support/real-apis.js';
import { buildProjects, credentialVariable, initProject, projectDll } from './support/real-api-projects.js';
import { DJANGO_COVER_OVERLAY, djangoVersions, ensureDjango, startDjango, type DjangoServer } from './support/frameworks/django.js';

const LIBRARY_TOOLS = [
  'create_author', 'create_book', 'create_book_cover', 'create_loan', 'delete_author', 'delete_book', 'delete_loan', 'get_author', 'get_book', 'get_loan',
  'list_authors', 'list_books', 'list_loans', 'patch_author', 'patch_book', 'patch_loan', 'update_author', 'update_book', 'update_loan',
];
/** ISBN-13s with a right check digit, a new one each call (the database is fresh each run; ISBNs are unique in it). */
let isbnCounter = 0;
const isbn = (): string => {
  const twelve = `978${String(process.pid % 100_000).padStart(5, '0')}${String(++isbnCounter).padStart(4, '0')}`;
  const sum = [...twelve].reduce((total, digit, i) => total + Number(digit) * (i % 2 === 0 ? 1 : 3), 0);
  return `${twelve}${(10 - (sum % 10)) % 10}`;
};
/** The same ISBN with its check digit wrong. */
const wrongCheckDigit = (code: string): string => `${code.slice(0, 12)}${(Number(code[12]) + 1) % 10}`;
let nameCounter = 0;
const unique = (name: string): string => `${name} ${process.pid}-${++nameCounter}`;
/** A one-pixel PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('generated MCP server against a Django REST framework 3.14 app (Debian python3-django 3.2, drf-spectacular, SQLite, on 127.0.0.1)', { timeout: 20 * 60_000 }, () => {
  let work = '';
  let app: DjangoServer | undefined;
  let documentText = '';
  let tokenVariable = '';
  const clients: { main?: Client; reader?: Client; overlaid?: Client; wrongToken?: Client; noToken?: Client } = {};
  let tools = new Set<string>();

  before(async () => {
    // Install first (apt-get, when root): a missing package is a clear failure here rather than a failed start.
    ensureDjango();
    work = scratchDir('framework-django');
    // drf-spectacular writes the document from the running project: the app is up before init reads it (and during
    // the build, which may regenerate from it).
    app = await startDjango();
    documentText = await (await fetch(app.documentUrl)).text();
    for (const init of [await initProject(work, app.documentUrl, 'Library', 'library'), await initProject(work, app.documentUrl, 'Library', 'library-overlaid', '--overlay', DJANGO_COVER_OVERLAY)]) {
      assert.equal(init.code, 0, init.errors);
    }
    tokenVariable = await credentialVariable(work, 'library', 'Library');
    const output = await buildProjects(work, ['library/Library.csproj', 'library-overlaid/Library.csproj']);
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    const baseUrl = environmentVariables('Library').baseUrl;
    // DRF's TokenAuthentication reads `Authorization: Token <key>`; the document's apiKey scheme names the header only.
    const as = (key: string): Record<string, string> => ({ [baseUrl]: app!.origin, [tokenVariable]: `Token ${key}` });
    [clients.main, clients.reader, clients.overlaid, clients.wrongToken, clients.noToken] = await Promise.all([
      connect(projectDll(work, 'library', 'Library'), as(app.tokens.librarian)),
      connect(projectDll(work, 'library', 'Library'), as(app.tokens.reader)),
      connect(projectDll(work, 'library-overlaid', 'Library'), as(app.tokens.librarian)),
      connect(projectDll(work, 'library', 'Library'), as('0000000000000000000000000000000000000000')),
      connect(projectDll(work, 'library', 'Library'), { [baseUrl]: app.origin }),
    ]);
    tools = new Set((await clients.main.listTools()).tools.map((t) => t.name));
  });

  after(async () => {
    await Promise.allSettled(Object.values(clients).map((c) => c?.close()));
    await app?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const tool = (name: string, args: Record<string, unknown> = {}, client: keyof typeof clients = 'main'): Promise<Answer> => call(clients[client]!, tools, name, args);
  const rows = (sql: string): Record<string, unknown>[] => app!.rows(sql);
  const row = (sql: string): Record<string, unknown> | undefined => rows(sql)[0];
  const quote = (text: string): string => `'${text.replaceAll("'", "''")}'`;
  const addAuthor = async (name: string, bornOn: string | null = null): Promise<number> => Number((await app!.api('/api/authors/', { body: { name, born_on: bornOn } })).id);
  /** A book made through the app's API (its author by name, made when new): its id. */
  const addBook = async (title: string, more: Record<string, unknown> = {}): Promise<number> =>
    Number((await app!.api('/api/books/', { body: { title, isbn: isbn(), author: { name: 'Various' }, genre: 'fiction', ...more } })).id);
  const addLoan = async (book: number, borrower: string, more: Record<string, unknown> = {}): Promise<number> =>
    Number((await app!.api('/api/loans/', { body: { book, borrower, borrowed_at: '2027-01-10T10:00:00Z', due_on: '2027-02-10', ...more } })).id);
  /** The last request the app received for a method and path, as it received it. */
  const lastRequest = (method: string, path: string): { query: string; body: string | null } | undefined =>
    row(`SELECT query, body FROM catalog_requestlog WHERE method = ${quote(method)} AND path = ${quote(path)} ORDER BY id DESC LIMIT 1`) as { query: string; body: string | null } | undefined;
  const requestCount = (method: string, path: string): number => Number(row(`SELECT count(*) AS n FROM catalog_requestlog WHERE method = ${quote(method)} AND path = ${quote(path)}`)!.n);
  const assertError = (answer: Answer, ...reasons: RegExp[]): void => {
    assert.equal(answer.isError, true, `not an error: ${answer.text.slice(0, 300)}`);
    for (const reason of reasons) assert.match(answer.text, reason);
  };

  test('the document drf-spectacular serves: OpenAPI 3.0.3, the token scheme (optional on reads), no error response declared; one tool per operation', () => {
    const versions = djangoVersions();
    assert.match(`${versions.django} ${versions.djangorestframework} ${versions.drfSpectacular} ${versions.djangoFilter}`, /^3\.2\.\d+ 3\.14\.\d+ 0\.25\.\d+ 23\.\d+$/);
    assert.match(documentText, /^openapi: 3\.0\.3$/m);
    assert.match(documentText, /securitySchemes:\n {4}tokenAuth:\n {6}type: apiKey\n {6}in: header\n {6}name: Authorization\n {6}description: Token-based authentication with required prefix "Token"\n/);
    assert.doesNotMatch(documentText, /^ {8}'(400|401|403|404)':/m);
    assert.deepEqual([...tools].sort(), LIBRARY_TOOLS);
    assert.equal(tokenVariable, 'LIBRARY_TOKEN_AUTH_KEY');
  });

  test('create_author: the row has the name and the date of birth', async () => {
    const name = unique('Ursula K. Le Guin');
    const answer = success(await tool('create_author', { body: { name, born_on: '1929-10-21' } }));
    assert.deepEqual(row(`SELECT name, born_on FROM catalog_author WHERE id = ${Number(answer.id)}`), { name, born_on: '1929-10-21' });
  });

  test('create_book with a nested new author, a genre (enum), tags (list), a date: the book row, the author row, the ISBN as the app keeps it', async () => {
    const author = unique('Stanisław Lem');
    const code = isbn();
    const hyphenated = `${code.slice(0, 3)}-${code.slice(3, 8)}-${code.slice(8, 12)}-${code[12]}`;
    const answer = success(await tool('create_book', { body: {
      title: 'Solaris — „Niezwyciężony”', isbn: hyphenated, author: { name: author, born_on: '1921-09-12' }, genre: 'science', tags: ['sf', 'first-contact'], published_on: '1961-06-01', copies: 3,
    } }));
    const stored = row(`SELECT b.title, b.isbn, b.genre, b.tags, b.published_on, b.copies, a.name, a.born_on FROM catalog_book b JOIN catalog_author a ON a.id = b.author_id WHERE b.id = ${Number(answer.id)}`);
    assert.deepEqual(stored, { title: 'Solaris — „Niezwyciężony”', isbn: code, genre: 'science', tags: '["sf", "first-contact"]', published_on: '1961-06-01', copies: 3, name: author, born_on: '1921-09-12' });
    assert.deepEqual([answer.author.name, answer.on_loan, answer.cover], [author, 0, null]);
  });

  test("create_book by an author the library has: the author's row is reused, not repeated", async () => {
    const name = unique('Octavia E. Butler');
    const authorId = await addAuthor(name, '1947-06-22');
    const answer = success(await tool('create_book', { body: { title: 'Kindred', isbn: isbn(), author: { name }, genre: 'fiction' } }));
    assert.equal(answer.author.id, authorId);
    assert.deepEqual(rows(`SELECT id, born_on FROM catalog_author WHERE name = ${quote(name)}`), [{ id: authorId, born_on: '1947-06-22' }]);
    assert.equal(row(`SELECT author_id FROM catalog_book WHERE id = ${Number(answer.id)}`)!.author_id, authorId);
  });

  test("create_book: the 201's Location (the book's URL, as DRF sets it) reaches the model beside the answer", async () => {
    const result = await clients.main!.callTool({ name: 'create_book', arguments: { body: { title: 'Find me by my Location', isbn: isbn(), author: { name: 'Various' }, genre: 'history' } } });
    const blocks = (result.content as { text?: string }[]).map((c) => c.text ?? '');
    assert.notEqual(result.isError, true, blocks[0]);
    const id = Number(JSON.parse(blocks[0]!).id);
    assert.equal(row(`SELECT title FROM catalog_book WHERE id = ${id}`)!.title, 'Find me by my Location');
    assert.match(blocks.slice(1).join('\n'), new RegExp(`^Response headers:[\\s\\S]*^location: ${app!.origin}/api/books/${id}/$`, 'im'));
  });

  test('get_book: the book as the database has it, with its nested author and the copies out on loan', async () => {
    const id = await addBook('The Dispossessed', { author: { name: unique('Le Guin') }, genre: 'fiction', tags: ['utopia'], published_on: '1974-05-01', copies: 2 });
    await addLoan(id, 'Ada');
    const answer = success(await tool('get_book', { id }));
    const stored = row(`SELECT b.title, b.isbn, b.published_on, a.name FROM catalog_book b JOIN catalog_author a ON a.id = b.author_id WHERE b.id = ${id}`)!;
    assert.deepEqual([answer.title, answer.isbn, answer.published_on, answer.author.name, answer.tags, answer.on_loan], [stored.title, stored.isbn, stored.published_on, stored.name, ['utopia'], 1]);
  });

  test('get_book of a book that does not exist: not found, with the status (DRF says only `{"detail":"Not found."}`)', async () => {
    assertError(await tool('get_book', { id: 999_999 }), /not found/i, /HTTP 404/);
  });

  test('list_books filtered by genre, author and tag (django-filter), ordered by date: the rows the database selects, in that order', async () => {
    const name = unique('Jorge Luis Borges');
    const authorId = await addAuthor(name);
    await addBook('Ficciones', { author: { name }, genre: 'fiction', tags: ['labyrinth'], published_on: '1944-01-01' });
    await addBook('El Aleph', { author: { name }, genre: 'fiction', tags: ['labyrinth', 'infinity'], published_on: '1949-01-01' });
    await addBook('Otras inquisiciones', { author: { name }, genre: 'history', tags: ['labyrinth'], published_on: '1952-01-01' });
    await addBook('Historia universal de la infamia', { author: { name }, genre: 'fiction', tags: ['crime'], published_on: '1935-01-01' });
    const page = success(await tool('list_books', { author: authorId, genre: 'fiction', tag: 'labyrinth', ordering: '-published_on' }));
    const expected = rows(`SELECT title FROM catalog_book WHERE author_id = ${authorId} AND genre = 'fiction' AND EXISTS (SELECT 1 FROM json_each(tags) WHERE value = 'labyrinth') ORDER BY published_on DESC`).map((r) => r.title);
    assert.deepEqual(page.results.map((b: { title: string }) => b.title), expected);
    assert.deepEqual(expected, ['El Aleph', 'Ficciones']);
    assert.equal(page.count, 2);
  });

  test('list_books with page and page_size (PageNumberPagination): the second page, the count, and the next and previous pages', async () => {
    const name = unique('Ted Chiang');
    const ids = [];
    for (const title of ['A', 'B', 'C', 'D', 'E']) ids.push(await addBook(`Chiang ${title}`, { author: { name } }));
    const authorId = Number(row(`SELECT id FROM catalog_author WHERE name = ${quote(name)}`)!.id);
    const page = success(await tool('list_books', { author: authorId, page: 2, pageSize: 2 }));
    assert.deepEqual(page.results.map((b: { id: number }) => b.id), ids.slice(2, 4));
    assert.equal(page.count, 5);
    assert.match(page.next, /[?&]page=3(&|$)/);
    assert.match(page.previous, /[?&]page_size=2(&|$)/);
  });

  test('list_books by publication dates (before and after) and by a search term: the rows the database selects', async () => {
    const name = unique('Michael Ende');
    await addBook('Die unendliche Geschichte', { author: { name }, published_on: '1979-09-01' });
    await addBook('Momo', { author: { name }, published_on: '1973-01-01' });
    await addBook('Jim Knopf', { author: { name }, published_on: '1960-01-01' });
    const authorId = Number(row(`SELECT id FROM catalog_author WHERE name = ${quote(name)}`)!.id);
    const between = success(await tool('list_books', { author: authorId, publishedAfter: '1965-01-01', publishedBefore: '1979-09-01' }));
    assert.deepEqual(between.results.map((b: { title: string }) => b.title),
      rows(`SELECT title FROM catalog_book WHERE author_id = ${authorId} AND published_on >= '1965-01-01' AND published_on < '1979-09-01' ORDER BY id`).map((r) => r.title));
    assert.deepEqual(between.results.map((b: { title: string }) => b.title), ['Momo']);
    const searched = success(await tool('list_books', { search: `unendliche ${name.split(' ').pop()}` }));
    assert.deepEqual(searched.results.map((b: { title: string }) => b.title), ['Die unendliche Geschichte']);
  });

  test('update_book (PUT): every field replaced in the row, the author changed to another by name', async () => {
    const id = await addBook('Invisible Citties', { author: { name: 'Various' }, tags: ['typo'], copies: 1 });
    const code = isbn();
    const author = unique('Italo Calvino');
    success(await tool('update_book', { id, body: { title: 'Invisible Cities', isbn: code, author: { name: author, born_on: '1923-10-15' }, genre: 'fiction', tags: ['cities', 'venice'], published_on: '1972-11-01', copies: 4 } }));
    assert.deepEqual(row(`SELECT b.title, b.isbn, b.tags, b.published_on, b.copies, a.name FROM catalog_book b JOIN catalog_author a ON a.id = b.author_id WHERE b.id = ${id}`),
      { title: 'Invisible Cities', isbn: code, tags: '["cities", "venice"]', published_on: '1972-11-01', copies: 4, name: author });
  });

  test('patch_book: the copies and the tags change, the date is cleared with null (nullable in the document), the rest is kept', async () => {
    const id = await addBook('Ancillary Justice', { genre: 'fiction', tags: ['space'], published_on: '2013-10-01', copies: 1 });
    const before = row(`SELECT title, isbn, author_id FROM catalog_book WHERE id = ${id}`)!;
    const answer = success(await tool('patch_book', { id, body: { copies: 2, tags: ['space', 'ai'], published_on: null } }));
    assert.deepEqual([answer.copies, answer.published_on], [2, null]);
    assert.deepEqual(row(`SELECT title, isbn, author_id, copies, tags, published_on FROM catalog_book WHERE id = ${id}`), { ...before, copies: 2, tags: '["space", "ai"]', published_on: null });
  });

  test("create_book with an ISBN whose check digit is wrong: DRF's 400 reaches the model naming the field and why; no row", async () => {
    const code = wrongCheckDigit(isbn());
    const answer = await tool('create_book', { body: { title: 'Misprinted', isbn: code, author: { name: 'Various' }, genre: 'poetry' } });
    assertError(answer, /HTTP 400/, /isbn/, /The ISBN's check digit is wrong\./);
    assert.deepEqual(rows(`SELECT id FROM catalog_book WHERE isbn = ${quote(code)}`), []);
    // The same call made directly: this is what DRF answered.
    const direct = await fetch(`${app!.origin}/api/books/`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Token ${app!.tokens.librarian}` }, body: JSON.stringify({ title: 'Misprinted', isbn: code, author: { name: 'Various' }, genre: 'poetry' }) });
    assert.equal(direct.status, 400);
    assert.deepEqual(await direct.json(), { isbn: ["The ISBN's check digit is wrong."] });
  });

  test("create_book whose nested author is born in the future: DRF's nested reason (author, born_on) reaches the model; no book, no author", async () => {
    const name = unique('Not Yet Born');
    const body = { title: 'From the future', isbn: isbn(), author: { name, born_on: '2999-01-01' }, genre: 'fiction' };
    assertError(await tool('create_book', { body }), /HTTP 400/, /author/, /born_on/, /An author cannot be born in the future\./);
    assert.deepEqual([rows(`SELECT id FROM catalog_book WHERE isbn = ${quote(body.isbn)}`), rows(`SELECT id FROM catalog_author WHERE name = ${quote(name)}`)], [[], []]);
    const direct = await fetch(`${app!.origin}/api/books/`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Token ${app!.tokens.librarian}` }, body: JSON.stringify(body) });
    assert.deepEqual([direct.status, await direct.json()], [400, { author: { born_on: ['An author cannot be born in the future.'] } }]);
  });

  test('create_loan: the row has the book, the borrower, the date-time (sent as the model wrote it) and the due date', async () => {
    const book = await addBook('Excession', { copies: 1 });
    const answer = success(await tool('create_loan', { body: { book, borrower: 'Ada', borrowed_at: '2027-04-30T18:00:00.000Z', due_on: '2027-05-30' } }));
    assert.deepEqual(row(`SELECT book_id, borrower, borrowed_at, due_on, returned_at FROM catalog_loan WHERE id = ${Number(answer.id)}`),
      { book_id: book, borrower: 'Ada', borrowed_at: '2027-04-30 18:00:00', due_on: '2027-05-30', returned_at: null });
    const sent = JSON.parse(lastRequest('POST', '/api/loans/')!.body!) as Record<string, unknown>;
    assert.equal(sent.borrowed_at, '2027-04-30T18:00:00.000Z', `the app received ${JSON.stringify(sent)}`);
  });

  test("create_loan of a book with no copy left: DRF's non_field_errors reason reaches the model; no row added", async () => {
    const book = await addBook('Titus Groan', { copies: 1 });
    await addLoan(book, 'Bea');
    const answer = await tool('create_loan', { body: { book, borrower: 'Cy', borrowed_at: '2027-02-01T09:00:00Z', due_on: '2027-03-01' } });
    assertError(answer, /HTTP 400/, /No copy is available\./);
    assert.deepEqual(rows(`SELECT borrower FROM catalog_loan WHERE book_id = ${book}`), [{ borrower: 'Bea' }]);
    const direct = await fetch(`${app!.origin}/api/loans/`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Token ${app!.tokens.librarian}` }, body: JSON.stringify({ book, borrower: 'Cy', borrowed_at: '2027-02-01T09:00:00Z', due_on: '2027-03-01' }) });
    assert.deepEqual([direct.status, await direct.json()], [400, { non_field_errors: ['No copy is available.'] }]);
  });

  test('patch_loan with the return time, then list_loans of open loans borrowed since a time: the rows the database selects, the time received as written', async () => {
    const book = await addBook('The Shadow of the Torturer', { copies: 3 });
    const returned = await addLoan(book, 'Dee', { borrowed_at: '2027-03-01T08:00:00Z', due_on: '2027-04-01' });
    const open = await addLoan(book, 'Eve', { borrowed_at: '2027-03-02T08:00:00Z', due_on: '2027-04-02' });
    await addLoan(book, 'Fay', { borrowed_at: '2027-01-02T08:00:00Z', due_on: '2027-02-02' });
    success(await tool('patch_loan', { id: returned, body: { returned_at: '2027-03-20T16:45:00Z' } }));
    assert.equal(row(`SELECT returned_at FROM catalog_loan WHERE id = ${returned}`)!.returned_at, '2027-03-20 16:45:00');
    const since = '2027-02-15T00:00:00.000Z';
    const page = success(await tool('list_loans', { book, open: true, borrowedSince: since }));
    assert.deepEqual(page.results.map((l: { id: number }) => l.id),
      rows(`SELECT id FROM catalog_loan WHERE book_id = ${book} AND returned_at IS NULL AND borrowed_at >= '2027-02-15 00:00:00' ORDER BY id`).map((r) => r.id));
    assert.deepEqual(page.results.map((l: { id: number }) => l.id), [open]);
    assert.equal(new URLSearchParams(lastRequest('GET', '/api/loans/')!.query).get('borrowed_since'), since);
  });

  test('delete_book as the librarian: the row is gone, and its loans with it (HTTP 204)', async () => {
    const id = await addBook('The Golden Notebook');
    const loan = await addLoan(id, 'Gil');
    assert.deepEqual(success(await tool('delete_book', { id })), { status: 204 });
    assert.deepEqual([rows(`SELECT id FROM catalog_book WHERE id = ${id}`), rows(`SELECT id FROM catalog_loan WHERE id = ${loan}`)], [[], []]);
  });

  test("delete_book as a reader (not staff): DRF's 403 and its reason, and the book still there", async () => {
    const id = await addBook('Not yours to delete');
    assertError(await tool('delete_book', { id }, 'reader'), /You do not have permission to perform this action\./, /HTTP 403/);
    assert.deepEqual(rows(`SELECT title FROM catalog_book WHERE id = ${id}`), [{ title: 'Not yours to delete' }]);
  });

  test("create_book with a wrong token: DRF's 401 and its reason, no row; without a token: not sent, naming the variable; reads need none", async () => {
    const title = unique('Unauthorized');
    assertError(await tool('create_book', { body: { title, isbn: isbn(), author: { name: 'Various' }, genre: 'fiction' } }, 'wrongToken'), /Invalid token\./, /HTTP 401/);
    const before = requestCount('POST', '/api/books/');
    assertError(await tool('create_book', { body: { title, isbn: isbn(), author: { name: 'Various' }, genre: 'fiction' } }, 'noToken'), new RegExp(`needs credentials: set ${tokenVariable}`));
    assert.equal(requestCount('POST', '/api/books/'), before);
    assert.deepEqual(rows(`SELECT id FROM catalog_book WHERE title = ${quote(title)}`), []);
    const id = await addBook('Open to all');
    assert.equal(success(await tool('get_book', { id }, 'noToken')).title, 'Open to all');
  });

  test("create_book_cover: the document says a URI (DRF refuses it: not a file); with the overlay, the PNG stored byte for byte under its name", async () => {
    const id = await addBook('Piranesi');
    assertError(await tool('create_book_cover', { id, body: { cover: 'https://example.org/piranesi.png' } }), /cover/, /The submitted data was not a file/, /HTTP 400/);
    assert.equal(row(`SELECT cover FROM catalog_book WHERE id = ${id}`)!.cover, '');
    const answer = success(await tool('create_book_cover', { id, body: { cover: { content: PNG.toString('base64'), fileName: 'piranesi.png', contentType: 'image/png' } } }, 'overlaid'));
    const stored = String(row(`SELECT cover FROM catalog_book WHERE id = ${id}`)!.cover);
    assert.match(stored, /^covers\/piranesi(_\w+)?\.png$/);
    assert.deepEqual(await readFile(join(app!.media, stored)), PNG);
    assert.equal(answer.cover, `${app!.origin}/media/${stored}`);
  });

  test('delete_loan, then delete_author as the librarian: both rows gone; delete_author of an author with books refused, the author kept', async () => {
    const name = unique('Susanna Clarke');
    const authorId = await addAuthor(name, '1959-11-01');
    const book = await addBook('Jonathan Strange', { author: { name } });
    const loan = await addLoan(book, 'Hal');
    assert.deepEqual(success(await tool('delete_loan', { id: loan })), { status: 204 });
    assert.deepEqual(rows(`SELECT id FROM catalog_loan WHERE id = ${loan}`), []);
    assertError(await tool('delete_author', { id: authorId }), /The library has books by this author: delete them first\./, /HTTP 409/);
    assert.equal(rows(`SELECT id FROM catalog_author WHERE id = ${authorId}`).length, 1);
    await app!.api(`/api/books/${book}/`, { method: 'DELETE' });
    assert.deepEqual(success(await tool('delete_author', { id: authorId })), { status: 204 });
    assert.deepEqual(rows(`SELECT id FROM catalog_author WHERE id = ${authorId}`), []);
  });

  // Held out: written after the checks above, and run once.
  test("unseen: create_loan of a book that does not exist: DRF's reason naming the book reaches the model; no loan row", async () => {
    const borrower = unique('Ida');
    const before = requestCount('POST', '/api/loans/');
    const answer = await tool('create_loan', { body: { book: 987_654, borrower, borrowed_at: '2027-02-01T09:00:00Z', due_on: '2027-03-01' } });
    assertError(answer, /HTTP 400/, /book/, /Invalid pk "987654" - object does not exist\./);
    assert.deepEqual([requestCount('POST', '/api/loans/'), rows(`SELECT id FROM catalog_loan WHERE borrower = ${quote(borrower)}`)], [before + 1, []]);
  });

  test('unseen: create_book_cover (with the overlay) named outside ASCII: stored under that name byte for byte, the answer\'s URL naming it', async () => {
    const id = await addBook('Der Zauberberg');
    const answer = success(await tool('create_book_cover', { id, body: { cover: { content: PNG.toString('base64'), fileName: 'Umschlag-Zauberberg-Überarbeitet.png', contentType: 'image/png' } } }, 'overlaid'));
    const stored = String(row(`SELECT cover FROM catalog_book WHERE id = ${id}`)!.cover);
    assert.match(stored, /^covers\/Umschlag-Zauberberg-Überarbeitet(_[A-Za-z0-9]+)?\.png$/);
    assert.deepEqual(await readFile(join(app!.media, stored)), PNG);
    assert.equal(decodeURIComponent(new URL(String(answer.cover)).pathname), `/media/${stored}`);
  });
});
