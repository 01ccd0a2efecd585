import type { SecurityScheme } from '../model/types.js';

/**
 * `SERVER_NAME` from a server name: `Petstore` → `PETSTORE`, `myApi` → `MY_API`, `2fa` → `_2FA`. A digit belongs to
 * the word it is written in (`n8n` → `N8N`, `Web3Storage` → `WEB3_STORAGE`, `ipv4Tools` → `IPV4_TOOLS`).
 */
export function environmentPrefix(serverName: string): string {
  const prefix = upperWords(serverName);
  return prefix === '' ? 'MCP' : /^[0-9]/.test(prefix) ? `_${prefix}` : prefix;
}

/** The variable of a parameter the client sets once (its planned setting, e.g. `SUBSCRIPTION_ID`). */
export function clientParameterVariable(serverName: string, setting: string): string {
  return `${environmentPrefix(serverName)}_${setting}`;
}

/**
 * The setting of a parameter the client sets once, after the server's prefix: its words in capitals (`ApiVersion` →
 * `API_VERSION`), with `_PARAMETER` after it where it would be one of the server's own settings (`BASE_URL`).
 */
export function settingSuffix(name: string): string {
  const suffix = upperWords(name) || 'PARAMETER';
  const own = Object.values(environmentVariables('X')).map((variable) => variable.slice(2));
  return own.includes(suffix) ? `${suffix}_PARAMETER` : suffix;
}

/** The ASCII words of a name in capitals, joined with `_`, as environment variables are written. */
function upperWords(name: string): string {
  const ascii = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  return (ascii.match(PREFIX_WORD) ?? []).join('_').toUpperCase();
}

/** A word of a name: capitals (an acronym), a capital and lower case, or digits, each with the digits and lower case written on to it. */
const PREFIX_WORD = /[A-Z]+(?![a-z])[0-9]*|[A-Z]?[a-z]+(?:[0-9]+[a-z]*)*|[0-9]+[a-z]*/g;

