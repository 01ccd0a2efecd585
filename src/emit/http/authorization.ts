/**
 * `--auth oauth`: the HTTP server as an OAuth 2.1 resource server (MCP authorization). McpAuthorization.cs validates
 * tokens, publishes the RFC 9728 metadata and checks scopes; McpSettings reads its settings, Program.cs puts it in the pipeline.
 */
import { templates } from '../shared/templates.js';
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { environmentVariables } from '../../names/environment.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

const template = templates('http');


/** The package that validates JWT access tokens, at the version the registry here serves. */
export const AUTH_PACKAGES = [{ id: 'Microsoft.AspNetCore.Authentication.JwtBearer', version: '10.0.15' }] as const;

export const authorization: HostFeature = {
  applies: (options) => options.auth === 'oauth',
  files: (options, source) => [
    template('McpAuthorization', supportPath('McpAuthorization.cs'), options.namespace, source, options.clientNamespace),
    ...(options.upstreamTokenExchange === true ? [template('McpTokenExchange', supportPath('McpTokenExchange.cs'), options.namespace, source, options.clientNamespace)] : []),
  ],
  packages: () => AUTH_PACKAGES,
  settings: (options) => ({
    members: ['/// <summary>Who may use the server: holders of access tokens the authority issued for it.</summary>', 'public required McpAuthorization Authorization { get; init; }'],
    read: (w) => readAuthorizationSettings(w, options.serverName, options.upstreamTokenExchange === true, options.mode === 'code'),
    values: ['Authorization = authorization'],
  }),
  program: () => ({
    services: ['builder.AddMcpAuthorization(settings);'],
    app: ['// The caller\'s access token (401 without a valid one), then the scopes every call needs (403).', 'app.UseMcpAuthorization(settings);'],
  }),
};

/** The authority, this server's URL and the scopes every call needs; the token exchange's client. */
function readAuthorizationSettings(w: CSharpWriter, serverName: string, tokenExchange: boolean, code: boolean): void {
  const { authAuthority, resourceUrl, authScopes, authClientId, authClientSecret } = environmentVariables(serverName);
  const read = (name: string): string => `settings[${stringLiteral(name)}]`;
  w.line('// Who may use the server: holders of access tokens the authority issued for it (MCP authorization, OAuth 2.1).');
  w.line(`if (!McpAuthorization.TryRead(${read(authAuthority)}, ${read(resourceUrl)}, ${read(authScopes)}, (${stringLiteral(authAuthority)}, ${stringLiteral(resourceUrl)}, ${stringLiteral(authScopes)}), out var authorization, out var authorizationError))`);
  w.line('{');
  w.line('    Console.Error.WriteLine(authorizationError);');
  w.line('    return null;');
  w.line('}');
  if (code) {
    w.line('// A script\'s api calls need the scopes of the operations they call, as the caller\'s own tools/call would.');
    w.line('McpCode.Admit = tool => authorization.Refusal(new HttpContextAccessor().HttpContext?.User, tool);');
  }
  if (!tokenExchange) return;
  w.line('// Each call\'s API token is obtained for its caller: the caller\'s token exchanged at the authority (RFC 8693).');
  w.line(`if (!McpTokenExchange.TryCreate(authorization, ${read(authClientId)}, ${read(authClientSecret)}, baseAddress, (${stringLiteral(authClientId)}, ${stringLiteral(authClientSecret)}), out var tokenExchange, out var exchangeError))`);
  w.line('{');
  w.line('    Console.Error.WriteLine(exchangeError);');
  w.line('    return null;');
  w.line('}');
  w.line('// With Redis, a token exchanged on one replica serves the same caller\'s token on them all (sealed with it).');
  w.line('tokenExchange.Store = sharedState;');
}
