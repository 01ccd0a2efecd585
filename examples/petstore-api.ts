/**
 * A tiny, dependency-free implementation of the API described by
 * examples/petstore.yaml, served under the base path `/api`.
 *
 * Used by the demo and by end-to-end tests: the generated C# MCP server is
 * pointed at this API and every request it makes is recorded in `requests`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Raw URL path including the query string, e.g. `/api/pets?limit=2`. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface PetstoreApi {
  /** Base URL including the `/api` base path, e.g. `http://127.0.0.1:PORT/api`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Species = 'dog' | 'cat' | 'bird';

interface Pet {
  id: number;
  name: string;
  species: Species;
  tag?: string;
  birthDate?: string;
  ownerId: number | null;
}

interface Owner {
  id: number;
  name: string;
  email?: string;
}

const SPECIES: readonly Species[] = ['dog', 'cat', 'bird'];
const BASE_PATH = '/api';

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly payload: unknown,
    readonly contentType: string,
  ) {
    super(`HTTP ${status}`);
  }
}

function problem(title: string, detail: string, status = 400): HttpError {
  return new HttpError(
    status,
    { type: 'about:blank', title, status, detail },
    'application/problem+json',
  );
}

function notFound(message: string): HttpError {
  return new HttpError(404, { message }, 'application/json');
}

function isSpecies(value: unknown): value is Species {
  return typeof value === 'string' && (SPECIES as readonly string[]).includes(value);
}

function parseId(raw: string, what: string): number {
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw problem(`Invalid ${what} id`, `${what}Id must be an integer`);
  }
  return Number(raw);
}

function parseJsonObject(body: string, title: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = body.trim() === '' ? undefined : JSON.parse(body);
  } catch {
    throw problem(title, 'body must be valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw problem(title, 'body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function serializePet(pet: Pet): Pet {
  // Stable property order; ownerId is always present (null when unowned).
  const out: Pet = { id: pet.id, name: pet.name, species: pet.species } as Pet;
  if (pet.tag !== undefined) out.tag = pet.tag;
  if (pet.birthDate !== undefined) out.birthDate = pet.birthDate;
  out.ownerId = pet.ownerId ?? null;
  return out;
}

function createStore() {
  const owners: Owner[] = [
    { id: 1, name: 'Ada', email: 'ada@example.com' },
    { id: 2, name: 'Linus' },
  ];
  const pets = new Map<number, Pet>([
    [1, { id: 1, name: 'Rex', species: 'dog', ownerId: 1, birthDate: '2019-04-01' }],
    [2, { id: 2, name: 'Tom', species: 'cat', ownerId: 2 }],
    [3, { id: 3, name: 'Tweety', species: 'bird', ownerId: null }],
  ]);
  return { owners, pets, nextId: 4 };
}

interface Reply {
  status: number;
  payload?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export async function startPetstoreApi(
  options: { port?: number; host?: string } = {},
): Promise<PetstoreApi> {
  const host = options.host ?? '127.0.0.1';
  const store = createStore();
  const requests: RecordedRequest[] = [];

  const route = (method: string, rawUrl: string, body: string): Reply => {
    const url = new URL(rawUrl, 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const noRoute = (): HttpError => notFound(`No route for ${method} ${url.pathname}`);

    if (path !== BASE_PATH && !path.startsWith(`${BASE_PATH}/`)) throw noRoute();
    const segments = path
      .slice(BASE_PATH.length)
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));

    // /api/pets
    if (segments.length === 1 && segments[0] === 'pets') {
      if (method === 'GET') {
        let result = [...store.pets.values()];
        const species = url.searchParams.get('species');
        if (species !== null) {
          if (!isSpecies(species)) {
            throw problem('Invalid query', `species must be one of ${SPECIES.join(', ')}`);
          }
          result = result.filter((p) => p.species === species);
        }
        const limitRaw = url.searchParams.get('limit');
        let limit = 20;
        if (limitRaw !== null) {
          const n = Number(limitRaw);
          if (!/^-?\d+$/.test(limitRaw.trim()) || !Number.isInteger(n) || n < 1 || n > 100) {
            throw problem('Invalid query', 'limit must be an integer between 1 and 100');
          }
          limit = n;
        }
        return { status: 200, payload: result.slice(0, limit).map(serializePet) };
      }
      if (method === 'POST') {
        const input = parseJsonObject(body, 'Invalid pet');
        if (typeof input.name !== 'string' || input.name.trim() === '') {
          throw problem('Invalid pet', 'name is required');
        }
        if (input.species === undefined || input.species === null) {
          throw problem('Invalid pet', 'species is required');
        }
        if (!isSpecies(input.species)) {
          throw problem('Invalid pet', `species must be one of ${SPECIES.join(', ')}`);
        }
        if (input.tag !== undefined && input.tag !== null && typeof input.tag !== 'string') {
          throw problem('Invalid pet', 'tag must be a string');
        }
        let ownerId: number | null = null;
        if (input.ownerId !== undefined && input.ownerId !== null) {
          if (typeof input.ownerId !== 'number' || !Number.isSafeInteger(input.ownerId)) {
            throw problem('Invalid pet', 'ownerId must be an integer');
          }
          ownerId = input.ownerId;
        }
        const pet: Pet = { id: store.nextId++, name: input.name, species: input.species, ownerId };
        if (typeof input.tag === 'string') pet.tag = input.tag;
        store.pets.set(pet.id, pet);
        return {
          status: 201,
          payload: serializePet(pet),
          headers: { location: `${BASE_PATH}/pets/${pet.id}` },
        };
      }
      throw noRoute();
    }

    // /api/pets/{petId}
    if (segments.length === 2 && segments[0] === 'pets') {
      if (method !== 'GET' && method !== 'PUT' && method !== 'DELETE') throw noRoute();
      const id = parseId(segments[1] ?? '', 'pet');
      const pet = store.pets.get(id);
      if (!pet) throw notFound(`Pet ${id} not found`);
      if (method === 'GET') return { status: 200, payload: serializePet(pet) };
      if (method === 'DELETE') {
        store.pets.delete(id);
        return { status: 204 };
      }
      // PUT: merge provided fields.
      const input = parseJsonObject(body, 'Invalid pet');
      const updated: Pet = { ...pet };
      if (input.name !== undefined) {
        if (typeof input.name !== 'string' || input.name.trim() === '') {
          throw problem('Invalid pet', 'name must be a non-empty string');
        }
        updated.name = input.name;
      }
      if (input.species !== undefined) {
        if (!isSpecies(input.species)) {
          throw problem('Invalid pet', `species must be one of ${SPECIES.join(', ')}`);
        }
        updated.species = input.species;
      }
      if (input.tag !== undefined) {
        if (input.tag === null) delete updated.tag;
        else if (typeof input.tag !== 'string') throw problem('Invalid pet', 'tag must be a string');
        else updated.tag = input.tag;
      }
      store.pets.set(id, updated);
      return { status: 200, payload: serializePet(updated) };
    }

    // /api/owners
    if (segments.length === 1 && segments[0] === 'owners') {
      if (method !== 'GET') throw noRoute();
      return { status: 200, payload: store.owners.map((o) => ({ ...o })) };
    }

    // /api/owners/{ownerId}/pets
    if (segments.length === 3 && segments[0] === 'owners' && segments[2] === 'pets') {
      if (method !== 'GET') throw noRoute();
      const id = parseId(segments[1] ?? '', 'owner');
      if (!store.owners.some((o) => o.id === id)) throw notFound(`Owner ${id} not found`);
      const result = [...store.pets.values()].filter((p) => p.ownerId === id).map(serializePet);
      return { status: 200, payload: result };
    }

    throw noRoute();
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = (req.method ?? 'GET').toUpperCase();
      const rawUrl = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method, path: rawUrl, headers: { ...req.headers }, body });

      let reply: Reply;
      try {
        reply = route(method, rawUrl, body);
      } catch (err) {
        if (err instanceof HttpError) {
          reply = { status: err.status, payload: err.payload, contentType: err.contentType };
        } else {
          const detail = err instanceof Error ? err.message : String(err);
          reply = {
            status: 500,
            payload: { type: 'about:blank', title: 'Internal Server Error', status: 500, detail },
            contentType: 'application/problem+json',
          };
        }
      }

      const headers: Record<string, string> = { ...(reply.headers ?? {}) };
      if (reply.status === 204 || reply.payload === undefined) {
        res.writeHead(reply.status, headers);
        res.end();
        return;
      }
      const text = JSON.stringify(reply.payload);
      headers['content-type'] = reply.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(text));
      res.writeHead(reply.status, headers);
      res.end(text);
    });
    req.on('error', () => {
      res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}${BASE_PATH}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

if (process.argv[1]?.endsWith('petstore-api.js')) {
  const port = Number(process.env.PORT ?? 5080);
  const api = await startPetstoreApi({ port });
  console.log(api.url);
}
