/**
 * A real OAuth 2.1 authorization server for tests (oidc-provider, on 127.0.0.1, a free port): what the
 * generated HTTP MCP server, as a resource server, trusts. It issues RS256-signed JWT access tokens (RFC 9068)
 * whose `aud` is the resource asked for (RFC 8707 resource indicators) and whose `scope` is limited to that
 * resource's scopes, by client credentials (confidential clients), by authorization code with PKCE (a public
 * client, or one registered dynamically, RFC 7591; the user logs in headlessly) and by token exchange
 * (RFC 8693: an MCP server trades the token it was given for one for the upstream API). Discovery is served
 * at `/.well-known/openid-configuration` and, the same document, at `/.well-known/oauth-authorization-server`
 * (RFC 8414).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Configuration, ResourceServer } from 'oidc-provider';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { accessTokenOf, followAuthorization, INTERACTION_PATH, pkcePair, tokenRequest, type ClientAuthentication, type TokenEndpointResponse } from './oauth-client.js';
import { interact, loadOidcProvider, memoryAdapter } from './oidc-provider-parts.js';
import { forgedTokens, type RefusedTokens } from './refused-tokens.js';
import { ACCESS_TOKEN_TYPE, registerTokenExchange, TOKEN_EXCHANGE_GRANT, type TokenExchangeRecord } from './token-exchange-grant.js';

export type { RefusedTokens } from './refused-tokens.js';
export type { TokenExchangeRecord } from './token-exchange-grant.js';
export type { ClientAuthentication, TokenEndpointResponse } from './oauth-client.js';
export { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from './token-exchange-grant.js';

export interface ResourceOptions {
  /** The resource indicator, and the `aud` of its tokens: the MCP server's URL, an upstream API's base URL. */
  readonly url: string;
  /** The scopes the resource defines; a token for it carries no others. */
  readonly scopes: readonly string[];
  /** Lifetime of its access tokens in seconds (default: the server's). */
  readonly accessTokenTtl?: number;
}

export interface AuthorizationServerOptions {
  /** The resources tokens can be asked for; the first is the default when a request names none. */
  readonly resources: readonly ResourceOptions[];
  /** Lifetime of access tokens in seconds (default 300). */
  readonly accessTokenTtl?: number;
  /** Confidential clients (client credentials and token exchange); default one, `mcp-server`, with HTTP Basic. */
  readonly clients?: readonly { clientId: string; clientSecret?: string; authMethod?: 'client_secret_basic' | 'client_secret_post' }[];
  /** The public client of the authorization code flow (default `mcp-client`, redirect URI `http://127.0.0.1/callback`,
   * any port: a native client's loopback redirect, RFC 8252). */
  readonly publicClient?: { clientId?: string; redirectUri?: string };
  /** The audiences a subject token may have in a token exchange (default: the first resource's URL). */
  readonly tokenExchange?: { subjectAudiences?: readonly string[] };
}

export interface TokenOptions {
  /** The resource indicator. */
  readonly resource: string;
  /** Space-separated scopes; a token carries those its resource defines (default: every scope of the resource). */
  readonly scope?: string;
  /** The client (default: the first confidential client, or the public client for the authorization code flow). */
  readonly clientId?: string;
}

export interface AuthorizationCodeTokens {
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
  readonly scope: string | undefined;
  readonly expiresIn: number;
}

export interface AuthorizationServer {
  /** `http://127.0.0.1:<port>`: the `iss` of its tokens. */
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly jwksUri: string;
  readonly registrationEndpoint: string;
  /** The public key its tokens verify with (as served at jwksUri). */
  readonly publicJwk: JWK;
  /** The confidential clients, with their secrets; the first is the default. */
  readonly clients: readonly ClientAuthentication[];
  /** The public client of the authorization code flow. */
  readonly publicClient: ClientAuthentication & { readonly redirectUri: string };
  /** The token exchanges granted so far, oldest first. */
  readonly exchanges: readonly TokenExchangeRecord[];
  /** A client credentials access token (a JWT with aud = resource, sub = the client id). */
  clientCredentialsToken(options: TokenOptions): Promise<string>;
  /** Authorization code + PKCE for the public client (or a registered one), logged in headlessly as `user` (default `alice`). */
  authorizationCodeToken(options: TokenOptions & { user?: string; redirectUri?: string }): Promise<AuthorizationCodeTokens>;
  /** Follows an authorization URL (as the MCP SDK's client builds it) as `user`; the redirect URI with `code` and `state` (or `error`). */
  completeAuthorization(authorizationUrl: URL, user: string): Promise<URL>;
  /** RFC 8693: trades `subjectToken` for a token for `resource`, as a confidential client (default the first). */
  exchangeToken(options: TokenOptions & { subjectToken: string }): Promise<string>;
  /** Any token endpoint request, as `client` (default the first confidential client); the raw answer. */
  tokenRequest(params: Record<string, string | string[]>, client?: ClientAuthentication): Promise<TokenEndpointResponse>;
  /** Tokens for `resource` (with `scope`, default all of its scopes) a resource server must refuse: another audience, expired, forged, alg none, another issuer. */
  refusedTokens(resource: string, scope?: string): Promise<RefusedTokens>;
  stop(): Promise<void>;
}

