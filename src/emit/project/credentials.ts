/**
 * The API's credentials in the host: each security scheme's values read from the settings (or, with
 * `--credential azure`, Azure AD tokens from DefaultAzureCredential), or over HTTP each caller's own (`--forward-auth`)
 * or one exchanged for the caller's token (`--upstream-token-exchange`). Each request carries those its operation
 * requires; none are ever logged or returned.
 */
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { FIXED_NAMES } from '../../names/plan.js';
import { credentialVariables, environmentVariables, requiredVariables } from '../../names/environment.js';
import type { SecurityScheme } from '../../model/types.js';
import type { HostOptions } from '../shared/host-options.js';
import type { HostFeature } from '../shared/feature.js';

/** `--credential azure`: Azure.Identity, whose DefaultAzureCredential gets Azure AD tokens. */
export const AZURE_PACKAGES = [{ id: 'Azure.Identity', version: '1.21.0' }] as const;

export const credentials: HostFeature = {
  applies: (options) => options.securitySchemes.length > 0,
  packages: (options) => (options.azureCredential === true ? AZURE_PACKAGES : []),
  settings: (options) => ({
    members: ['/// <summary>The credentials of the API\'s security schemes: each request carries those its operation requires.</summary>', `public required Client.${FIXED_NAMES.credentials} Credentials { get; init; }`],
    read: (w) => readCredentials(w, options),
    values: ['Credentials = credentials'],
    ...(options.forwardAuth !== undefined && { methods: (w: CSharpWriter) => forwardedCredential(w, options.forwardAuth as string) }),
  }),
};

function readCredentials(w: CSharpWriter, options: HostOptions): void {
  const env = environmentVariables(options.serverName);
  const azure = options.azureCredential === true;
  if (azure) {
    w.line('// Azure AD tokens from DefaultAzureCredential (environment, workload identity, managed identity, Azure CLI, …), for the');
    w.line(`// API's origin (${env.azureScope} says another scope), cached by the credentials until five minutes before they expire.`);
    w.line('var azureCredential = new Azure.Identity.DefaultAzureCredential();');
    w.line(`var azureScope = settings[${stringLiteral(env.azureScope)}] is { Length: > 0 } scope ? scope : baseAddress.GetLeftPart(UriPartial.Authority) + "/.default";`);
  }
  w.line('// Credentials: each request carries those its operation requires; none are ever logged or returned.');
  w.line(`var credentials = new Client.${FIXED_NAMES.credentials}(`);
  w.line('[');
  for (const scheme of options.securitySchemes) w.line(`    ${credentialInitializer(options.serverName, scheme, azure)},`);
  const shareTokens = options.transport === 'http' && options.securitySchemes.some((scheme) => scheme.kind === 'oauth2ClientCredentials');
  if (options.forwardAuth === undefined && !options.upstreamTokenExchange && !shareTokens) {
    w.line(']);');
    return;
  }
  w.line('])');
  w.line('{');
  if (shareTokens) {
    w.line('    // With Redis, a token one replica fetched serves them all (sealed with its client\'s secret).');
    w.line('    TokenStore = sharedState,');
  }
  if (options.upstreamTokenExchange) {
    w.line('    // A shared server: each call\'s API token is obtained for its caller, never the caller\'s own token.');
    w.line('    Forwarded = tokenExchange.ExchangedTokenAsync,');
    w.line('    ForwardedFrom = "Authorization",');
  } else if (options.forwardAuth !== undefined) {
    w.line(`    // A shared server: each call's credential is the caller's own, from the ${options.forwardAuth} header of its MCP request.`);
    w.line('    Forwarded = _ => ValueTask.FromResult(ForwardedCredential()),');
    w.line(`    ForwardedFrom = ${stringLiteral(options.forwardAuth ?? '')},`);
  }
  w.line('};');
  if (options.forwardAuth === undefined && !options.upstreamTokenExchange) return;
  w.line(`Client.ApiSecrets.CallSecret = ${options.upstreamTokenExchange ? 'McpTokenExchange.ExchangedToken' : 'ForwardedCredential'};`);
}

/** The credential the MCP request being served carries in `header`, without a leading "Bearer ". */
function forwardedCredential(w: CSharpWriter, header: string): void {
  w.doc('summary', `The credential the MCP request being served carries (its ${header} header), without a leading "Bearer ".`);
  w.open('private static string? ForwardedCredential()');
  w.line(`var value = new HttpContextAccessor().HttpContext?.Request.Headers[${stringLiteral(header)}].ToString();`);
  w.line('if (string.IsNullOrWhiteSpace(value)) return null;');
  w.line('value = value.Trim();');
  w.line('return value.StartsWith("Bearer ", StringComparison.OrdinalIgnoreCase) ? value[7..].Trim() : value;');
  w.close();
}

const CREDENTIAL_KINDS = { header: 'ApiKeyHeader', query: 'ApiKeyQuery', cookie: 'ApiKeyCookie' } as const;

/** `new Client.ApiCredential { ... }` for one scheme, its values read from configuration. */
function credentialInitializer(serverName: string, scheme: SecurityScheme, azure: boolean): string {
  const variables = credentialVariables(serverName, scheme);
  const read = (name: string | undefined): string => `settings[${stringLiteral(name ?? '')}]`;
  const fromAzure = azure && scheme.kind === 'accessToken' && scheme.azure === true;
  const kind = scheme.kind === 'apiKey' ? CREDENTIAL_KINDS[scheme.in]
    : scheme.kind === 'basic' ? 'Basic'
    : scheme.kind === 'oauth2ClientCredentials' ? 'OAuth2ClientCredentials'
    : fromAzure ? 'Token'
    : 'Bearer';
  const fields = [`Scheme = ${stringLiteral(scheme.name)}`, `Kind = Client.${FIXED_NAMES.credentialKind}.${kind}`];
  if (scheme.kind === 'apiKey') fields.push(`ParameterName = ${stringLiteral(scheme.parameter)}`);
  if (variables.value) fields.push(`Value = ${read(variables.value)}`);
  if (variables.username) fields.push(`Username = ${read(variables.username)}`, `Password = ${read(variables.password)}`);
  if (scheme.kind === 'oauth2ClientCredentials') {
    fields.push(
      `ClientId = ${read(variables.clientId)}`, `ClientSecret = ${read(variables.clientSecret)}`,
      `TokenUrl = string.IsNullOrWhiteSpace(${read(variables.tokenUrl)}) ? ${stringLiteral(scheme.tokenUrl)} : ${read(variables.tokenUrl)}`,
      `Scopes = ${read(variables.scopes)}`, `Value = ${read(variables.accessToken)}`,
    );
  }
  if (fromAzure) fields.push('TokenSource = async cancellationToken => await azureCredential.GetTokenAsync(new Azure.Core.TokenRequestContext([azureScope]), cancellationToken).ConfigureAwait(false) is var token ? (token.Token, token.ExpiresOn) : default');
  const settings = fromAzure ? `${requiredVariables(variables).join(' and ')}, or sign in as DefaultAzureCredential reads it (az login, AZURE_CLIENT_ID…)` : requiredVariables(variables).join(' and ');
  fields.push(`Settings = ${stringLiteral(variables.accessToken ? `${settings} (or ${variables.accessToken})` : settings)}`);
  return `new Client.${FIXED_NAMES.credential} { ${fields.join(', ')} }`;
}
