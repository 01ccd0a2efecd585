/**
 * The client side of OAuth in tests, with plain fetch calls: token endpoint requests (with the client
 * authentication methods the test authorization server uses), PKCE, and a headless user agent that follows
 * an authorization request through the authorization server's redirects, keeping its cookies as a browser
 * would, and logs the user in (and consents) by posting to the interaction endpoint, so no browser is needed.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Where the test authorization server sends the user agent when it needs the user: `/interaction/<uid>`. */
export const INTERACTION_PATH = '/interaction/';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/** A client as the token endpoint sees it. */
export interface ClientAuthentication {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly authMethod: ClientAuthMethod;
}

/** A token endpoint answer: its status and its JSON body (`access_token`, … or `error`, `error_description`). */
export interface TokenEndpointResponse {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** POSTs `params` to the token endpoint, authenticating as `client` (HTTP Basic, form fields, or client_id alone). */
export async function tokenRequest(tokenEndpoint: string, params: Record<string, string | string[]>, client: ClientAuthentication): Promise<TokenEndpointResponse> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
  }
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (client.authMethod === 'client_secret_basic') {
    // RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined.
    const credentials = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret ?? '')}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  } else {
    form.set('client_id', client.clientId);
    if (client.authMethod === 'client_secret_post') form.set('client_secret', client.clientSecret ?? '');
  }
  const response = await fetch(tokenEndpoint, { method: 'POST', headers, body: form });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { error: 'not_json', error_description: text };
  }
  return { status: response.status, body };
}

/** The access token of a successful token endpoint answer; an error naming the answer otherwise. */
export function accessTokenOf(response: TokenEndpointResponse, what: string): string {
  const token = response.body.access_token;
  if (response.status !== 200 || typeof token !== 'string') {
    throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return token;
}

/** A PKCE pair (RFC 7636, S256). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

interface StoredCookie {
  readonly name: string;
  readonly value: string;
  readonly path: string;
}

/** The cookies of one user agent talking to one origin: names scoped by path, expired ones forgotten. */
export class CookieJar {
  readonly #cookies = new Map<string, StoredCookie>();

  /** Remembers the cookies `response` (to a request for `url`) sets, and forgets those it expires. */
  store(response: Response, url: URL): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = url.pathname.slice(0, Math.max(1, url.pathname.lastIndexOf('/')));
      let expired = value === '';
      for (const attribute of attributes) {
        const split = attribute.indexOf('=');
        const key = (split < 0 ? attribute : attribute.slice(0, split)).trim().toLowerCase();
        const argument = split < 0 ? '' : attribute.slice(split + 1).trim();
        if (key === 'path' && argument.startsWith('/')) path = argument;
        if (key === 'max-age' && Number(argument) <= 0) expired = true;
        if (key === 'expires' && Date.parse(argument) <= Date.now()) expired = true;
      }
      const key = `${path}\n${name}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path });
    }
  }

  /** The Cookie header for a request to `url` (RFC 6265 path matching). */
  header(url: URL): string {
    const matches = (path: string): boolean =>
      url.pathname === path || (url.pathname.startsWith(path) && (path.endsWith('/') || url.pathname[path.length] === '/'));
    return [...this.#cookies.values()]
      .filter((cookie) => matches(cookie.path))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }
}

/**
 * Follows `authorizationUrl` (an authorization request to the test authorization server) as a browser would,
 * logging in as `user` and consenting at the interaction endpoint, until the server redirects away from its
 * own origin: to the client's redirect URI, which comes back (with `code` and `state`, or `error`) unvisited.
 */
export async function followAuthorization(authorizationUrl: URL, user: string): Promise<URL> {
  const jar = new CookieJar();
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 16; hop++) {
    if (url.origin !== authorizationUrl.origin) return url;
    const interaction = url.pathname.startsWith(INTERACTION_PATH);
    const headers: Record<string, string> = { cookie: jar.header(url) };
    if (interaction) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, {
      method: interaction ? 'POST' : 'GET',
      redirect: 'manual',
      headers,
      ...(interaction ? { body: new URLSearchParams({ user }) } : {}),
    });
    jar.store(response, url);
    const location = response.headers.get('location');
    const text = await response.text();
    if (response.status < 300 || response.status > 399 || !location) {
      throw new Error(`authorization stopped at ${interaction ? 'POST' : 'GET'} ${url.pathname}: ${response.status} ${text.slice(0, 500)}`);
    }
    url = new URL(location, url);
  }
  throw new Error(`authorization did not reach the redirect URI: last at ${url.href}`);
}
