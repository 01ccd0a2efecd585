/**
 * The Microsoft Graph half of the Azure stand-in: the users of test/fixtures/azure/graph-users.yaml under /v1.0,
 * with Graph's paging (`@odata.nextLink`, `$skiptoken`), `$top`, `$select`, a `$filter` subset and its errors.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GRAPH_RESOURCE } from './fake-az.js';
import { GRAPH_JSON, authorize, graphError, isObject, lower, parseJson, sendJson, type AzureApiControl, type AzureRequest, type GraphUser } from './azure-shapes.js';

const GRAPH_AUDIENCES = new Set([GRAPH_RESOURCE, '00000003-0000-0000-c000-000000000000']);
/** What Graph returns for a user when no $select names properties. */
const USER_DEFAULT_PROPERTIES = ['businessPhones', 'displayName', 'givenName', 'jobTitle', 'mail', 'mobilePhone', 'officeLocation', 'surname', 'userPrincipalName', 'id'] as const;
const USER_PROPERTIES = new Set(['id', 'accountEnabled', 'businessPhones', 'department', 'displayName', 'givenName', 'jobTitle', 'mail', 'mobilePhone', 'officeLocation', 'surname', 'userPrincipalName']);
const USER_WRITABLE = new Set(['accountEnabled', 'businessPhones', 'department', 'displayName', 'givenName', 'jobTitle', 'mobilePhone', 'officeLocation', 'surname']);

const SEED_USERS: [string, string, string, string, string, string][] = [
  ['Adele', 'Vance', 'Retail Manager', 'Retail', '18/2111', 'adelev'],
  ['Alex', 'Wilber', 'Marketing Assistant', 'Marketing', '131/1104', 'alexw'],
  ['Diego', 'Siciliani', 'HR Manager', 'HR', '14/1108', 'diegos'],
  ['Grady', 'Archie', 'Designer', 'R&D', '19/2109', 'gradya'],
  ['Isaiah', 'Langer', 'Sales Rep', 'Sales', '20/1101', 'isaiahl'],
];

/** The stand-in's users, as the seed names them. */
export function seedUsers(users: Map<string, GraphUser>): void {
  for (const [i, [given, surname, jobTitle, department, office, alias]] of SEED_USERS.entries()) {
    const id = `87d349ed-44d7-43e1-9a83-5f2406dee5b${i}`;
    users.set(id, {
      id, accountEnabled: true, businessPhones: [`+1 425 555 010${i}`], department, displayName: `${given} ${surname}`, givenName: given,
      jobTitle, mail: `${alias}@contoso.example`, mobilePhone: null, officeLocation: office, surname, userPrincipalName: `${alias}@contoso.example`,
    });
  }
}

/** What the Graph handler reads of the server's state. */
export interface GraphState {
  users: Map<string, GraphUser>;
  control: AzureApiControl;
  skipTokens: Map<string, { scope: string; offset: number }>;
  issueSkipToken(scope: string, offset: number): string;
  origin(): string;
  tokenSecret: string;
}

