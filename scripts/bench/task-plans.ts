/**
 * The task benchmark's tasks over the library API (test/fixtures/library.yaml), each done as an ideal assistant
 * would do it in each mode: in operations mode it knows every tool from tools/list and calls them; in discovery and
 * code mode it searches once for each operation it needs, with detail "full" (what calling it takes), then calls
 * them (discovery) or writes one script (code). Each task also says what its right answer is, from the API's state, so that a figure is only
 * reported for work that was done right.
 */
import type { Book, LibraryApi } from '../../test/support/library-api.js';

export type Mode = 'operations' | 'discovery' | 'code';

/** What the assistant can do: call a tool and read its answer (the session counts round trips and bytes). */
export interface Session {
  call(name: string, args: Record<string, unknown>): Promise<string>;
}

export interface Task {
  readonly name: string;
  /** More than one API call is needed. */
  readonly multiStep: boolean;
  /** The operations it needs: what discovery and code mode search for. */
  readonly needs: readonly { query: string; operation: string }[];
  /** Operations and discovery mode: the calls, and the answer made of theirs. */
  calls(call: (operation: string, args: Record<string, unknown>) => Promise<unknown>): Promise<unknown>;
  /** Code mode: the script. */
  readonly script: string;
  expected(api: LibraryApi): unknown;
}

interface Page { items: Book[]; nextPage: number | null }

const newest = (books: Iterable<Book>, tag?: string): Book[] =>
  [...books].filter((b) => !tag || b.tags.includes(tag)).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id - b.id);

const LIST = { query: 'list books', operation: 'list_books' };
const OWNER = { query: 'get an owner', operation: 'get_owner' };
const BOOK = { query: 'get a book', operation: 'get_book' };

export const TASKS: readonly Task[] = [
  {
    name: 'the three most recently updated books tagged science, with their owners\' names',
    multiStep: true,
    needs: [LIST, OWNER],
    calls: async (call) => {
      const page = await call('list_books', { tag: 'science', pageSize: 3 }) as Page;
      const owners = await Promise.all(page.items.map((b) => call('get_owner', { ownerId: b.ownerId }) as Promise<{ name: string }>));
      return page.items.map((b, i) => ({ title: b.title, owner: owners[i]?.name }));
    },
    script: `const page = await api.list_books({ tag: 'science', pageSize: 3 });
const owners = await Promise.all(page.items.map((b) => api.get_owner({ ownerId: b.ownerId })));
return page.items.map((b, i) => ({ title: b.title, owner: owners[i].name }));`,
    expected: (api) => newest(api.books.values(), 'science').slice(0, 3).map((b) => ({ title: b.title, owner: api.owners.get(b.ownerId)?.name })),
  },
  {
    name: 'how many books each owner has (every page)',
    multiStep: true,
    needs: [LIST],
    calls: async (call) => {
      const counts: Record<string, number> = {};
      for (let page: number | null = 1; page !== null;) {
        const got = await call('list_books', { page, pageSize: 20 }) as Page;
        for (const b of got.items) counts[b.ownerId] = (counts[b.ownerId] ?? 0) + 1;
        page = got.nextPage;
      }
      return counts;
    },
    script: `const counts = {};
for (let page = 1; page; ) {
  const got = await api.list_books({ page, pageSize: 20 });
  for (const b of got.items) counts[b.ownerId] = (counts[b.ownerId] ?? 0) + 1;
  page = got.nextPage;
}
return counts;`,
    expected: (api) => {
      const counts: Record<string, number> = {};
      for (const b of api.books.values()) counts[b.ownerId] = (counts[b.ownerId] ?? 0) + 1;
      return counts;
    },
  },
  {
    name: 'the owners\' names of the ten most recently updated books',
    multiStep: true,
    needs: [LIST, OWNER],
    calls: async (call) => {
      const page = await call('list_books', { pageSize: 10 }) as Page;
      const ids = [...new Set(page.items.map((b) => b.ownerId))];
      const names = new Map<number, string>();
      for (const id of ids) names.set(id, (await call('get_owner', { ownerId: id }) as { name: string }).name);
      return page.items.map((b) => names.get(b.ownerId));
    },
    script: `const page = await api.list_books({ pageSize: 10 });
const ids = [...new Set(page.items.map((b) => b.ownerId))];
const owners = await Promise.all(ids.map((id) => api.get_owner({ ownerId: id })));
const names = Object.fromEntries(owners.map((o) => [o.id, o.name]));
return page.items.map((b) => names[b.ownerId]);`,
    expected: (api) => newest(api.books.values()).slice(0, 10).map((b) => api.owners.get(b.ownerId)?.name),
  },
  {
    name: 'the titles of books 1 to 12',
    multiStep: true,
    needs: [BOOK],
    calls: async (call) => {
      const titles: string[] = [];
      for (let id = 1; id <= 12; id++) titles.push((await call('get_book', { bookId: id }) as Book).title);
      return titles;
    },
    script: `const books = await Promise.all(Array.from({ length: 12 }, (_, i) => api.get_book({ bookId: i + 1 })));
return books.map((b) => b.title);`,
    expected: (api) => Array.from({ length: 12 }, (_, i) => api.books.get(i + 1)?.title),
  },
  {
    name: 'the title of book 7 (one call)',
    multiStep: false,
    needs: [BOOK],
    calls: async (call) => (await call('get_book', { bookId: 7 }) as Book).title,
    script: `return (await api.get_book({ bookId: 7 })).title;`,
    expected: (api) => api.books.get(7)?.title,
  },
];

/** Does `task` in `mode` through `session`; the answer the assistant ends with. */
export async function perform(task: Task, mode: Mode, session: Session): Promise<unknown> {
  if (mode !== 'operations') {
    // One search per operation needed, with what calling it takes (detail "full": the inputSchema, or in code mode
    // the signature), which saves describing it.
    for (const need of task.needs) await session.call('search_operations', { query: need.query, limit: 3, detail: 'full' });
  }
  if (mode === 'code') {
    return (JSON.parse(await session.call('run_script', { code: task.script })) as { result: unknown }).result;
  }
  return task.calls(async (operation, args) => JSON.parse(mode === 'operations'
    ? await session.call(operation, args)
    : await session.call('call_operation', { name: operation, arguments: args })) as unknown);
}