/** The environment variables (and configuration keys) the generated server reads. */
export function environmentVariables(serverName: string) {
  const prefix = environmentPrefix(serverName);
  return {
    baseUrl: `${prefix}_BASE_URL`,
    /** The server's icon (an image URL), in place of the spec's logo. */
    iconUrl: `${prefix}_ICON_URL`,
    /** With --confirm: `off` sends destructive calls without asking the user. */
    confirm: `${prefix}_CONFIRM`,
    timeout: `${prefix}_TIMEOUT_SECONDS`,
    maxResultLength: `${prefix}_MAX_RESULT_LENGTH`,
    headers: `${prefix}_HEADERS`,
    userAgent: `${prefix}_USER_AGENT`,
    /** HTTP only: host names and origins the server accepts besides loopback ones. */
    allowedHosts: `${prefix}_ALLOWED_HOSTS`,
    allowedOrigins: `${prefix}_ALLOWED_ORIGINS`,
    /** HTTP only: the proxies (addresses, networks) whose X-Forwarded-For says who a caller is. */
    trustedProxies: `${prefix}_TRUSTED_PROXIES`,
    /** HTTP only: the Redis server (a StackExchange.Redis connection string) whose state the replicas share. */
    redis: `${prefix}_REDIS`,
    /** HTTP only: requests to /mcp one caller may make a minute, and at once; the largest request body; the drain on stop. */
    rateLimitPerMinute: `${prefix}_RATE_LIMIT_PER_MINUTE`,
    rateLimitBurst: `${prefix}_RATE_LIMIT_BURST`,
    maxRequestBytes: `${prefix}_MAX_REQUEST_BYTES`,
    drainSeconds: `${prefix}_DRAIN_SECONDS`,
    /** `--auth oauth`: the authorization server, this server's MCP URL (the tokens' audience), scopes every call needs. */
    authAuthority: `${prefix}_AUTH_AUTHORITY`,
    resourceUrl: `${prefix}_RESOURCE_URL`,
    authScopes: `${prefix}_AUTH_SCOPES`,
    /** `--upstream-token-exchange`: the client this server exchanges callers' tokens as. */
    authClientId: `${prefix}_AUTH_CLIENT_ID`,
    authClientSecret: `${prefix}_AUTH_CLIENT_SECRET`,
    /** Code mode: the limits of one run_script script. */
    scriptTimeout: `${prefix}_SCRIPT_TIMEOUT_SECONDS`,
    scriptMaxStatements: `${prefix}_SCRIPT_MAX_STATEMENTS`,
    scriptMaxRecursion: `${prefix}_SCRIPT_MAX_RECURSION`,
    scriptMaxMemory: `${prefix}_SCRIPT_MAX_MEMORY_MB`,
    scriptMaxCalls: `${prefix}_SCRIPT_MAX_CALLS`,
    /** Code mode: how many scripts run at once, how many wait and how long, and one caller's share of the running. */
    scriptMaxRunning: `${prefix}_SCRIPT_MAX_RUNNING`,
    scriptQueueLength: `${prefix}_SCRIPT_QUEUE_LENGTH`,
    scriptQueueWait: `${prefix}_SCRIPT_QUEUE_WAIT_SECONDS`,
    scriptMaxRunningPerCaller: `${prefix}_SCRIPT_MAX_RUNNING_PER_CALLER`,
    /** Code mode: how long a script runs before, while others wait, it moves to the long-running lane. */
    scriptShortSeconds: `${prefix}_SCRIPT_SHORT_SECONDS`,
    /** Long-running operations: how long a call watches one; the key that signs the tokens of those still running. */
    longRunningWait: `${prefix}_LRO_WAIT_SECONDS`,
    /** `--credential azure`: the scope of the Azure AD tokens (default: the API's origin + `/.default`). */
    azureScope: `${prefix}_AZURE_SCOPE`,
    operationKey: `${prefix}_OPERATION_KEY`,
    /** `false` writes no audit line per tool call. */
    auditLog: `${prefix}_AUDIT_LOG`,
  };
}

/** The variables that hold one scheme's credential; all must be set for the scheme to be used. */
export interface CredentialVariables {
  readonly value?: string;
  readonly username?: string;
  readonly password?: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Optional: space-separated OAuth2 scopes to ask for. */
  readonly scopes?: string;
  /** Optional: the OAuth2 token URL, in place of the spec's. */
  readonly tokenUrl?: string;
  /** Optional for OAuth2 client credentials: an access token obtained elsewhere, used instead of asking for one. */
  readonly accessToken?: string;
}

export function credentialVariables(serverName: string, scheme: SecurityScheme): CredentialVariables {
  const base = `${environmentPrefix(serverName)}_${upperWords(scheme.name) || 'AUTH'}`;
  const withSuffix = (suffix: string): string => (base.endsWith(`_${suffix}`) || base.endsWith(suffix) ? base : `${base}_${suffix}`);
  switch (scheme.kind) {
    case 'apiKey': return { value: withSuffix('KEY') };
    case 'bearer': case 'accessToken': return { value: withSuffix('TOKEN') };
    case 'basic': return { username: `${base}_USERNAME`, password: `${base}_PASSWORD` };
    case 'oauth2ClientCredentials': return { clientId: `${base}_CLIENT_ID`, clientSecret: `${base}_CLIENT_SECRET`, scopes: `${base}_SCOPES`, tokenUrl: `${base}_TOKEN_URL`, accessToken: withSuffix('TOKEN') };
  }
}

/** Every variable a scheme needs, in order (the optional scopes, token URL and ready-made token are not listed). */
export function requiredVariables(variables: CredentialVariables): string[] {
  return [variables.value, variables.username, variables.password, variables.clientId, variables.clientSecret].filter((v): v is string => v !== undefined);
}
