/**
 * The test authorization server (test/support/authorization-server.ts) against which the generated MCP server
 * is tested as an OAuth resource server: discovery, JWT access tokens for each resource by client credentials,
 * by authorization code with PKCE (headless login; also driven by the MCP SDK's client after dynamic client
 * registration) and by token exchange, and the tokens a resource server must refuse.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { discoverAuthorizationServerMetadata, exchangeAuthorization, refreshAuthorization, registerClient, startAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { ACCESS_TOKEN_TYPE, startAuthorizationServer, TOKEN_EXCHANGE_GRANT, type AuthorizationServer } from './support/authorization-server.js';

const MCP = 'http://127.0.0.1:5000/mcp';
const API = 'http://127.0.0.1:5001/api/v3';
const SHORT_LIVED = 'http://127.0.0.1:5002/short';

let server: AuthorizationServer;
let jwks: ReturnType<typeof createRemoteJWKSet>;

before(async () => {
  server = await startAuthorizationServer({
    resources: [
      { url: MCP, scopes: ['mcp:tools', 'mcp:admin'] },
      { url: API, scopes: ['pets:read', 'pets:write'] },
      { url: SHORT_LIVED, scopes: ['short'], accessTokenTtl: 1 },
    ],
    clients: [{ clientId: 'mcp-server' }, { clientId: 'form-client', authMethod: 'client_secret_post' }],
  });
  jwks = createRemoteJWKSet(new URL(server.jwksUri));
});

after(() => server.stop());

/** The claims of `token` once it verifies as a JWT access token of the server for `audience`. */
async function verify(token: string, audience: string, currentDate?: Date): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, jwks, { issuer: server.issuer, audience, typ: 'at+jwt', algorithms: ['RS256'], ...(currentDate ? { currentDate } : {}) });
  return payload;
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  return (await response.json()) as Record<string, unknown>;
}

