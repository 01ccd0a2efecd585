/**
 * A stand-in for Azure Resource Manager (the Microsoft.Widgets provider of test/fixtures/azure/widgets.json)
 * and Microsoft Graph (the users of test/fixtures/azure/graph-users.yaml under /v1.0) on one 127.0.0.1 port,
 * answering as the real services do by Microsoft's published contracts (ARM's resource provider contract and
 * async-operation contract, Microsoft's REST API guidelines, Graph's paging and OData query options). No Azure
 * or Graph service is reachable from the tests, so this is what the generated servers are driven against.
 *
 * - Every request needs `Authorization: Bearer <token>` with a token the fake `az` (test/support/fake-az.ts)
 *   printed, signed with the secret given here, for this service's audience and not expired; else 401 with
 *   `WWW-Authenticate: Bearer ...` and ARM's codes (AuthenticationFailed when the header is missing,
 *   InvalidAuthenticationToken, InvalidAuthenticationTokenAudience, ExpiredAuthenticationToken) or Graph's
 *   (InvalidAuthenticationToken).
 * - ARM: `api-version` must be exactly {@link API_VERSION} (400 MissingApiVersionParameter /
 *   InvalidApiVersionParameter), the subscription one of {@link SUBSCRIPTIONS} (404 SubscriptionNotFound), the
 *   resource group one that exists (404 ResourceGroupNotFound). Errors are `{"error":{"code","message"}}`.
 * - Lists answer at most `pageSize` (2) items a page; `nextLink` (ARM) and `@odata.nextLink` (Graph) are
 *   absolute URLs on this origin, the same path, with a `$skiptoken` this server issued (any other: 400).
 * - Long-running operations advance only when polled: a PUT answers 201 (200 when it replaces) with
 *   `provisioningState` Creating (Updating), `Azure-AsyncOperation` and `Retry-After`; its status URL answers
 *   InProgress for `pollsBeforeDone` polls, then Succeeded (or Failed, with `error`). A DELETE answers 202
 *   with `Location` and `Retry-After`; the Location answers 202 until done, then 204, and the widget is gone
 *   only then. POST polish answers 202 with `Location`; it answers 202 until done, then 200 with the result.
 *   Either status URL serves any operation. Another LRO on a widget with one running is 409
 *   AnotherOperationInProgress, as ARM answers.
 *
 * Its state (widgets, users, operations, the requests received) is the test's to read and change; `control`
 * holds the hooks (polls before done, operations that never end, colors a create fails on, Retry-After).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ARM_RESOURCE, GRAPH_RESOURCE, verifyToken } from './fake-az.js';

/** test/fixtures/azure/widgets.json (this file is dist/test/support/azure-api.js). */
export const WIDGETS_SPEC = join(import.meta.dirname, '../../../test/fixtures/azure/widgets.json');
/** test/fixtures/azure/graph-users.yaml */
export const GRAPH_SPEC = join(import.meta.dirname, '../../../test/fixtures/azure/graph-users.yaml');
/** The only api-version the stand-in ARM accepts (widgets.json's info.version). */
export const API_VERSION = '2024-05-01';
/** The subscriptions that exist. */
export const SUBSCRIPTIONS = ['00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002'] as const;
export const WIDGET_TYPE = 'Microsoft.Widgets/widgets';

export type ProvisioningState = 'Succeeded' | 'Failed' | 'Canceled' | 'Creating' | 'Deleting' | 'Updating';
export type OperationStatus = 'InProgress' | 'Succeeded' | 'Failed' | 'Canceled';

export interface Widget {
  id: string;
  name: string;
  type: string;
  location: string;
  tags: Record<string, string>;
  properties: { color?: string; size?: number; provisioningState: ProvisioningState };
}

export interface PolishResult { polishedAt: string; shine: number }

export interface ArmError { code: string; message: string; target?: string; details?: ArmError[] }

export interface AsyncOperation {
  /** The operation's id, the last segment of its status URLs. */
  id: string;
  kind: 'create' | 'update' | 'delete' | 'polish';
  subscription: string;
  /** The widget's ARM id (as created) and name. */
  widgetId: string;
  widgetName: string;
  /** The Azure-AsyncOperation status URL and the Location result URL (both absolute, both serve it). */
  statusUrl: string;
  resultUrl: string;
  status: OperationStatus;
  /** Polls received so far (either URL). */
  polls: number;
  /** Polls answered InProgress/202 before it ends (fixed when it starts). */
  pollsBeforeDone: number;
  /** It never ends (control.neverFinish when it started). */
  neverFinish: boolean;
  startTime: string;
  endTime?: string;
  error?: ArmError;
  /** Polish's result, once Succeeded. */
  result?: PolishResult;
}

