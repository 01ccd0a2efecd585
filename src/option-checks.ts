/**
 * The checks of the host's options: each a one-line usage error naming the option, before anything is written.
 */
import { GeneratorError } from './errors.js';
import type { ApiModel } from './model/types.js';
import { isValidNamespace } from './names/identifiers.js';
import { AUTH_MODES, TOOL_MODES, TRANSPORTS, type AuthMode, type ToolMode, type Transport } from './emit/shared/host-options.js';
import { CONFIRM_POLICIES, type ConfirmPolicy } from './model/confirm.js';

/** The host options these checks read. */
export interface HostChoices {
  readonly api?: { readonly model: ApiModel };
  readonly transport?: Transport;
  readonly forwardAuth?: string;
  readonly auth?: string;
  readonly upstreamTokenExchange?: boolean;
  readonly redis?: boolean;
  readonly credential?: string;
}

/** `--redis` (the deployment files run Redis for the replicas' shared state): an HTTP server's only. */
export function checkRedis(options: HostChoices): boolean {
  if (options.redis !== true) return false;
  if ((options.transport ?? 'stdio') !== 'http') throw new GeneratorError('usage', '--redis needs --transport http: a stdio server is one process, with no replicas to share state');
  return true;
}

/** Whether `--credential azure` asks for Azure.Identity: for an API with an Azure AD scheme (`settings`, the default: no). */
export function checkCredential(options: HostChoices): boolean {
  const credential = options.credential ?? 'settings';
  if (credential !== 'settings' && credential !== 'azure') throw new GeneratorError('usage', `--credential ${JSON.stringify(credential)} is not one of settings, azure`);
  if (credential === 'settings') return false;
  if (options.api !== undefined && !options.api.model.securitySchemes.some((scheme) => scheme.kind === 'accessToken' && scheme.azure)) {
    throw new GeneratorError('usage', '--credential azure: the API declares no Azure AD (login.microsoftonline.com) OAuth2 scheme to get tokens for');
  }
  return true;
}

export function checkServerName(serverName: string): void {
  if (serverName.trim() === '') throw new GeneratorError('usage', '--server-name must not be empty');
  if (/[\u0000-\u001f"\\]/.test(serverName)) throw new GeneratorError('usage', '--server-name must not contain quotes, backslashes or control characters');
}

export function checkConfirm(confirm: string | undefined): ConfirmPolicy | undefined {
  if (confirm === undefined) return undefined;
  if (!(CONFIRM_POLICIES as readonly string[]).includes(confirm)) throw new GeneratorError('usage', `--confirm ${JSON.stringify(confirm)} is not one of ${CONFIRM_POLICIES.join(', ')}`);
  return confirm as ConfirmPolicy;
}

export function checkMode(mode: string | undefined): ToolMode {
  if (mode === undefined) return 'operations';
  if (!(TOOL_MODES as readonly string[]).includes(mode)) throw new GeneratorError('usage', `--mode ${JSON.stringify(mode)} is not one of ${TOOL_MODES.join(', ')}`);
  return mode as ToolMode;
}

/** The transport, and the header credentials are forwarded from: only over HTTP, a header name, for an API that takes credentials. */
export function hostTransport(options: HostChoices): { transport: Transport; forwardAuth?: string; auth?: AuthMode; upstreamTokenExchange?: boolean } {
  const transport = options.transport ?? 'stdio';
  if (!(TRANSPORTS as readonly string[]).includes(transport)) throw new GeneratorError('usage', `--transport ${JSON.stringify(transport)} is not one of ${TRANSPORTS.join(', ')}`);
  const auth = checkAuth(options.auth, transport);
  if (options.upstreamTokenExchange === true) {
    if (auth === undefined) throw new GeneratorError('usage', '--upstream-token-exchange needs --auth oauth: it exchanges the caller\'s MCP access token');
    if (options.forwardAuth !== undefined) throw new GeneratorError('usage', '--upstream-token-exchange and --forward-auth both give each call\'s API credential: choose one');
    if ((options.api?.model.securitySchemes ?? []).length === 0) throw new GeneratorError('usage', '--upstream-token-exchange: the API declares no security scheme to send the exchanged token for (give --openapi-url for host)');
    return { transport, auth: auth as AuthMode, upstreamTokenExchange: true };
  }
  const header = options.forwardAuth;
  if (header === undefined) return { transport, ...(auth !== undefined && { auth }) };
  if (auth !== undefined && header.toLowerCase() === 'authorization') throw new GeneratorError('usage', '--forward-auth Authorization with --auth oauth: that header carries the caller\'s MCP access token, which is never sent to the API; forward another header');
  if (transport !== 'http') throw new GeneratorError('usage', '--forward-auth needs --transport http: a stdio server has one user, whose credentials are its settings');
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) throw new GeneratorError('usage', `--forward-auth ${JSON.stringify(header)} is not an HTTP header name`);
  if ((options.api?.model.securitySchemes ?? []).length === 0) throw new GeneratorError('usage', '--forward-auth: the API declares no security scheme whose credential could be forwarded (give --openapi-url for host)');
  return { transport, forwardAuth: header, ...(auth !== undefined && { auth }) };
}

/** Resources are read without the per-operation OAuth scope check tools/call has: not with --auth oauth. */
export function checkResources(options: HostChoices): true {
  if (options.auth === 'oauth') throw new GeneratorError('usage', `--resources with --auth ${options.auth}: resources/read is not checked against the OAuth scopes of the operations, as tools/call is; leave out --resources`);
  return true;
}

export function checkAuth(auth: string | undefined, transport: Transport): AuthMode | undefined {
  if (auth === undefined) return undefined;
  if (!(AUTH_MODES as readonly string[]).includes(auth)) throw new GeneratorError('usage', `--auth ${JSON.stringify(auth)} is not one of ${AUTH_MODES.join(', ')}`);
  if (transport !== 'http') throw new GeneratorError('usage', `--auth ${auth} needs --transport http: a stdio server is started by its one user's own client`);
  return auth as AuthMode;
}

export function checkNamespace(namespace: string, option: string): void {
  if (!isValidNamespace(namespace)) throw new GeneratorError('usage', `${option} ${JSON.stringify(namespace)} is not a valid C# namespace (dotted identifiers such as Petstore.Client)`);
}
