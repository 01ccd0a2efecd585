/**
 * Who may reach an HTTP server (DNS-rebinding protection) and who calls: McpHttpAccess.cs checks the Host and Origin
 * of every request before anything else reads it, McpHttpProxies.cs takes the caller from trusted proxies'
 * X-Forwarded-For; McpSettings reads their settings, and Program.cs puts them first.
 */
import { stringLiteral } from '../shared/writer.js';
import { templates } from '../shared/templates.js';
import { environmentVariables } from '../../names/environment.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

const template = templates('http');

export const httpAccess: HostFeature = {
  applies: (options) => options.transport === 'http',
  files: (options, source) => ['McpHttpAccess', 'McpHttpProxies'].map((name) => template(name, supportPath(`${name}.cs`), options.namespace, source, options.clientNamespace)),
  settings: (options) => {
    const { allowedHosts, allowedOrigins, trustedProxies } = environmentVariables(options.serverName);
    return {
      members: [
        `/// <summary>Host names the server accepts besides loopback ones: ${allowedHosts}.</summary>`,
        'public required HashSet<string> AllowedHosts { get; init; }',
        `public const string AllowedHostsSetting = ${stringLiteral(allowedHosts)};`,
        '',
        `/// <summary>Origins of web pages the server accepts besides loopback ones: ${allowedOrigins}.</summary>`,
        'public required HashSet<string> AllowedOrigins { get; init; }',
        `public const string AllowedOriginsSetting = ${stringLiteral(allowedOrigins)};`,
        '',
        `/// <summary>The proxies whose X-Forwarded-For says who a caller is: ${trustedProxies}.</summary>`,
        'public required IReadOnlyList<System.Net.IPNetwork> TrustedProxies { get; init; }',
      ],
      read: (w) => {
        w.line('// Who may reach the server besides loopback callers: host names, and origins of web pages (DNS-rebinding protection);');
        w.line('// and the proxies whose X-Forwarded-For says who a caller is.');
        w.line('if (!McpHttpAccess.TryReadHosts(settings[AllowedHostsSetting], AllowedHostsSetting, out var allowedHosts, out var accessError)');
        w.line('    || !McpHttpAccess.TryReadOrigins(settings[AllowedOriginsSetting], AllowedOriginsSetting, out var allowedOrigins, out accessError)');
        w.line(`    || !McpHttpProxies.TryRead(settings[${stringLiteral(trustedProxies)}], ${stringLiteral(trustedProxies)}, out var trustedProxies, out accessError))`);
        w.line('{');
        w.line('    Console.Error.WriteLine(accessError);');
        w.line('    return null;');
        w.line('}');
      },
      values: ['AllowedHosts = allowedHosts', 'AllowedOrigins = allowedOrigins', 'TrustedProxies = trustedProxies'],
    };
  },
  program: () => ({
    services: [
      '// Who calls: the authenticated subject, else the client\'s address (for shares, limits and the audit log).',
      'builder.AddMcpHttpAccess();',
    ],
    app: [
      '// Behind the trusted proxies, the caller is the one a request names; every request\'s Host and Origin are checked first.',
      'app.UseMcpHttpAccess(settings);',
    ],
  }),
};

/** The endpoints of an HTTP server, after its middleware: MCP at /mcp, and a probe for load balancers. */
export const httpEndpoints: HostFeature = {
  applies: (options) => options.transport === 'http',
  program: (options) => ({
    app: [
      options.auth === 'oauth' ? 'app.MapMcp("/mcp").RequireAuthorization();' : 'app.MapMcp("/mcp");',
      '// For load balancers and orchestrators: the process is up and serving.',
      'app.MapGet("/healthz", () => "ok");',
    ],
  }),
};