export interface GraphUser {
  id: string;
  accountEnabled: boolean;
  businessPhones: string[];
  department: string | null;
  displayName: string | null;
  givenName: string | null;
  jobTitle: string | null;
  mail: string | null;
  mobilePhone: string | null;
  officeLocation: string | null;
  surname: string | null;
  userPrincipalName: string | null;
}

export interface AzureRequest {
  method: string;
  /** The full URL as received: origin, path and query. */
  url: string;
  /** The path and query as received. */
  target: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (Date.now()). */
  time: number;
  /** The status answered. */
  status?: number;
  /** The `jti` of the token that authorized it (undefined when refused). */
  tokenId?: string;
}

export interface AzureApiControl {
  /** The Retry-After (seconds) sent with 201/202 answers and in-progress polls (default 1; 0 makes tests fast). */
  retryAfterSeconds: number;
  /** Polls answered InProgress/202 before an operation ends (default 2). */
  pollsBeforeDone: number;
  /** Per widget name (case-insensitive), overriding pollsBeforeDone. */
  pollsBeforeDoneFor: Map<string, number>;
  /** Widget names (case-insensitive; `*` for all) whose operations started from now on never end. */
  neverFinish: Set<string>;
  /** Colors a create or update accepts at once but then fails on (status Failed, provisioningState Failed). */
  rejectedColors: Set<string>;
  /** Widget names (case-insensitive) whose operations of any kind end Failed. */
  failing: Set<string>;
  /** Items per page (default 2). */
  pageSize: number;
}

export interface AzureApi {
  /** http://127.0.0.1:<port>: ARM's base URL (the document's https://management.azure.com). */
  readonly url: string;
  /** <url>/v1.0: Graph's base URL (the document's https://graph.microsoft.com/v1.0). */
  readonly graphUrl: string;
  /** Widgets by ARM id, lowercased (ARM ids are case-insensitive). */
  readonly widgets: Map<string, Widget>;
  /** Resource groups that exist, lowercased, per subscription. */
  readonly resourceGroups: Map<string, Set<string>>;
  /** Long-running operations by id. */
  readonly operations: Map<string, AsyncOperation>;
  /** Graph users by id. */
  readonly users: Map<string, GraphUser>;
  /** Every request, in order of arrival. */
  readonly requests: AzureRequest[];
  readonly control: AzureApiControl;
  /** The ARM id of a widget. */
  widgetId(subscription: string, resourceGroup: string, name: string): string;
  /** The widget with that id or (subscription, resource group, name), case-insensitive. */
  widget(idOrSubscription: string, resourceGroup?: string, name?: string): Widget | undefined;
  /** The requests whose path (case-insensitive) starts with `prefix`. */
  requestsTo(prefix: string): AzureRequest[];
  close(): Promise<void>;
}

export interface AzureApiOptions {
  /** The secret the fake az signs its tokens with ({@link FakeAz.secret}). */
  tokenSecret: string;
  /** Initial control values. */
  retryAfterSeconds?: number;
  pollsBeforeDone?: number;
  pageSize?: number;
}

const ARM_AUDIENCES = new Set([ARM_RESOURCE, 'https://management.core.windows.net']);
const GRAPH_AUDIENCES = new Set([GRAPH_RESOURCE, '00000003-0000-0000-c000-000000000000']);
const WIDGET_NAME = /^[a-zA-Z0-9][a-zA-Z0-9-]{0,62}$/;
const COLORS = ['red', 'green', 'blue'];
const GRAPH_JSON = 'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8';
/** What Graph returns for a user when no $select names properties. */
const USER_DEFAULT_PROPERTIES = ['businessPhones', 'displayName', 'givenName', 'jobTitle', 'mail', 'mobilePhone', 'officeLocation', 'surname', 'userPrincipalName', 'id'] as const;
const USER_PROPERTIES = new Set(['id', 'accountEnabled', 'businessPhones', 'department', 'displayName', 'givenName', 'jobTitle', 'mail', 'mobilePhone', 'officeLocation', 'surname', 'userPrincipalName']);
const USER_WRITABLE = new Set(['accountEnabled', 'businessPhones', 'department', 'displayName', 'givenName', 'jobTitle', 'mobilePhone', 'officeLocation', 'surname']);
const OPERATIONS = [
  ['Microsoft.Widgets/widgets/read', 'Widgets', 'Get widget', 'Reads a widget or lists widgets.'],
  ['Microsoft.Widgets/widgets/write', 'Widgets', 'Create or update widget', 'Creates a widget or updates one.'],
  ['Microsoft.Widgets/widgets/delete', 'Widgets', 'Delete widget', 'Deletes a widget.'],
  ['Microsoft.Widgets/widgets/polish/action', 'Widgets', 'Polish widget', 'Polishes a widget.'],
  ['Microsoft.Widgets/operations/read', 'Operations', 'List operations', 'Lists the operations of Microsoft.Widgets.'],
].map(([name, resource, operation, description]) => ({ name, isDataAction: false, display: { provider: 'Microsoft Widgets', resource, operation, description }, origin: 'user,system' }));

