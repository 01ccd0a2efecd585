/**
 * `--auth oauth`: the HTTP server as an OAuth 2.1 resource server (MCP authorization). McpAuthorization.cs validates
 * tokens, publishes the RFC 9728 metadata and checks scopes; Program.cs reads its settings and puts it in the pipeline.
 */
import type { GeneratedFile } from '../shared/file.js';
import { templates } from '../shared/templates.js';
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { environmentVariables } from '../../names/environment.js';

const template = templates('http');

/** How callers of an HTTP server are admitted: by the deployment around it, or by OAuth access tokens. */
export type AuthMode = 'oauth';
export const AUTH_MODES: readonly AuthMode[] = ['oauth'];

/** The package that validates JWT access tokens, at the version the registry here serves. */
export const AUTH_PACKAGES = [{ id: 'Microsoft.AspNetCore.Authentication.JwtBearer', version: '10.0.15' }] as const;

export function emitAuthorization(namespace: string, clientNamespace: string, source: string, tokenExchange: boolean): GeneratedFile[] {
  return [
    template('McpAuthorization', 'McpAuthorization.cs', namespace, source, clientNamespace),
    ...(tokenExchange ? [template('McpTokenExchange', 'McpTokenExchange.cs', namespace, source, clientNamespace)] : []),
  ];
}

/** Program.cs, with the other settings: the authority, this server's URL and the scopes every call needs. */
export function readAuthorizationSettings(w: CSharpWriter, serverName: string, tokenExchange: boolean): void {
  const { authAuthority, resourceUrl, authScopes, authClientId, authClientSecret } = environmentVariables(serverName);
  const read = (name: string): string => `settings[${stringLiteral(name)}]`;
  w.line();
  w.line('// Who may use the server: holders of access tokens the authority issued for it (MCP authorization, OAuth 2.1).');
  w.line(`if (!Tools.McpAuthorization.TryRead(${read(authAuthority)}, ${read(resourceUrl)}, ${read(authScopes)}, (${stringLiteral(authAuthority)}, ${stringLiteral(resourceUrl)}, ${stringLiteral(authScopes)}), out var authorization, out var authorizationError))`);
  w.line('{');
  w.line('    Console.Error.WriteLine(authorizationError);');
  w.line('    return 1;');
  w.line('}');
  w.line('authorization.AddServices(builder.Services, typeof(Tools.McpTools));');
  if (!tokenExchange) return;
  w.line('// Each call\'s API token is obtained for its caller: the caller\'s token exchanged at the authority (RFC 8693).');
  w.line(`if (!Tools.McpTokenExchange.TryCreate(authorization, ${read(authClientId)}, ${read(authClientSecret)}, baseAddress, (${stringLiteral(authClientId)}, ${stringLiteral(authClientSecret)}), out var tokenExchange, out var exchangeError))`);
  w.line('{');
  w.line('    Console.Error.WriteLine(exchangeError);');
  w.line('    return 1;');
  w.line('}');
}

/** Program.cs, after the Host and Origin checks: tokens, then scopes, before any MCP request is read. */
export function useAuthorization(w: CSharpWriter): void {
  w.line('// Then the caller\'s access token (401 without a valid one), then the scopes every call needs (403).');
  w.line('app.UseAuthentication();');
  w.line('app.UseAuthorization();');
  w.line('app.Use(authorization.CheckScopesAsync);');
}