test('discovery: OpenID configuration and RFC 8414 metadata (the same document), and a JWKS of public keys', async () => {
  const openid = await getJson(`${server.issuer}/.well-known/openid-configuration`);
  const oauth = await getJson(`${server.issuer}/.well-known/oauth-authorization-server`);
  assert.deepEqual(oauth, openid);
  assert.equal(openid.issuer, server.issuer);
  assert.match(server.issuer, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(openid.token_endpoint, server.tokenEndpoint);
  assert.equal(openid.authorization_endpoint, server.authorizationEndpoint);
  assert.equal(openid.jwks_uri, server.jwksUri);
  assert.equal(openid.registration_endpoint, server.registrationEndpoint);
  assert.deepEqual(openid.code_challenge_methods_supported, ['S256']);
  for (const grant of ['authorization_code', 'client_credentials', 'refresh_token', TOKEN_EXCHANGE_GRANT]) {
    assert.ok((openid.grant_types_supported as string[]).includes(grant), grant);
  }
  for (const method of ['none', 'client_secret_basic', 'client_secret_post']) {
    assert.ok((openid.token_endpoint_auth_methods_supported as string[]).includes(method), method);
  }
  const { keys } = (await getJson(server.jwksUri)) as { keys: Record<string, unknown>[] };
  assert.equal(keys.length, 1);
  assert.equal(keys[0]?.kid, server.publicJwk.kid);
  assert.equal(keys[0]?.d, undefined, 'no private key material');
});

test('client credentials: a JWT for the resource, signed by the JWKS, scope limited to the resource', async () => {
  const token = await server.clientCredentialsToken({ resource: MCP, scope: 'mcp:tools pets:read' });
  assert.deepEqual(decodeProtectedHeader(token), { alg: 'RS256', typ: 'at+jwt', kid: server.publicJwk.kid });
  const claims = await verify(token, MCP);
  assert.equal(claims.iss, server.issuer);
  assert.equal(claims.aud, MCP);
  assert.equal(claims.sub, 'mcp-server');
  assert.equal(claims.client_id, 'mcp-server');
  assert.equal(claims.scope, 'mcp:tools', 'the API scope is not the MCP resource scope');
  assert.ok(typeof claims.exp === 'number' && typeof claims.iat === 'number' && claims.exp - claims.iat === 300);

  const api = await verify(await server.clientCredentialsToken({ resource: API, scope: 'pets:read pets:write', clientId: 'form-client' }), API);
  assert.deepEqual([api.aud, api.sub, api.scope], [API, 'form-client', 'pets:read pets:write'], 'client_secret_post');
  assert.equal((await verify(await server.clientCredentialsToken({ resource: MCP }), MCP)).scope, 'mcp:tools mcp:admin', 'by default, every scope of the resource');

  const unknown = await server.tokenRequest({ grant_type: 'client_credentials', resource: 'https://elsewhere.example/' });
  assert.deepEqual([unknown.status, unknown.body.error], [400, 'invalid_target']);
  const wrongSecret = await server.tokenRequest({ grant_type: 'client_credentials', resource: MCP }, { clientId: 'mcp-server', clientSecret: 'wrong', authMethod: 'client_secret_basic' });
  assert.deepEqual([wrongSecret.status, wrongSecret.body.error], [401, 'invalid_client']);
});

test('authorization code with PKCE, logged in headlessly: a token for the user', async () => {
  const tokens = await server.authorizationCodeToken({ resource: MCP, scope: 'mcp:tools', user: 'alice' });
  const claims = await verify(tokens.accessToken, MCP);
  assert.deepEqual([claims.sub, claims.client_id, claims.scope, claims.aud], ['alice', server.publicClient.clientId, 'mcp:tools', MCP]);
  assert.equal(tokens.scope, 'mcp:tools');
  assert.ok(tokens.refreshToken, 'a refresh token for the public client');

  const otherPort = await server.authorizationCodeToken({ resource: MCP, user: 'carol', redirectUri: 'http://127.0.0.1:49152/callback' });
  const carol = await verify(otherPort.accessToken, MCP);
  assert.equal(carol.sub, 'carol', 'a loopback redirect URI may use any port');
  assert.equal(carol.scope, 'mcp:tools mcp:admin', 'no scope asked for: every scope of the resource');

  const withoutPkce = new URL(server.authorizationEndpoint);
  const query = { response_type: 'code', client_id: server.publicClient.clientId, redirect_uri: server.publicClient.redirectUri, resource: MCP, state: 'x' };
  for (const [name, value] of Object.entries(query)) withoutPkce.searchParams.set(name, value);
  const refused = await server.completeAuthorization(withoutPkce, 'alice');
  assert.equal(refused.searchParams.get('error'), 'invalid_request', 'PKCE is required');
});

test("the MCP SDK's client: discovery, dynamic registration, authorization, code exchange and refresh", async () => {
  const metadata = await discoverAuthorizationServerMetadata(server.issuer);
  assert.ok(metadata, 'metadata discovered');
  const redirectUrl = 'http://127.0.0.1:38111/oauth/callback';
  const clientInformation = await registerClient(server.issuer, {
    metadata,
    clientMetadata: { client_name: 'MCP test client', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
  });
  assert.ok(clientInformation.client_id, 'registered');
  const resource = new URL(MCP);
  const { authorizationUrl, codeVerifier } = await startAuthorization(server.issuer, { metadata, clientInformation, redirectUrl, scope: 'mcp:tools mcp:admin', state: 'sdk-state', resource });
  const callback = await server.completeAuthorization(authorizationUrl, 'bob');
  assert.equal(`${callback.origin}${callback.pathname}`, redirectUrl);
  assert.equal(callback.searchParams.get('state'), 'sdk-state');
  const authorizationCode = callback.searchParams.get('code');
  assert.ok(authorizationCode, callback.href);

  const tokens = await exchangeAuthorization(server.issuer, { metadata, clientInformation, authorizationCode, codeVerifier, redirectUri: redirectUrl, resource });
  const claims = await verify(tokens.access_token, MCP);
  assert.deepEqual([claims.sub, claims.client_id, claims.scope], ['bob', clientInformation.client_id, 'mcp:tools mcp:admin']);
  assert.ok(tokens.refresh_token);
  const refreshed = await refreshAuthorization(server.issuer, { metadata, clientInformation, refreshToken: tokens.refresh_token, resource });
  assert.equal((await verify(refreshed.access_token, MCP)).sub, 'bob');
});

test('token exchange: a token for the MCP server becomes one for the API, same subject; recorded', async () => {
  const { accessToken: userToken } = await server.authorizationCodeToken({ resource: MCP, scope: 'mcp:tools', user: 'dave' });
  const before = server.exchanges.length;
  const exchanged = await server.exchangeToken({ subjectToken: userToken, resource: API, scope: 'pets:read' });
  const claims = await verify(exchanged, API);
  assert.deepEqual([claims.sub, claims.aud, claims.scope, claims.client_id], ['dave', API, 'pets:read', 'mcp-server']);
  assert.deepEqual(server.exchanges.slice(before), [{ clientId: 'mcp-server', subject: 'dave', subjectAudience: [MCP], resource: API, scope: 'pets:read' }]);

  const byAudience = await server.tokenRequest({ grant_type: TOKEN_EXCHANGE_GRANT, subject_token: userToken, subject_token_type: ACCESS_TOKEN_TYPE, audience: API });
  assert.equal(byAudience.status, 200, JSON.stringify(byAudience.body));
  assert.equal(byAudience.body.issued_token_type, ACCESS_TOKEN_TYPE);
  assert.equal(byAudience.body.token_type, 'Bearer');
  const all = await verify(String(byAudience.body.access_token), API);
  assert.deepEqual([all.sub, all.scope], ['dave', 'pets:read pets:write'], 'no scope asked for: all of the resource');
});

test('token exchange refuses subject tokens that are not valid MCP tokens, and unknown resources', async () => {
  const before = server.exchanges.length;
  const exchange = (subjectToken: string, resource = API) =>
    server.tokenRequest({ grant_type: TOKEN_EXCHANGE_GRANT, subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, resource });
  const refused = await server.refusedTokens(MCP, 'mcp:tools');
  const apiToken = await server.clientCredentialsToken({ resource: API });
  for (const [reason, token] of Object.entries({ ...refused, apiToken, garbage: 'not-a-token' })) {
    const response = await exchange(token);
    assert.deepEqual([response.status, response.body.error], [400, 'invalid_grant'], reason);
  }
  const valid = await server.clientCredentialsToken({ resource: MCP });
  const unknown = await exchange(valid, 'https://elsewhere.example/');
  assert.deepEqual([unknown.status, unknown.body.error], [400, 'invalid_target']);
  const missing = await server.tokenRequest({ grant_type: TOKEN_EXCHANGE_GRANT, resource: API });
  assert.deepEqual([missing.status, missing.body.error], [400, 'invalid_request']);
  const publicClient = await server.tokenRequest({ grant_type: TOKEN_EXCHANGE_GRANT, subject_token: valid, subject_token_type: ACCESS_TOKEN_TYPE, resource: API }, server.publicClient);
  assert.equal(publicClient.status, 400, 'the public client may not exchange tokens');
  assert.equal(server.exchanges.length, before, 'nothing was exchanged');
});

test('an expired token is really expired: provider-issued, signed, and past its exp', async () => {
  const { expired } = await server.refusedTokens(MCP);
  await assert.rejects(verify(expired, MCP), { code: 'ERR_JWT_EXPIRED', claim: 'exp' });
  const { exp } = decodeJwt(expired);
  assert.ok(typeof exp === 'number' && exp < Date.now() / 1000 - 3000, 'expired an hour ago');
  const claims = await verify(expired, MCP, new Date((exp - 60) * 1000));
  assert.equal(claims.iss, server.issuer, 'the signature and claims are genuine: valid a minute before exp');

  const shortLived = await server.clientCredentialsToken({ resource: SHORT_LIVED });
  assert.equal((await verify(shortLived, SHORT_LIVED)).aud, SHORT_LIVED, 'valid when issued');
  await sleep(2100);
  await assert.rejects(verify(shortLived, SHORT_LIVED), { code: 'ERR_JWT_EXPIRED' }, 'a one-second token, waited out');
});

test('forged, unsigned, foreign-issuer and other-audience tokens fail verification', async () => {
  const refused = await server.refusedTokens(MCP, 'mcp:tools');
  await assert.rejects(verify(refused.forgedSignature, MCP), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  assert.equal(decodeProtectedHeader(refused.forgedSignature).kid, server.publicJwk.kid, 'same kid as the real key');
  await assert.rejects(verify(refused.algNone, MCP), (error: Error & { code?: string }) => ['ERR_JOSE_ALG_NOT_ALLOWED', 'ERR_JWS_INVALID'].includes(error.code ?? ''));
  assert.equal(decodeProtectedHeader(refused.algNone).alg, 'none');
  await assert.rejects(verify(refused.wrongIssuer, MCP), { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'iss' });
  await assert.rejects(verify(refused.wrongAudience, MCP), { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' });
  for (const token of [refused.forgedSignature, refused.algNone, refused.wrongIssuer]) {
    assert.deepEqual({ ...decodeJwt(token), iss: server.issuer }, { ...decodeJwt(refused.wrongIssuer), iss: server.issuer }, 'the claims of a valid token');
  }
});