const SEED_USERS: [string, string, string, string, string, string][] = [
  ['Adele', 'Vance', 'Retail Manager', 'Retail', '18/2111', 'adelev'],
  ['Alex', 'Wilber', 'Marketing Assistant', 'Marketing', '131/1104', 'alexw'],
  ['Diego', 'Siciliani', 'HR Manager', 'HR', '14/1108', 'diegos'],
  ['Grady', 'Archie', 'Designer', 'R&D', '19/2109', 'gradya'],
  ['Isaiah', 'Langer', 'Sales Rep', 'Sales', '20/1101', 'isaiahl'],
];

const lower = (text: string): string => text.toLowerCase();
const has = (set: Set<string>, name: string): boolean => set.has('*') || [...set].some((entry) => lower(entry) === lower(name));

export async function startAzureApi(options: AzureApiOptions): Promise<AzureApi> {
  const widgets = new Map<string, Widget>();
  const resourceGroups = new Map<string, Set<string>>(SUBSCRIPTIONS.map((s) => [s, new Set<string>()]));
  const operations = new Map<string, AsyncOperation>();
  const users = new Map<string, GraphUser>();
  const requests: AzureRequest[] = [];
  const control: AzureApiControl = {
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    pollsBeforeDone: options.pollsBeforeDone ?? 2,
    pollsBeforeDoneFor: new Map(),
    neverFinish: new Set(),
    rejectedColors: new Set(),
    failing: new Set(),
    pageSize: options.pageSize ?? 2,
  };
  /** The $skiptokens issued: what list they continue (path, and for Graph the query) and where. */
  const skipTokens = new Map<string, { scope: string; offset: number }>();
  let origin = '';

  const widgetId = (subscription: string, resourceGroup: string, name: string): string =>
    `/subscriptions/${subscription}/resourceGroups/${resourceGroup}/providers/${WIDGET_TYPE}/${name}`;
  const addWidget = (subscription: string, resourceGroup: string, name: string, color: string, size: number): void => {
    resourceGroups.get(subscription)?.add(lower(resourceGroup));
    const id = widgetId(subscription, resourceGroup, name);
    widgets.set(lower(id), { id, name, type: WIDGET_TYPE, location: 'westeurope', tags: { env: 'test' }, properties: { color, size, provisioningState: 'Succeeded' } });
  };
  // Five widgets (three pages) in the first subscription's widgets-rg, none in its empty-rg, one in the second's.
  for (const [i, name] of ['alpha', 'bravo', 'charlie', 'delta', 'echo'].entries()) addWidget(SUBSCRIPTIONS[0], 'widgets-rg', name, COLORS[i % 3] ?? 'red', i + 1);
  resourceGroups.get(SUBSCRIPTIONS[0])?.add('empty-rg');
  addWidget(SUBSCRIPTIONS[1], 'other-rg', 'foxtrot', 'blue', 7);
  for (const [i, [given, surname, jobTitle, department, office, alias]] of SEED_USERS.entries()) {
    const id = `87d349ed-44d7-43e1-9a83-5f2406dee5b${i}`;
    users.set(id, {
      id, accountEnabled: true, businessPhones: [`+1 425 555 010${i}`], department, displayName: `${given} ${surname}`, givenName: given,
      jobTitle, mail: `${alias}@contoso.example`, mobilePhone: null, officeLocation: office, surname, userPrincipalName: `${alias}@contoso.example`,
    });
  }

  const issueSkipToken = (scope: string, offset: number): string => {
    const token = randomBytes(12).toString('base64url');
    skipTokens.set(token, { scope, offset });
    return token;
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 1_048_576) chunks.push(chunk);
    });
    request.on('end', () => {
      const record: AzureRequest = {
        method: request.method ?? '', url: `${origin}${request.url ?? '/'}`, target: request.url ?? '/',
        headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), time: Date.now(),
      };
      requests.push(record);
      response.on('finish', () => (record.status = response.statusCode));
      try {
        const url = new URL(`${origin}${request.url ?? '/'}`);
        if (/^\/v1\.0(\/|$)/i.test(url.pathname)) graph(request, response, url, record);
        else arm(request, response, url, record);
      } catch (error) {
        if (!response.headersSent) sendJson(response, 500, { error: { code: 'InternalServerError', message: `The stand-in failed: ${String(error)}` } });
      }
    });
  });

  // ---- Authorization ----

  /** The token's id when the request carries a valid token for `audiences`; else answers 401 and returns undefined. */
  function authorize(request: IncomingMessage, response: ServerResponse, audiences: Set<string>, asGraph: boolean, extra: Record<string, string>): string | undefined {
    const header = request.headers.authorization;
    const token = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
    let code = 'InvalidAuthenticationToken';
    let message: string;
    if (header === undefined) {
      code = asGraph ? 'InvalidAuthenticationToken' : 'AuthenticationFailed';
      message = asGraph ? 'Access token is empty.' : "Authentication failed. The 'Authorization' header is missing.";
    } else if (token === undefined) {
      code = asGraph ? 'InvalidAuthenticationToken' : 'AuthenticationFailed';
      message = asGraph ? 'Access token is empty.' : "Authentication failed. The 'Authorization' header is provided in an invalid format.";
    } else {
      const check = verifyToken(options.tokenSecret, token);
      if (check.ok) {
        if (audiences.has(check.claims.aud.replace(/\/+$/, ''))) return check.claims.jti;
        code = asGraph ? 'InvalidAuthenticationToken' : 'InvalidAuthenticationTokenAudience';
        message = asGraph ? 'Access token validation failure. Invalid audience.' : `The access token has been obtained for wrong audience or resource '${check.claims.aud}'. It should exactly match with one of the allowed audiences '${[...audiences].map((a) => `${a}/`).join("','")}'.`;
      } else if (check.reason === 'expired') {
        code = asGraph ? 'InvalidAuthenticationToken' : 'ExpiredAuthenticationToken';
        message = asGraph ? 'Lifetime validation failed, the token is expired.' : `The access token expiry UTC time '${new Date((check.claims?.exp ?? 0) * 1000).toUTCString()}' is earlier than current UTC time '${new Date().toUTCString()}'.`;
      } else {
        message = asGraph ? 'Access token validation failure.' : 'The access token is invalid.';
      }
    }
    const wwwAuthenticate = asGraph
      ? 'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"'
      : `Bearer authorization_uri="https://login.windows.net/", error="invalid_token", error_description="${message.replace(/"/g, "'")}"`;
    const body = asGraph ? graphError(request, code, message) : { error: { code, message } };
    sendJson(response, 401, body, { ...extra, 'WWW-Authenticate': wwwAuthenticate }, asGraph ? GRAPH_JSON : undefined);
    return undefined;
  }

  // ---- Azure Resource Manager ----

  function arm(request: IncomingMessage, response: ServerResponse, url: URL, record: AzureRequest): void {
    const requestId = randomUUID();
    const headers: Record<string, string> = {
      'x-ms-request-id': requestId,
      'x-ms-correlation-request-id': String(request.headers['x-ms-correlation-request-id'] ?? requestId),
    };
    const send = (status: number, body?: unknown, more: Record<string, string> = {}): void => sendJson(response, status, body, { ...headers, ...more });
    const fail = (status: number, code: string, message: string, more: Record<string, string> = {}): void => send(status, { error: { code, message } }, more);

    const tokenId = authorize(request, response, ARM_AUDIENCES, false, headers);
    if (tokenId === undefined) return;
    record.tokenId = tokenId;

    const versions = url.searchParams.getAll('api-version');
    if (versions.length === 0) return fail(400, 'MissingApiVersionParameter', 'The api-version query parameter (?api-version=) is required for all requests.');
    if (versions.length > 1 || versions[0] !== API_VERSION) {
      return fail(400, 'InvalidApiVersionParameter', `The api-version '${versions.join(',')}' is invalid. The supported versions are '${API_VERSION}'.`);
    }
    const method = request.method ?? 'GET';
    const path = url.pathname.replace(/\/+$/, '');
    const notAllowed = (): void => fail(405, 'MethodNotAllowed', `The requested resource does not support http method '${method}'.`);

    if (/^\/providers\/microsoft\.widgets\/operations$/i.test(path)) {
      return method === 'GET' ? send(200, { value: OPERATIONS }) : notAllowed();
    }
    const subscriptionMatch = /^\/subscriptions\/([^/]+)(\/.*)?$/i.exec(path);
    if (!subscriptionMatch) return fail(404, 'NotFound', `No route matches '${method} ${url.pathname}'.`);
    const subscription = SUBSCRIPTIONS.find((s) => lower(s) === lower(decodeURIComponent(subscriptionMatch[1] ?? '')));
    if (subscription === undefined) return fail(404, 'SubscriptionNotFound', `The subscription '${decodeURIComponent(subscriptionMatch[1] ?? '')}' could not be found.`);
    const rest = subscriptionMatch[2] ?? '';

    const operation = /^\/providers\/microsoft\.widgets\/locations\/([^/]+)\/(operationStatuses|operationResults)\/([^/]+)$/i.exec(rest);
    if (operation) {
      if (method !== 'GET') return notAllowed();
      const op = operations.get(decodeURIComponent(operation[3] ?? ''));
      if (!op || op.subscription !== subscription) return fail(404, 'OperationNotFound', `The operation '${operation[3]}' could not be found.`);
      poll(op);
      return lower(operation[2] ?? '') === 'operationstatuses' ? sendStatus(op, send) : sendResult(op, send);
    }
    if (/^\/providers\/microsoft\.widgets\/checknameavailability$/i.test(rest)) {
      if (method !== 'POST') return notAllowed();
      const body = parseJson(record.body);
      if (!isObject(body)) return fail(400, 'InvalidRequestContent', 'The request content was invalid and could not be deserialized.');
      if (typeof body.type === 'string' && lower(body.type) !== lower(WIDGET_TYPE)) return fail(400, 'InvalidResourceType', `The resource type '${body.type}' is not supported by checkNameAvailability.`);
      const name = typeof body.name === 'string' ? body.name : '';
      if (!WIDGET_NAME.test(name)) return send(200, { nameAvailable: false, reason: 'Invalid', message: `The name '${name}' is invalid: 1 to 63 letters, digits and hyphens, starting with a letter or digit.` });
      const taken = [...widgets.values()].some((w) => w.id.startsWith(`/subscriptions/${subscription}/`) && lower(w.name) === lower(name));
      return send(200, taken ? { nameAvailable: false, reason: 'AlreadyExists', message: `A widget named '${name}' already exists in the subscription.` } : { nameAvailable: true });
    }
    if (/^\/providers\/microsoft\.widgets\/widgets$/i.test(rest)) {
      if (method !== 'GET') return notAllowed();
      const all = [...widgets.values()].filter((w) => w.id.startsWith(`/subscriptions/${subscription}/`));
      return listPage(all, url, send, fail);
    }
    const inGroup = /^\/resourcegroups\/([^/]+)\/providers\/microsoft\.widgets\/widgets(?:\/([^/]+)(\/polish)?)?$/i.exec(rest);
    if (!inGroup) return fail(404, 'InvalidResourceType', `The resource type could not be found in the namespace 'Microsoft.Widgets' for api version '${API_VERSION}': '${url.pathname}'.`);
    const resourceGroup = decodeURIComponent(inGroup[1] ?? '');
    if (!resourceGroups.get(subscription)?.has(lower(resourceGroup))) return fail(404, 'ResourceGroupNotFound', `Resource group '${resourceGroup}' could not be found.`);
    const name = inGroup[2] === undefined ? undefined : decodeURIComponent(inGroup[2]);
    if (name === undefined) {
      if (method !== 'GET') return notAllowed();
      const all = [...widgets.values()].filter((w) => lower(w.id).startsWith(lower(`/subscriptions/${subscription}/resourceGroups/${resourceGroup}/`)));
      return listPage(all, url, send, fail);
    }
    const id = widgetId(subscription, resourceGroup, name);
    const existing = widgets.get(lower(id));
    const notFound = (): void => fail(404, 'ResourceNotFound', `The Resource '${WIDGET_TYPE}/${name}' under resource group '${resourceGroup}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix`);
    const running = [...operations.values()].find((op) => lower(op.widgetId) === lower(id) && op.status === 'InProgress');
    const conflict = (op: AsyncOperation): void => fail(409, 'AnotherOperationInProgress', `Another operation on this or dependent resource is in progress. To retrieve status of the operation use uri: ${op.statusUrl}.`);

    if (inGroup[3] !== undefined) {
      if (method !== 'POST') return notAllowed();
      if (!existing) return notFound();
      if (running) return conflict(running);
      const op = startOperation('polish', subscription, existing);
      return send(202, undefined, { Location: op.resultUrl, 'Retry-After': String(control.retryAfterSeconds) });
    }
    switch (method) {
      case 'GET':
        return existing ? send(200, existing) : notFound();
      case 'PUT': {
        if (!WIDGET_NAME.test(name)) return fail(400, 'InvalidResourceName', `The resource name '${name}' is invalid: 1 to 63 letters, digits and hyphens, starting with a letter or digit.`);
        const body = parseJson(record.body);
        if (!isObject(body)) return fail(400, 'InvalidRequestContent', 'The request content was invalid and could not be deserialized: the body must be a JSON object.');
        if (typeof body.location !== 'string' || body.location.trim() === '') return fail(400, 'LocationRequired', 'The location property is required for this definition.');
        const location = lower(body.location.replace(/\s+/g, ''));
        if (existing && existing.location !== location) return fail(400, 'InvalidResourceLocation', `The resource '${name}' already exists in location '${existing.location}' in resource group '${resourceGroup}'. A resource with the same name cannot be created in location '${location}'. Please select a new resource name.`);
        const tags = body.tags === undefined ? {} : body.tags;
        if (!isObject(tags) || Object.values(tags).some((v) => typeof v !== 'string')) return fail(400, 'InvalidRequestContent', "The property 'tags' must be an object of strings.");
        const properties = body.properties === undefined ? {} : body.properties;
        if (!isObject(properties)) return fail(400, 'InvalidRequestContent', "The property 'properties' must be an object.");
        const invalid = checkProperties(properties);
        if (invalid) return fail(400, 'InvalidParameter', invalid);
        if (running) return conflict(running);
        const widget: Widget = {
          id: existing?.id ?? id, name: existing?.name ?? name, type: WIDGET_TYPE, location, tags: tags as Record<string, string>,
          properties: {
            ...(typeof properties.color === 'string' ? { color: properties.color } : {}),
            ...(typeof properties.size === 'number' ? { size: properties.size } : {}),
            provisioningState: existing ? 'Updating' : 'Creating',
          },
        };
        widgets.set(lower(widget.id), widget);
        const op = startOperation(existing ? 'update' : 'create', subscription, widget);
        return send(existing ? 200 : 201, widget, { 'Azure-AsyncOperation': op.statusUrl, 'Retry-After': String(control.retryAfterSeconds) });
      }
      case 'PATCH': {
        if (!existing) return notFound();
        const body = parseJson(record.body);
        if (!isObject(body)) return fail(400, 'InvalidRequestContent', 'The request content was invalid and could not be deserialized: the body must be a JSON object.');
        if (body.tags !== undefined && (!isObject(body.tags) || Object.values(body.tags).some((v) => typeof v !== 'string'))) return fail(400, 'InvalidRequestContent', "The property 'tags' must be an object of strings.");
        if (body.properties !== undefined && !isObject(body.properties)) return fail(400, 'InvalidRequestContent', "The property 'properties' must be an object.");
        const properties = isObject(body.properties) ? body.properties : {};
        const invalid = checkProperties({ color: properties.color });
        if (invalid) return fail(400, 'InvalidParameter', invalid);
        if (isObject(body.tags)) existing.tags = body.tags as Record<string, string>;
        if (typeof properties.color === 'string') existing.properties.color = properties.color;
        return send(200, existing);
      }
      case 'DELETE': {
        if (!existing) return send(204);
        if (running) return conflict(running);
        existing.properties.provisioningState = 'Deleting';
        const op = startOperation('delete', subscription, existing);
        return send(202, undefined, { Location: op.resultUrl, 'Retry-After': String(control.retryAfterSeconds) });
      }
      default:
        return notAllowed();
    }
  }

  /** Why `properties` do not fit the Widget schema (color and size), or undefined. */
  function checkProperties(properties: Record<string, unknown>): string | undefined {
    const { color, size } = properties;
    if (color !== undefined && (typeof color !== 'string' || !COLORS.includes(color))) return `The value '${String(color)}' of property 'properties.color' is invalid: one of ${COLORS.join(', ')}.`;
    if (size !== undefined && (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 10)) return `The value '${String(size)}' of property 'properties.size' is invalid: an integer from 1 to 10.`;
    return undefined;
  }

  function listPage(all: Widget[], url: URL, send: (status: number, body?: unknown) => void, fail: (status: number, code: string, message: string) => void): void {
    const sorted = [...all].sort((a, b) => lower(a.name).localeCompare(lower(b.name)));
    const scope = lower(url.pathname.replace(/\/+$/, ''));
    let offset = 0;
    const given = url.searchParams.get('$skiptoken');
    if (given !== null) {
      const issued = skipTokens.get(given);
      if (!issued || issued.scope !== scope) return fail(400, 'InvalidSkipToken', `The $skiptoken '${given}' is invalid or expired.`);
      offset = issued.offset;
    }
    const end = offset + control.pageSize;
    const page: { value: Widget[]; nextLink?: string } = { value: sorted.slice(offset, end) };
    if (end < sorted.length) page.nextLink = `${origin}${url.pathname}?api-version=${API_VERSION}&$skiptoken=${issueSkipToken(scope, end)}`;
    send(200, page);
  }

  function startOperation(kind: AsyncOperation['kind'], subscription: string, widget: Widget): AsyncOperation {
    const id = randomUUID();
    const base = `${origin}/subscriptions/${subscription}/providers/Microsoft.Widgets/locations/${widget.location}`;
    const op: AsyncOperation = {
      id, kind, subscription, widgetId: widget.id, widgetName: widget.name,
      statusUrl: `${base}/operationStatuses/${id}?api-version=${API_VERSION}`,
      resultUrl: `${base}/operationResults/${id}?api-version=${API_VERSION}`,
      status: 'InProgress', polls: 0,
      pollsBeforeDone: [...control.pollsBeforeDoneFor].find(([name]) => lower(name) === lower(widget.name))?.[1] ?? control.pollsBeforeDone,
      neverFinish: has(control.neverFinish, widget.name),
      startTime: new Date().toISOString(),
    };
    operations.set(id, op);
    return op;
  }

  /** Counts a poll; the operation ends when it has been polled more than pollsBeforeDone times. */
  function poll(op: AsyncOperation): void {
    if (op.status !== 'InProgress') return;
    op.polls++;
    if (op.neverFinish || op.polls <= op.pollsBeforeDone) return;
    const widget = widgets.get(lower(op.widgetId));
    op.endTime = new Date().toISOString();
    const failure: ArmError | undefined = has(control.failing, op.widgetName)
      ? { code: 'WidgetOperationFailed', message: `The ${op.kind} operation on widget '${op.widgetName}' failed.` }
      : (op.kind === 'create' || op.kind === 'update') && widget?.properties.color !== undefined && has(control.rejectedColors, widget.properties.color)
        ? { code: 'WidgetColorNotAllowed', message: `Widgets of color '${widget.properties.color}' cannot be provisioned in this region.`, target: 'properties.color' }
        : undefined;
    if (failure) {
      op.status = 'Failed';
      op.error = failure;
      if (widget) widget.properties.provisioningState = 'Failed';
      return;
    }
    op.status = 'Succeeded';
    if (op.kind === 'delete') widgets.delete(lower(op.widgetId));
    else if (widget) {
      widget.properties.provisioningState = 'Succeeded';
      if (op.kind === 'polish') op.result = { polishedAt: op.endTime, shine: Math.min(100, (widget.properties.size ?? 1) * 10) };
    }
  }

  /** The Azure-AsyncOperation status resource (always 200). */
  function sendStatus(op: AsyncOperation, send: (status: number, body?: unknown, more?: Record<string, string>) => void): void {
    const id = new URL(op.statusUrl).pathname;
    const body = {
      id, name: op.id, resourceId: op.widgetId, status: op.status, startTime: op.startTime,
      ...(op.endTime ? { endTime: op.endTime } : {}),
      ...(op.status === 'InProgress' ? {} : { percentComplete: 100 }),
      ...(op.error ? { error: op.error } : {}),
    };
    send(200, body, op.status === 'InProgress' ? { 'Retry-After': String(control.retryAfterSeconds) } : {});
  }

  /** The Location result: 202 while running, then the operation's outcome. */
  function sendResult(op: AsyncOperation, send: (status: number, body?: unknown, more?: Record<string, string>) => void): void {
    if (op.status === 'InProgress') return send(202, undefined, { Location: op.resultUrl, 'Retry-After': String(control.retryAfterSeconds) });
    if (op.status === 'Failed') return send(409, { error: op.error });
    if (op.kind === 'delete') return send(204);
    if (op.kind === 'polish') return send(200, op.result);
    const widget = widgets.get(lower(op.widgetId));
    return widget ? send(200, widget) : send(204);
  }

  // ---- Microsoft Graph ----

  function graph(request: IncomingMessage, response: ServerResponse, url: URL, record: AzureRequest): void {
    const clientRequestId = String(request.headers['client-request-id'] ?? randomUUID());
    const headers: Record<string, string> = { 'request-id': randomUUID(), 'client-request-id': clientRequestId, 'OData-Version': '4.0' };
    const send = (status: number, body?: unknown): void => sendJson(response, status, body, headers, GRAPH_JSON);
    const fail = (status: number, code: string, message: string): void => send(status, graphError(request, code, message));

    const tokenId = authorize(request, response, GRAPH_AUDIENCES, true, headers);
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
    const context = `${origin}/v1.0/$metadata#users${selected ? `(${selected.join(',')})` : ''}`;

    if (segments.length === 1) {
      if (method !== 'GET') return fail(405, 'Request_BadRequest', 'Specified HTTP method is not allowed for the request uri.');
      const topText = url.searchParams.get('$top');
      const top = topText === null ? undefined : Number(topText);
      if (top !== undefined && (!Number.isInteger(top) || top < 1 || top > 999)) return fail(400, 'Request_BadRequest', `Invalid page size specified: '${topText}'. Must be between 1 and 999 inclusive.`);
      const filter = url.searchParams.get('$filter');
      const matches = filter === null ? () => true : userFilter(filter);
      if (matches === undefined) return fail(400, 'Request_UnsupportedQuery', `Unsupported or invalid query filter clause specified: '${filter}'.`);
      const all = [...users.values()].filter(matches);
      const scope = `${lower(url.pathname.replace(/\/+$/, ''))}?${filter ?? ''}`;
      let offset = 0;
      const given = url.searchParams.get('$skiptoken');
      if (given !== null) {
        const issued = skipTokens.get(given);
        if (!issued || issued.scope !== scope) return fail(400, 'Request_BadRequest', `Invalid paging token '${given}'.`);
        offset = issued.offset;
      }
      const pageSize = Math.min(top ?? control.pageSize, control.pageSize);
      const end = offset + pageSize;
      const page: Record<string, unknown> = { '@odata.context': context, value: all.slice(offset, end).map(shape) };
      if (end < all.length) {
        const query = [
          ...(filter === null ? [] : [`$filter=${encodeURIComponent(filter)}`]),
          ...(selected ? [`$select=${selected.join(',')}`] : []),
          `$top=${top ?? control.pageSize}`,
          `$skiptoken=${issueSkipToken(scope, end)}`,
        ];
        page['@odata.nextLink'] = `${origin}/v1.0/users?${query.join('&')}`;
      }
      return send(200, page);
    }
    const key = segments[1] ?? '';
    const user = users.get(key) ?? [...users.values()].find((u) => lower(u.userPrincipalName ?? '') === lower(key));
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
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    graphUrl: `${origin}/v1.0`,
    widgets, resourceGroups, operations, users, requests, control,
    widgetId,
    widget: (first, resourceGroup, name) => widgets.get(lower(resourceGroup === undefined || name === undefined ? first : widgetId(first, resourceGroup, name))),
    requestsTo: (prefix) => requests.filter((r) => lower(r.target).startsWith(lower(prefix))),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
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

function graphError(request: IncomingMessage, code: string, message: string): unknown {
  return {
    error: {
      code, message,
      innerError: { date: new Date().toISOString().replace(/\.\d+Z$/, ''), 'request-id': randomUUID(), 'client-request-id': String(request.headers['client-request-id'] ?? randomUUID()) },
    },
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, contentType = 'application/json; charset=utf-8'): void {
  if (body === undefined) {
    // A 204 carries no Content-Length; a 202 or 200 without a body says it is empty.
    response.writeHead(status, status === 204 ? headers : { ...headers, 'Content-Length': '0' });
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(text)) });
  response.end(text);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
