/**
 * RFC 8693 token exchange for the test authorization server (oidc-provider has none built in; it lets a
 * deployment register the grant type). A confidential client presents an access token this server issued for
 * one of the accepted subject audiences (the MCP server's URL) and gets a JWT access token for one resource
 * (`resource` or `audience`: the upstream API), with the same `sub`. Each exchange is recorded for the tests.
 */
import type { errors as providerErrors, Provider, ResourceServer } from 'oidc-provider';
import { jwtVerify, type JWTPayload } from 'jose';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

/** One exchange the server granted. */
export interface TokenExchangeRecord {
  /** The client that asked. */
  readonly clientId: string;
  /** `sub` of the subject token, and of the token issued. */
  readonly subject: string;
  /** `aud` of the subject token. */
  readonly subjectAudience: readonly string[];
  /** The resource the issued token is for (its `aud`). */
  readonly resource: string;
  /** The scope of the issued token. */
  readonly scope: string | undefined;
}

export interface TokenExchangeSetup {
  readonly issuer: string;
  /** The key that verifies this server's tokens. */
  readonly verificationKey: CryptoKey;
  /** Subject tokens must be for one of these audiences. */
  readonly subjectAudiences: readonly string[];
  /** The resource server a `resource`/`audience` value names; undefined for one the server does not know. */
  readonly resourceServer: (resource: string) => ResourceServer | undefined;
  /** Where granted exchanges are recorded. */
  readonly exchanges: TokenExchangeRecord[];
  /** oidc-provider's error classes (the module is loaded once, by the server). */
  readonly errors: typeof providerErrors;
}

interface TokenExchangeParameters {
  subject_token?: string;
  subject_token_type?: string;
  requested_token_type?: string;
  audience?: string | string[];
  actor_token?: string;
  actor_token_type?: string;
}

const PARAMETERS = ['audience', 'resource', 'scope', 'requested_token_type', 'subject_token', 'subject_token_type', 'actor_token', 'actor_token_type'];

const values = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** Registers the token exchange grant type on `provider` (clients need it in their `grant_types`). */
export function registerTokenExchange(provider: Provider, setup: TokenExchangeSetup): void {
  const { errors } = setup;
  provider.registerGrantType<TokenExchangeParameters>(TOKEN_EXCHANGE_GRANT, async (ctx) => {
    const { params, client } = ctx.oidc;
    if (!params.subject_token || !params.subject_token_type) throw new errors.InvalidRequest('subject_token and subject_token_type are required');
    if (params.subject_token_type !== ACCESS_TOKEN_TYPE && params.subject_token_type !== JWT_TOKEN_TYPE) {
      throw new errors.InvalidRequest(`unsupported subject_token_type ${params.subject_token_type}`);
    }
    if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
      throw new errors.InvalidRequest('only access tokens can be requested');
    }
    if (params.actor_token !== undefined) throw new errors.InvalidRequest('delegation (actor_token) is not supported');

    // RFC 8693 allows both; the same target given as resource and audience names one resource.
    const targets = [...new Set([...values(params.resource), ...values(params.audience)])];
    const [resource] = targets;
    if (resource === undefined || targets.length !== 1) throw new errors.InvalidTarget('exactly one resource or audience is required');
    const info = setup.resourceServer(resource);
    if (!info) throw new errors.InvalidTarget(`unknown resource ${resource}`);

    let subject: JWTPayload;
    try {
      ({ payload: subject } = await jwtVerify(params.subject_token, setup.verificationKey, {
        issuer: setup.issuer,
        audience: [...setup.subjectAudiences],
        typ: 'at+jwt',
        algorithms: ['RS256'],
      }));
    } catch (cause) {
      throw new errors.InvalidGrant({ detail: `subject_token: ${(cause as Error).message}`, cause });
    }
    if (typeof subject.sub !== 'string') throw new errors.InvalidGrant('subject_token has no sub');

    const offered = info.scope.split(' ').filter(Boolean);
    const requested = params.scope ? params.scope.split(' ') : offered;
    const scope = requested.filter((one) => offered.includes(one)).join(' ') || undefined;
    if (params.scope && !scope) throw new errors.InvalidScope('none of the requested scopes belongs to the resource', params.scope);

    const grant = new provider.Grant({ accountId: subject.sub, clientId: client.clientId });
    if (scope) grant.addResourceScope(resource, scope);
    const grantId = await grant.save();
    const token = new provider.AccessToken({
      client,
      accountId: subject.sub,
      grantId,
      gty: 'token_exchange',
      scope,
      resourceServer: new provider.ResourceServer(resource, info),
    });
    const accessToken = await token.save();
    setup.exchanges.push({ clientId: client.clientId, subject: subject.sub, subjectAudience: values(subject.aud), resource, scope });
    ctx.body = {
      access_token: accessToken,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: token.tokenType,
      expires_in: token.expiration,
      ...(scope ? { scope } : {}),
    };
  }, PARAMETERS, ['audience', 'resource']);
}
