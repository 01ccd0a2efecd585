/**
 * Who may reach an HTTP server (DNS-rebinding protection): McpHttpAccess.cs checks the Host and Origin of every
 * request before anything else reads it; Program.cs reads its settings and puts it first.
 */
import type { GeneratedFile } from '../shared/file.js';
import { templates } from '../shared/templates.js';
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { environmentVariables } from '../../names/environment.js';

const template = templates('http');

export function emitHttpAccess(namespace: string, clientNamespace: string, source: string): GeneratedFile[] {
  return [
    template('McpHttpAccess', 'McpHttpAccess.cs', namespace, source, clientNamespace),
    template('McpHttpProxies', 'McpHttpProxies.cs', namespace, source, clientNamespace),
  ];
}

/** Program.cs, with the other settings: the allowed hosts and origins, or one line and no start when one is not. */
export function readAccessSettings(w: CSharpWriter, serverName: string): void {
  const { allowedHosts, allowedOrigins, trustedProxies } = environmentVariables(serverName);
  w.line();
  w.line('// Who may reach the server besides loopback callers: host names, and origins of web pages (DNS-rebinding protection);');
  w.line('// and the proxies whose X-Forwarded-For says who a caller is.');
  w.line(`if (!Tools.McpHttpAccess.TryReadHosts(settings[${stringLiteral(allowedHosts)}], ${stringLiteral(allowedHosts)}, out var allowedHosts, out var accessError)`);
  w.line(`    || !Tools.McpHttpAccess.TryReadOrigins(settings[${stringLiteral(allowedOrigins)}], ${stringLiteral(allowedOrigins)}, out var allowedOrigins, out accessError)`);
  w.line(`    || !Tools.McpHttpProxies.TryRead(settings[${stringLiteral(trustedProxies)}], ${stringLiteral(trustedProxies)}, out var trustedProxies, out accessError))`);
  w.line('{');
  w.line('    Console.Error.WriteLine(accessError);');
  w.line('    return 1;');
  w.line('}');
}

/** Program.cs, first thing after the app is built: the check runs before every endpoint. */
export function useAccessCheck(w: CSharpWriter, serverName: string): void {
  const { allowedHosts, allowedOrigins } = environmentVariables(serverName);
  w.line('// Behind the trusted proxies, the caller is the one a request from them names; from anyone else X-Forwarded-For is ignored.');
  w.line('Tools.McpHttpProxies.Use(app, trustedProxies);');
  w.line('// Every request\'s Host and Origin are checked before anything else reads it.');
  w.line(`app.Use(Tools.McpHttpAccess.Create(allowedHosts, allowedOrigins, ${stringLiteral(allowedHosts)}, ${stringLiteral(allowedOrigins)}, app.Services).InvokeAsync);`);
  w.line();
}
