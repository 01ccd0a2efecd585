import { pointer, type Diagnostic } from '../errors.js';
import type { RefResolver } from '../load/refs.js';
import { isObject } from './schema-nodes.js';
import type { Operation, SecurityScheme } from './types.js';

/** The security schemes the generated server can send credentials for; others are reported. */
export function readSecuritySchemes(root: Record<string, unknown>, refs: RefResolver, display: string, warnings: Diagnostic[]): SecurityScheme[] {
  const declared = isObject(root.components) && isObject(root.components.securitySchemes) ? root.components.securitySchemes : {};
  const schemes: SecurityScheme[] = [];
  for (const [name, raw] of Object.entries(declared)) {
    const at = pointer('components', 'securitySchemes', name);
    const { value } = refs.follow(raw, at);
    if (!isObject(value)) continue;
    const scheme = toScheme(schemeKey(name), value);
    if (scheme) schemes.push(scheme);
    else warnings.push({ location: `${display}#${at}`, message: `security scheme ${JSON.stringify(name)} (${describe(value)}) is not supported: requests that need it will say so` });
  }
  return schemes;
}

function toScheme(name: string, node: Record<string, unknown>): SecurityScheme | undefined {
  const type = typeof node.type === 'string' ? node.type : '';
  if (type === 'apiKey' && typeof node.name === 'string' && ['header', 'query', 'cookie'].includes(String(node.in))) {
    return { kind: 'apiKey', name, in: node.in as 'header' | 'query' | 'cookie', parameter: node.name };
  }
  if (type === 'http') {
    const scheme = String(node.scheme ?? '').toLowerCase();
    if (scheme === 'bearer') return { kind: 'bearer', name };
    if (scheme === 'basic') return { kind: 'basic', name };
    return undefined;
  }
  if (type === 'oauth2') {
    const flows = isObject(node.flows) ? node.flows : {};
    const credentials = flows.clientCredentials;
    if (isObject(credentials) && typeof credentials.tokenUrl === 'string') {
      return { kind: 'oauth2ClientCredentials', name, tokenUrl: credentials.tokenUrl, scopes: isObject(credentials.scopes) ? Object.keys(credentials.scopes) : [] };
    }
    return { kind: 'accessToken', name, ...(isAzureAd(flows) && { azure: true }) };
  }
  if (type === 'openIdConnect') return { kind: 'accessToken', name };
  return undefined;
}

/** Azure AD's sign-in hosts (public and national clouds). */
const AZURE_AD_HOSTS = /^(login\.microsoftonline\.com|login\.windows\.net|login\.microsoftonline\.us|login\.chinacloudapi\.cn|login\.partner\.microsoftonline\.cn)$/i;

/** Whether an OAuth2 scheme's flows sign in at Azure AD. */
function isAzureAd(flows: Record<string, unknown>): boolean {
  return Object.values(flows).some((flow) => isObject(flow) && ['authorizationUrl', 'tokenUrl'].some((key) => {
    const url = flow[key];
    if (typeof url !== 'string') return false;
    try {
      return AZURE_AD_HOSTS.test(new URL(url).hostname);
    } catch {
      return false;
    }
  }));
}

function describe(node: Record<string, unknown>): string {
  return [node.type, node.scheme, node.in].filter((v) => typeof v === 'string').join(' ') || 'unknown type';
}

/**
 * An operation's security requirement as alternatives, each a list of scheme names that must all be
 * sent; an empty alternative means the operation may be called without credentials. Undefined when
 * neither the operation nor the document requires anything.
 */
export function readRequirement(node: unknown): string[][] | undefined {
  if (!Array.isArray(node)) return undefined;
  return node.filter(isObject).map((requirement) => Object.keys(requirement).map(schemeKey));
}

/**
 * The OAuth scopes an operation's requirement lists (for its OAuth 2.0 and OpenID Connect schemes), as alternatives:
 * a caller needs every scope of one of them. Undefined when some alternative needs none (anonymous access, an API
 * key), so that no scope is needed; scopes that are not RFC 6749 scope tokens are left out.
 */
export function readScopes(node: unknown, schemes: readonly SecurityScheme[]): string[][] | undefined {
  if (!Array.isArray(node)) return undefined;
  const oauth = new Set(schemes.filter((s) => s.kind === 'oauth2ClientCredentials' || s.kind === 'accessToken').map((s) => s.name));
  const alternatives = node.filter(isObject).map((requirement) => [...new Set(Object.entries(requirement)
    .filter(([name]) => oauth.has(schemeKey(name)))
    .flatMap(([, scopes]) => (Array.isArray(scopes) ? scopes : []))
    .filter((scope): scope is string => typeof scope === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)))]);
  return alternatives.length === 0 || alternatives.some((alternative) => alternative.length === 0) ? undefined : alternatives;
}

/** Scheme names as the generated code keys them: requirements list them space-separated. */
function schemeKey(name: string): string {
  return name.replace(/\s+/g, '_');
}

/** Schemes that send their credential in the Authorization header. */
function writesAuthorization(scheme: SecurityScheme): boolean {
  return scheme.kind === 'bearer' || scheme.kind === 'basic' || scheme.kind === 'oauth2ClientCredentials' || scheme.kind === 'accessToken'
    || (scheme.kind === 'apiKey' && scheme.in === 'header' && scheme.parameter.toLowerCase() === 'authorization');
}

/**
 * Requirements that need two schemes writing the Authorization header (bearer and basic, say): a request has
 * one such header, and the last scheme listed writes it. Said once per requirement, where it is first used.
 */
export function authorizationClashes(operations: readonly Operation[], schemes: readonly SecurityScheme[], display: string): Diagnostic[] {
  const byName = new Map(schemes.map((s) => [s.name, s]));
  const seen = new Set<string>();
  const warnings: Diagnostic[] = [];
  for (const op of operations) {
    for (const alternative of op.security ?? []) {
      const clashing = alternative.filter((name) => { const s = byName.get(name); return s !== undefined && writesAuthorization(s); });
      const key = alternative.join(' ');
      if (clashing.length < 2 || seen.has(key)) continue;
      seen.add(key);
      warnings.push({
        location: `${display}#${op.id}/security`,
        message: `the security requirement {${alternative.join(', ')}} needs ${clashing.join(' and ')}, which all send the Authorization header: only ${clashing[clashing.length - 1]} (the last listed) is sent`,
      });
    }
  }
  return warnings;
}
