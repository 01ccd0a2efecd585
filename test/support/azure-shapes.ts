/**
 * The shapes, constants and plumbing the Azure stand-ins (test/support/azure-api.ts, azure-graph.ts) share: what
 * the tests read of their state, how a request is authorized, how an answer is written.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { verifyToken } from './fake-az.js';

/** test/fixtures/azure/widgets.json (this file is dist/test/support/azure-shapes.js). */
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

export const GRAPH_JSON = 'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8';
export const lower = (text: string): string => text.toLowerCase();
export const has = (set: Set<string>, name: string): boolean => set.has('*') || [...set].some((entry) => lower(entry) === lower(name));

/** The token's id when the request carries a valid token for `audiences`; else answers 401 and returns undefined. */
export function authorize(tokenSecret: string, request: IncomingMessage, response: ServerResponse, audiences: Set<string>, asGraph: boolean, extra: Record<string, string>): string | undefined {
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
    const check = verifyToken(tokenSecret, token);
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

export function graphError(request: IncomingMessage, code: string, message: string): unknown {
  return {
    error: {
      code, message,
      innerError: { date: new Date().toISOString().replace(/\.\d+Z$/, ''), 'request-id': randomUUID(), 'client-request-id': String(request.headers['client-request-id'] ?? randomUUID()) },
    },
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, contentType = 'application/json; charset=utf-8'): void {
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

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const COLORS = ['red', 'green', 'blue'];

/** Why `properties` do not fit the Widget schema (color and size), or undefined. */
export function checkProperties(properties: Record<string, unknown>): string | undefined {
  const { color, size } = properties;
  if (color !== undefined && (typeof color !== 'string' || !COLORS.includes(color))) return `The value '${String(color)}' of property 'properties.color' is invalid: one of ${COLORS.join(', ')}.`;
  if (size !== undefined && (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 10)) return `The value '${String(size)}' of property 'properties.size' is invalid: an integer from 1 to 10.`;
  return undefined;
}
