/**
 * What every generated host has: the API's base address, timeout, headers and User-Agent, the server's name,
 * version and icon, its logging and the HttpClient the tools are given (McpHostSetup.cs), and the tools' support.
 */
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { templates } from '../shared/templates.js';
import { FIXED_NAMES } from '../../names/plan.js';
import { environmentVariables } from '../../names/environment.js';
import { packageVersion } from '../../package.js';
import { emitToolSupport } from '../tools/tool-support.js';
import { INPUT_SCHEMAS_FILE } from '../tools/tools.js';
import { readIconSetting } from './server-icon.js';
import { serverKey, type HostOptions } from '../shared/host-options.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

/** NuGet packages of the generated host, at versions the registry here serves. */
export const PACKAGES = [
  { id: 'Microsoft.Extensions.Hosting', version: '10.0.14' },
  { id: 'Microsoft.Extensions.Http', version: '10.0.14' },
  { id: 'Microsoft.Extensions.Http.Resilience', version: '10.11.0' },
  { id: 'ModelContextProtocol', version: '2.4.0' },
] as const;

/** The HTTP host's: ASP.NET Core (hosting and HttpClient factory included) and the SDK's Streamable HTTP transport. */
export const HTTP_PACKAGES = [
  { id: 'Microsoft.Extensions.Http.Resilience', version: '10.11.0' },
  { id: 'ModelContextProtocol.AspNetCore', version: '2.4.0' },
] as const;

export const core: HostFeature = {
  applies: () => true,
  files: (options, source) => [
    templates('project')('McpHostSetup', supportPath('McpHostSetup.cs'), options.namespace, source, options.clientNamespace, hostSetupFills(options)),
    ...emitToolSupport(options.namespace, options.clientNamespace, source),
  ],
  packages: (options) => (options.transport === 'http' ? HTTP_PACKAGES : PACKAGES),
  // The argument schemas the tools share (McpTools.g.cs reads them once).
  embedded: () => [{ file: INPUT_SCHEMAS_FILE, name: INPUT_SCHEMAS_FILE, optional: true }],
  settings: (options) => {
    const env = environmentVariables(options.serverName);
    return {
      members: [
        `/// <summary>The API's base address: ${env.baseUrl}, else the document's server.</summary>`,
        'public required Uri BaseAddress { get; init; }',
        '',
        `/// <summary>How long a request to the API may take: ${env.timeout} (30 s).</summary>`,
        'public required TimeSpan Timeout { get; init; }',
        '',
        `/// <summary>Headers every request to the API carries: ${env.headers}.</summary>`,
        'public required IReadOnlyList<(string Name, string Value)> Headers { get; init; }',
        '',
        `/// <summary>The User-Agent of the requests: ${env.userAgent}, else the server's and the generator's.</summary>`,
        'public required string UserAgent { get; init; }',
        '',
        `/// <summary>The server's name, version and icon (${env.iconUrl}), as its clients are told.</summary>`,
        'public required Implementation ServerInfo { get; init; }',
      ],
      read: (w) => readCore(w, options),
      values: ['BaseAddress = baseAddress', 'Timeout = TimeSpan.FromSeconds(timeoutSeconds)', 'Headers = headers', 'UserAgent = userAgent', 'ServerInfo = serverInfo'],
    };
  },
};

function hostSetupFills(options: HostOptions): Record<string, string> {
  const http = options.transport === 'http';
  return {
    __LOGGING_WHERE__: http ? 'on stdout' : 'on stderr (stdout carries the MCP protocol)',
    __CONSOLE_OPTIONS__: http ? '' : 'options => options.LogToStandardErrorThreshold = LogLevel.Trace',
    __CREDENTIALS__: options.securitySchemes.length > 0
      ? '\n        // Each request carries the credentials its operation requires; none are ever logged or returned.\n        http.AddHttpMessageHandler(() => settings.Credentials.CreateHandler());'
      : '',
  };
}

function readCore(w: CSharpWriter, options: HostOptions): void {
  const env = environmentVariables(options.serverName);
  w.line(`var baseUrl = settings[${stringLiteral(env.baseUrl)}];`);
  w.line(`if (string.IsNullOrWhiteSpace(baseUrl)) baseUrl = Client.${FIXED_NAMES.clientClass}.DefaultBaseUrl;`);
  w.line('// Only an absolute http(s) URL: a relative one would be read as a file path, and other schemes are not the API.');
  w.line('// A query in it (?token=…) goes with every request.');
  w.line(`if (!Client.${FIXED_NAMES.request}.TryBaseAddress(baseUrl, out var baseAddress))`);
  w.line('{');
  w.line(`    Console.Error.WriteLine(string.IsNullOrWhiteSpace(baseUrl) ? ${stringLiteral(`error: no base URL for the API: set ${env.baseUrl}`)} : $${stringLiteral(`error: the base URL "{baseUrl}" is not an absolute http(s) URL: set ${env.baseUrl}`)});`);
  w.line('    return null;');
  w.line('}');
  if (options.serverPath !== undefined) {
    w.line('// The document names its server by a path alone (ServerPath): a base URL with no path of its own gets it.');
    w.line('if (baseAddress.AbsolutePath == "/")');
    w.line('{');
    w.line(`    baseAddress = new UriBuilder(baseAddress) { Path = Client.${FIXED_NAMES.clientClass}.ServerPath + "/" }.Uri;`);
    w.line('}');
  }
  w.line(`if (!TryReadNumber(${stringLiteral(env.timeout)}, 30, 1, 3600, out var timeoutSeconds)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.maxResultLength)}, ${FIXED_NAMES.tools}.MaxResultLength, 1000, 50_000_000, out var maxResultLength))`);
  w.line('{');
  w.line('    return null;');
  w.line('}');
  w.line(`${FIXED_NAMES.tools}.MaxResultLength = (int)maxResultLength;`);
  w.line('// A body is read no further than what could make an answer: memory per call does not depend on the API.');
  w.line(`Client.ApiLimits.MaxResponseBytes = Math.Max(4 * ${FIXED_NAMES.tools}.MaxResultLength, 64 * 1024);`);
  w.line(`var headers = Client.${FIXED_NAMES.request}.ParseHeaderList(settings[${stringLiteral(env.headers)}]);`);
  w.line('foreach (var (name, value) in headers)');
  w.line('{');
  w.line('    // A credential given as a header (Authorization: token …) is redacted from answers like configured ones.');
  w.line('    Client.ApiSecrets.AddHeader(name, value);');
  w.line('}');
  w.line(`var userAgent = settings[${stringLiteral(env.userAgent)}];`);
  w.line(`if (string.IsNullOrWhiteSpace(userAgent)) userAgent = ${stringLiteral(userAgentOf(options))};`);
  readIconSetting(w, env.iconUrl, options.icon);
  w.line(`var serverInfo = new Implementation { Name = ${stringLiteral(serverKey(options.serverName))}, Version = ${stringLiteral(options.serverVersion || '1.0.0')}, Icons = serverIcon is null ? null : [serverIcon] };`);
}

/** `Petstore/1.0.0 openapi-mcp-dotnet/0.1.0`: the server and API version, then the generator (RFC 9110 product tokens). */
function userAgentOf(options: HostOptions): string {
  const token = (text: string, fallback: string): string => text.replace(/[^!#$%&'*+.^_`|~0-9A-Za-z-]+/g, '-').replace(/^-+|-+$/g, '') || fallback;
  return `${token(options.serverName, 'mcp-server')}/${token(options.serverVersion, '1.0.0')} openapi-mcp-dotnet/${packageVersion()}`;
}
