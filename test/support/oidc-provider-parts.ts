/**
 * What oidc-provider leaves to a deployment, for the test authorization server: loading the module quietly,
 * a store for its models, and the interaction endpoint where a headless user agent logs in and consents.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Adapter, AdapterPayload, Provider } from 'oidc-provider';

/** oidc-provider warns once, on import, that it supports Node 22 and later; it works on Node 20 (this project's floor). */
export async function loadOidcProvider(): Promise<typeof import('oidc-provider')> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('Unsupported runtime')) warn(...args);
  };
  try {
    return await import('oidc-provider');
  } finally {
    console.warn = warn;
  }
}

/** An in-memory store for the provider's models (its own one warns that it is for development only). */
export function memoryAdapter(): (model: string) => Adapter {
  const entries = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) entries.delete(key);
    return entry && entry.expiresAt > Date.now() ? entry.payload : undefined;
  };
  const findBy = (model: string, match: (payload: AdapterPayload) => boolean): AdapterPayload | undefined =>
    [...entries.keys()].filter((key) => key.startsWith(`${model}:`)).map(live).find((payload) => payload !== undefined && match(payload));
  return (model) => ({
    upsert: async (id, payload, expiresIn) => void entries.set(`${model}:${id}`, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity }),
    find: async (id) => live(`${model}:${id}`),
    findByUid: async (uid) => findBy(model, (payload) => payload.uid === uid),
    findByUserCode: async (userCode) => findBy(model, (payload) => payload.userCode === userCode),
    consume: async (id) => {
      const payload = live(`${model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    destroy: async (id) => void entries.delete(`${model}:${id}`),
    revokeByGrantId: async (grantId) => {
      for (const [key, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(key);
    },
  });
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The interaction endpoint, for a headless user agent: POST `user=<name>` logs in; a POST at the consent prompt grants all asked for. */
export async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    const user = form.get('user');
    if (!user) throw new Error('no user to log in as');
    return provider.interactionFinished(req, res, { login: { accountId: user } }, { mergeWithLastSubmission: false });
  }
  if (prompt.name !== 'consent' || !session) throw new Error(`unexpected prompt ${prompt.name}`);
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: session.accountId, clientId: String(params.client_id) });
  if (!grant) throw new Error(`grant ${details.grantId} not found`);
  const missing = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: details.grantId ? {} : { grantId } }, { mergeWithLastSubmission: true });
}