/** The client whose tokens the server issues already expired (for `refusedTokens`). */
const EXPIRED_TOKEN_CLIENT = 'expired-token-client';
/** A resource that belongs to none of the tests' servers (for tokens with the wrong audience). */
const UNRELATED_RESOURCE = 'https://unrelated.example/api';

export async function startAuthorizationServer(options: AuthorizationServerOptions): Promise<AuthorizationServer> {
  const [firstResource] = options.resources;
  if (!firstResource) throw new Error('an authorization server needs at least one resource');
  const { default: Provider, errors } = await loadOidcProvider();

  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(8).toString('hex');
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };

  const defaultTtl = options.accessTokenTtl ?? 300;
  const resources: ResourceOptions[] = [...options.resources, { url: UNRELATED_RESOURCE, scopes: ['unrelated'] }];
  const normalize = (url: string): string => URL.parse(url)?.href ?? url;
  const resourceServer = (indicator: string): ResourceServer | undefined => {
    const resource = resources.find((candidate) => normalize(candidate.url) === normalize(indicator));
    if (!resource) return undefined;
    return {
      scope: resource.scopes.join(' '),
      audience: resource.url,
      accessTokenFormat: 'jwt',
      accessTokenTTL: resource.accessTokenTtl ?? defaultTtl,
      jwt: { sign: { alg: 'RS256' } },
    };
  };

  const clients: ClientAuthentication[] = (options.clients ?? [{ clientId: 'mcp-server' }]).map((client) => ({
    clientId: client.clientId,
    clientSecret: client.clientSecret ?? randomBytes(24).toString('base64url'),
    authMethod: client.authMethod ?? 'client_secret_basic',
  }));
  const expiredTokenClient: ClientAuthentication = { clientId: EXPIRED_TOKEN_CLIENT, clientSecret: randomBytes(24).toString('base64url'), authMethod: 'client_secret_basic' };
  const publicClient = {
    clientId: options.publicClient?.clientId ?? 'mcp-client',
    authMethod: 'none' as const,
    redirectUri: options.publicClient?.redirectUri ?? 'http://127.0.0.1/callback',
  };
  const exchanges: TokenExchangeRecord[] = [];

  const configuration: Configuration = {
    adapter: memoryAdapter(),
    jwks: { keys: [privateJwk as NonNullable<Configuration['jwks']>['keys'][number]] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    clients: [
      ...[...clients, expiredTokenClient].map((client) => ({
        client_id: client.clientId,
        client_secret: client.clientSecret,
        token_endpoint_auth_method: client.authMethod,
        grant_types: ['client_credentials', TOKEN_EXCHANGE_GRANT],
        response_types: [],
        redirect_uris: [],
      })),
      {
        client_id: publicClient.clientId,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [publicClient.redirectUri],
      },
    ],
    // Every resource's scopes are the server's too: clients that register with them (the MCP SDK's does) are accepted.
    scopes: ['openid', 'offline_access', ...new Set(resources.flatMap((resource) => resource.scopes))],
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, name: sub }) }),
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? firstResource.url,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          const info = resourceServer(indicator);
          if (!info) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
          return info;
        },
      },
    },
    formats: {
      customizers: {
        jwt: (_ctx, token, jwt) => {
          if (token.clientId !== EXPIRED_TOKEN_CLIENT) return;
          jwt.payload.iat = Math.floor(Date.now() / 1000) - 7200;
          jwt.payload.exp = Math.floor(Date.now() / 1000) - 3600;
        },
      },
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    clientBasedCORS: () => true,
    renderError: (ctx, out) => {
      ctx.type = 'text/plain';
      ctx.body = `${out.error}: ${out.error_description ?? ''}`;
    },
    ttl: {
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? defaultTtl,
      ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? defaultTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 86400,
      Interaction: 600,
      Session: 3600,
      Grant: 86400,
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.on('server_error', (_ctx, error) => console.error('authorization server error:', error));
  // RFC 6749 §3.3: a request without scope gets a default, here every scope of the resource (oidc-provider would
  // deny it, but an MCP client omits scope when neither the resource's metadata nor its challenge names one).
  const authorizationPath = new URL(provider.urlFor('authorization')).pathname;
  provider.use(async (ctx, next) => {
    if (ctx.path === authorizationPath && ctx.method === 'GET' && ctx.query.scope === undefined) {
      const { resource } = ctx.query;
      const info = resourceServer((Array.isArray(resource) ? resource[0] : resource) ?? firstResource.url);
      if (info && info.scope) ctx.query = { ...ctx.query, scope: info.scope };
    }
    await next();
  });
  registerTokenExchange(provider, {
    issuer,
    verificationKey: publicKey,
    subjectAudiences: options.tokenExchange?.subjectAudiences ?? [firstResource.url],
    resourceServer,
    exchanges,
    errors,
  });

  const handle = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && req.url?.startsWith(INTERACTION_PATH)) {
      interact(provider, req, res).catch((error: unknown) => {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`interaction failed: ${(error as Error).message}`);
      });
      return;
    }
    void handle(req, res);
  });

  const confidential = (clientId: string | undefined): ClientAuthentication => {
    const client = clientId === undefined ? clients[0] : [...clients, expiredTokenClient].find((candidate) => candidate.clientId === clientId);
    if (!client) throw new Error(`no confidential client ${clientId}`);
    return client;
  };
  const tokenEndpoint = provider.urlFor('token');
  const request = (params: Record<string, string | string[]>, client: ClientAuthentication = confidential(undefined)) => tokenRequest(tokenEndpoint, params, client);
  const clientCredentialsToken = async ({ resource, scope = resourceServer(resource)?.scope, clientId }: TokenOptions): Promise<string> =>
    accessTokenOf(await request({ grant_type: 'client_credentials', resource, ...(scope ? { scope } : {}) }, confidential(clientId)), 'client credentials');
  const completeAuthorization = (authorizationUrl: URL, user: string) => followAuthorization(authorizationUrl, user);

  return {
    issuer,
    authorizationEndpoint: provider.urlFor('authorization'),
    tokenEndpoint,
    jwksUri: provider.urlFor('jwks'),
    registrationEndpoint: provider.urlFor('registration'),
    publicJwk,
    clients,
    publicClient,
    exchanges,
    clientCredentialsToken,
    completeAuthorization,
    tokenRequest: request,
    async authorizationCodeToken({ resource, scope, clientId, user = 'alice', redirectUri = publicClient.redirectUri }) {
      const client = { clientId: clientId ?? publicClient.clientId, authMethod: 'none' as const };
      const { verifier, challenge } = pkcePair();
      const state = randomBytes(16).toString('base64url');
      const authorizationUrl = new URL(provider.urlFor('authorization'));
      const query = { response_type: 'code', client_id: client.clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state, resource, ...(scope ? { scope } : {}) };
      for (const [name, value] of Object.entries(query)) authorizationUrl.searchParams.set(name, value);
      const callback = await completeAuthorization(authorizationUrl, user);
      const code = callback.searchParams.get('code');
      if (!code || callback.searchParams.get('state') !== state) throw new Error(`authorization failed: ${callback.href}`);
      const response = await request({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, resource }, client);
      const refreshToken = response.body.refresh_token;
      return {
        accessToken: accessTokenOf(response, 'authorization code'),
        refreshToken: typeof refreshToken === 'string' ? refreshToken : undefined,
        scope: typeof response.body.scope === 'string' ? response.body.scope : undefined,
        expiresIn: Number(response.body.expires_in),
      };
    },
    async exchangeToken({ subjectToken, resource, scope, clientId }) {
      const params = { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, resource, ...(scope ? { scope } : {}) };
      return accessTokenOf(await request(params, confidential(clientId)), 'token exchange');
    },
    async refusedTokens(resource, scope) {
      const valid = await clientCredentialsToken({ resource, scope });
      return {
        wrongAudience: await clientCredentialsToken({ resource: UNRELATED_RESOURCE }),
        expired: await clientCredentialsToken({ resource, scope, clientId: EXPIRED_TOKEN_CLIENT }),
        ...(await forgedTokens(valid, privateKey)),
      };
    },
    async stop() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
