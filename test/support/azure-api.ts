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
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ARM_RESOURCE } from './fake-az.js';
import { graphApi, seedUsers } from './azure-graph.js';
import {
  API_VERSION, COLORS, SUBSCRIPTIONS, WIDGET_TYPE, authorize, checkProperties, has, isObject, lower, parseJson, sendJson,
  type ArmError, type AsyncOperation, type AzureApi, type AzureApiControl, type AzureApiOptions, type AzureRequest, type GraphUser, type Widget,
} from './azure-shapes.js';

export * from './azure-shapes.js';

const ARM_AUDIENCES = new Set([ARM_RESOURCE, 'https://management.core.windows.net']);
const WIDGET_NAME = /^[a-zA-Z0-9][a-zA-Z0-9-]{0,62}$/;
const OPERATIONS = [
  ['Microsoft.Widgets/widgets/read', 'Widgets', 'Get widget', 'Reads a widget or lists widgets.'],
  ['Microsoft.Widgets/widgets/write', 'Widgets', 'Create or update widget', 'Creates a widget or updates one.'],
  ['Microsoft.Widgets/widgets/delete', 'Widgets', 'Delete widget', 'Deletes a widget.'],
  ['Microsoft.Widgets/widgets/polish/action', 'Widgets', 'Polish widget', 'Polishes a widget.'],
  ['Microsoft.Widgets/operations/read', 'Operations', 'List operations', 'Lists the operations of Microsoft.Widgets.'],
].map(([name, resource, operation, description]) => ({ name, isDataAction: false, display: { provider: 'Microsoft Widgets', resource, operation, description }, origin: 'user,system' }));

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
  seedUsers(users);

  const issueSkipToken = (scope: string, offset: number): string => {
    const token = randomBytes(12).toString('base64url');
    skipTokens.set(token, { scope, offset });
    return token;
  };

  const graph = graphApi({ users, control, skipTokens, issueSkipToken, origin: () => origin, tokenSecret: options.tokenSecret });

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

  // ---- Azure Resource Manager ----

  function arm(request: IncomingMessage, response: ServerResponse, url: URL, record: AzureRequest): void {
    const requestId = randomUUID();
    const headers: Record<string, string> = {
      'x-ms-request-id': requestId,
      'x-ms-correlation-request-id': String(request.headers['x-ms-correlation-request-id'] ?? requestId),
    };
    const send = (status: number, body?: unknown, more: Record<string, string> = {}): void => sendJson(response, status, body, { ...headers, ...more });
    const fail = (status: number, code: string, message: string, more: Record<string, string> = {}): void => send(status, { error: { code, message } }, more);

    const tokenId = authorize(options.tokenSecret, request, response, ARM_AUDIENCES, false, headers);
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
        if (!existing) return notFound();
        // Widgets_GetSummary, a path of the document's x-ms-paths: the same path told apart by its query.
        if (url.searchParams.get('view') === 'summary') {
          const requestId = record.headers['x-ms-client-request-id'];
          return send(200, { name: existing.name, color: existing.properties.color, size: existing.properties.size, ...(typeof requestId === 'string' && { requestId }) });
        }
        return send(200, existing);
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