/** The handler of requests under /v1.0. */
export function graphApi(state: GraphState): (request: IncomingMessage, response: ServerResponse, url: URL, record: AzureRequest) => void {
  return (request: IncomingMessage, response: ServerResponse, url: URL, record: AzureRequest): void => {
    const clientRequestId = String(request.headers['client-request-id'] ?? randomUUID());
    const headers: Record<string, string> = { 'request-id': randomUUID(), 'client-request-id': clientRequestId, 'OData-Version': '4.0' };
    const send = (status: number, body?: unknown): void => sendJson(response, status, body, headers, GRAPH_JSON);
    const fail = (status: number, code: string, message: string): void => send(status, graphError(request, code, message));

    const tokenId = authorize(state.tokenSecret, request, response, GRAPH_AUDIENCES, true, headers);
    if (tokenId === undefined) return;
    record.tokenId = tokenId;

    const method = request.method ?? 'GET';
    const segments = url.pathname.replace(/\/+$/, '').split('/').slice(2).map(decodeURIComponent);
    if (lower(segments[0] ?? '') !== 'users' || segments.length > 2) return fail(400, 'BadRequest', `Resource not found for the segment '${segments.find((s, i) => i > 1 || lower(s) !== 'users') ?? segments[0] ?? ''}'.`);
    for (const key of url.searchParams.keys()) {
      if (key.startsWith('$') && !['$top', '$filter', '$select', '$skiptoken'].includes(key)) return fail(400, 'BadRequest', `Query option '${key}' is not supported by this stand-in.`);
    }
    const select = url.searchParams.get('$select');
    const selected = select === null ? undefined : select.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const unknown = selected?.find((name) => !USER_PROPERTIES.has(name));
    if (unknown !== undefined) return fail(400, 'BadRequest', `Could not find a property named '${unknown}' on type 'microsoft.graph.user'.`);
    const shape = (user: GraphUser): Record<string, unknown> => Object.fromEntries((selected ?? USER_DEFAULT_PROPERTIES).map((name) => [name, user[name as keyof GraphUser]]));
    const context = `${state.origin()}/v1.0/$metadata#users${selected ? `(${selected.join(',')})` : ''}`;

    if (segments.length === 1) {
      if (method !== 'GET') return fail(405, 'Request_BadRequest', 'Specified HTTP method is not allowed for the request uri.');
      const topText = url.searchParams.get('$top');
      const top = topText === null ? undefined : Number(topText);
      if (top !== undefined && (!Number.isInteger(top) || top < 1 || top > 999)) return fail(400, 'Request_BadRequest', `Invalid page size specified: '${topText}'. Must be between 1 and 999 inclusive.`);
      const filter = url.searchParams.get('$filter');
      const matches = filter === null ? () => true : userFilter(filter);
      if (matches === undefined) return fail(400, 'Request_UnsupportedQuery', `Unsupported or invalid query filter clause specified: '${filter}'.`);
      const all = [...state.users.values()].filter(matches);
      const scope = `${lower(url.pathname.replace(/\/+$/, ''))}?${filter ?? ''}`;
      let offset = 0;
      const given = url.searchParams.get('$skiptoken');
      if (given !== null) {
        const issued = state.skipTokens.get(given);
        if (!issued || issued.scope !== scope) return fail(400, 'Request_BadRequest', `Invalid paging token '${given}'.`);
        offset = issued.offset;
      }
      const pageSize = Math.min(top ?? state.control.pageSize, state.control.pageSize);
      const end = offset + pageSize;
      const page: Record<string, unknown> = { '@odata.context': context, value: all.slice(offset, end).map(shape) };
      if (end < all.length) {
        const query = [
          ...(filter === null ? [] : [`$filter=${encodeURIComponent(filter)}`]),
          ...(selected ? [`$select=${selected.join(',')}`] : []),
          `$top=${top ?? state.control.pageSize}`,
          `$skiptoken=${state.issueSkipToken(scope, end)}`,
        ];
        page['@odata.nextLink'] = `${state.origin()}/v1.0/users?${query.join('&')}`;
      }
      return send(200, page);
    }
    const key = segments[1] ?? '';
    const user = state.users.get(key) ?? [...state.users.values()].find((u) => lower(u.userPrincipalName ?? '') === lower(key));
    if (!user) return fail(404, 'Request_ResourceNotFound', `Resource '${key}' does not exist or one of its queried reference-property objects are not present.`);
    if (method === 'GET') return send(200, { '@odata.context': `${context}/$entity`, ...shape(user) });
    if (method !== 'PATCH') return fail(405, 'Request_BadRequest', 'Specified HTTP method is not allowed for the request uri.');
    const body = parseJson(record.body);
    if (!isObject(body)) return fail(400, 'BadRequest', 'Empty Payload. JSON content expected.');
    for (const [name, value] of Object.entries(body)) {
      if (name === '@odata.type') continue;
      if (!USER_PROPERTIES.has(name)) return fail(400, 'Request_BadRequest', `Invalid property '${name}'.`);
      if (!USER_WRITABLE.has(name)) return fail(400, 'Request_BadRequest', `Property '${name}' is read-only and cannot be set.`);
      const fits = name === 'accountEnabled' ? typeof value === 'boolean'
        : name === 'businessPhones' ? Array.isArray(value) && value.every((v) => typeof v === 'string')
          : value === null || typeof value === 'string';
      if (!fits) return fail(400, 'Request_BadRequest', `Invalid value specified for property '${name}' of resource 'User'.`);
    }
    for (const [name, value] of Object.entries(body)) if (name !== '@odata.type') (user as unknown as Record<string, unknown>)[name] = value;
    return send(204);
  };
}

/**
 * A predicate for the $filter expressions this stand-in understands (clauses joined by `and`):
 * `startswith(prop,'text')`, `prop eq 'text'`, `prop eq true|false|null`; undefined for anything else.
 */
function userFilter(filter: string): ((user: GraphUser) => boolean) | undefined {
  const clauses = filter.split(/\s+and\s+/i);
  const tests: ((user: GraphUser) => boolean)[] = [];
  for (const clause of clauses) {
    const starts = /^\s*startswith\(\s*(\w+)\s*,\s*'((?:[^']|'')*)'\s*\)\s*$/i.exec(clause);
    const equals = /^\s*(\w+)\s+eq\s+(?:'((?:[^']|'')*)'|(true|false|null))\s*$/i.exec(clause);
    const property = (starts ?? equals)?.[1];
    if (property === undefined || !USER_PROPERTIES.has(property)) return undefined;
    const read = (user: GraphUser): unknown => user[property as keyof GraphUser];
    if (starts) {
      const prefix = lower((starts[2] ?? '').replace(/''/g, "'"));
      tests.push((user) => { const v = read(user); return typeof v === 'string' && lower(v).startsWith(prefix); });
    } else if (equals) {
      const literal = equals[3] !== undefined ? JSON.parse(lower(equals[3])) as unknown : (equals[2] ?? '').replace(/''/g, "'");
      tests.push((user) => { const v = read(user); return typeof v === 'string' && typeof literal === 'string' ? lower(v) === lower(literal) : v === literal; });
    }
  }
  return (user) => tests.every((t) => t(user));
}
