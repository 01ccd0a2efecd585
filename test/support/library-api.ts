/**
 * The API of test/fixtures/library.yaml on 127.0.0.1: books (paged, by tag, newest update first), their owners, and
 * an echo of the request's headers. Its state is what the code-mode tests and the task benchmark check scripts
 * against; every request is counted. Each book's summary is long, as real APIs' answers are: a task that needs
 * only a title should not have to carry them to the assistant.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** test/fixtures/library.yaml (this file is dist/test/support/library-api.js). */
export const LIBRARY_SPEC = join(import.meta.dirname, '../../../test/fixtures/library.yaml');
/** The API key the server is configured with, which the API echoes back on /echo. */
export const LIBRARY_KEY = 'library-SENTINEL-key-5e1d';

export interface Book { id: number; title: string; tags: string[]; ownerId: number; updatedAt: string; summary: string }
export interface Owner { id: number; name: string; email: string }

export interface LibraryApi {
  url: string;
  books: Map<number, Book>;
  owners: Map<number, Owner>;
  /** Requests received, as `METHOD /path?query`. */
  requests: string[];
  /** The X-Api-Key header of each request, in the same order ('' when absent). */
  keys: string[];
  close(): Promise<void>;
}

const TAGS = ['fiction', 'history', 'science', 'poetry', 'travel'];

/** 45 books by 6 owners, updated at distinct times; deterministic. */
function seed(): { books: Map<number, Book>; owners: Map<number, Owner> } {
  const owners = new Map<number, Owner>();
  for (let id = 1; id <= 6; id++) owners.set(id, { id, name: `Owner ${String.fromCharCode(64 + id)}`, email: `owner${id}@example.com` });
  const books = new Map<number, Book>();
  for (let id = 1; id <= 45; id++) {
    const tags = [TAGS[id % TAGS.length] ?? 'fiction', ...(id % 3 === 0 ? [TAGS[(id + 2) % TAGS.length] ?? 'travel'] : [])];
    books.set(id, {
      id, title: `Book ${id}`, tags, ownerId: (id * 7) % 6 + 1,
      updatedAt: new Date(Date.UTC(2026, 0, 1) + ((id * 37) % 45) * 86_400_000).toISOString(),
      summary: `Book ${id} is about ${tags.join(' and ')}. `.repeat(12),
    });
  }
  return { books, owners };
}

export async function startLibraryApi(): Promise<LibraryApi> {
  const { books, owners } = seed();
  const requests: string[] = [];
  const keys: string[] = [];
  let nextId = 1000;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    keys.push(String(req.headers['x-api-key'] ?? ''));
    const send = (status: number, body?: unknown): void => {
      res.writeHead(status, body === undefined ? {} : { 'Content-Type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (req.headers['x-api-key'] !== LIBRARY_KEY) return send(401, { message: 'unknown API key' });
    const bookId = /^\/books\/(\d+)$/.exec(url.pathname)?.[1];
    const ownerId = /^\/owners\/(\d+)$/.exec(url.pathname)?.[1];
    if (url.pathname === '/books' && req.method === 'GET') {
      const tag = url.searchParams.get('tag');
      const page = Number(url.searchParams.get('page') ?? 1);
      const size = Number(url.searchParams.get('pageSize') ?? 10);
      const all = [...books.values()].filter((b) => !tag || b.tags.includes(tag)).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id - b.id);
      const items = all.slice((page - 1) * size, page * size);
      return send(200, { items, page, nextPage: page * size < all.length ? page + 1 : null });
    }
    if ((url.pathname === '/books' && req.method === 'POST') || (bookId !== undefined && req.method === 'PUT')) {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        const body = JSON.parse(text) as { title: string; tags?: string[]; ownerId: number };
        const id = bookId === undefined ? nextId++ : Number(bookId);
        if (bookId !== undefined && !books.has(id)) return send(404, { message: `no book ${bookId}` });
        const book: Book = { id, title: body.title, tags: body.tags ?? [], ownerId: body.ownerId, updatedAt: new Date().toISOString(), summary: books.get(id)?.summary ?? '' };
        books.set(book.id, book);
        send(bookId === undefined ? 201 : 200, book);
      });
      return;
    }
    if (bookId !== undefined && req.method === 'GET') {
      const book = books.get(Number(bookId));
      return book ? send(200, book) : send(404, { message: `no book ${bookId}` });
    }
    if (bookId !== undefined && req.method === 'DELETE') return books.delete(Number(bookId)) ? send(204) : send(404, { message: `no book ${bookId}` });
    if (ownerId !== undefined) {
      const owner = owners.get(Number(ownerId));
      return owner ? send(200, owner) : send(404, { message: `no owner ${ownerId}` });
    }
    if (url.pathname === '/echo') return send(200, Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])));
    send(404, { message: 'no such path' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, books, owners, requests, keys,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
