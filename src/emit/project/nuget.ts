/**
 * The server as a NuGet MCP server package, the way the official `mcpserver` template makes one: a .NET tool of
 * package type McpServer that clients start with `dnx <id>@<version> --yes`, carrying `.mcp/server.json` in the
 * MCP Registry's format.
 */
import type { GeneratedFile } from '../shared/file.js';
import type { HostOptions, PackageInfo } from '../shared/host-options.js';
import { credentialVariables, environmentVariables, requiredVariables } from '../../names/environment.js';

/** The MCP Registry schema server.json is written against. */
export const SERVER_JSON_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json';
export const SERVER_JSON = '.mcp/server.json';

/** A package's version from the API's: NuGet takes SemVer-like versions only (`2022-11-28` and `v3` are not). */
export function packageVersionOf(apiVersion: string): string {
  return /^\d+\.\d+(\.\d+){0,2}(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/.test(apiVersion) ? apiVersion : '1.0.0';
}

/** The .csproj properties and items that make `dotnet pack` write the MCP server package. */
export function packageProjectLines(info: PackageInfo, literal: (text: string) => string): string[] {
  return [
    '  <!-- A NuGet MCP server: dotnet pack -c Release writes it; clients start it with dnx (see README.md). -->',
    '  <PropertyGroup>',
    '    <PackAsTool>true</PackAsTool>',
    '    <PackageType>McpServer</PackageType>',
    `    <ToolCommandName>${literal(info.command)}</ToolCommandName>`,
    `    <PackageId>${literal(info.id)}</PackageId>`,
    `    <PackageVersion>${literal(info.version)}</PackageVersion>`,
    `    <Description>${literal(info.description)}</Description>`,
    '    <PackageTags>AI; MCP; server; stdio</PackageTags>',
    '    <PackageReadmeFile>README.md</PackageReadmeFile>',
    '    <!-- Runs on the newest .NET installed, not only on the one it was built for. -->',
    '    <RollForward>Major</RollForward>',
    '  </PropertyGroup>',
    '',
    '  <ItemGroup>',
    `    <None Include="${SERVER_JSON}" Pack="true" PackagePath="/.mcp/" />`,
    '    <None Include="README.md" Pack="true" PackagePath="/" />',
    '  </ItemGroup>',
    '',
  ];
}

/** `.mcp/server.json`: the server in the MCP Registry's format, with every setting it reads. */
export function emitServerJson(options: HostOptions, info: PackageInfo): GeneratedFile {
  const env = environmentVariables(options.serverName);
  const setting = (name: string, description: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, description, format: 'string', ...extra });
  const variables = [
    info.defaultBaseUrl === undefined
      ? setting(env.baseUrl, 'Base URL of the API', { isRequired: true })
      : setting(env.baseUrl, `Base URL of the API (default ${info.defaultBaseUrl})`, { default: info.defaultBaseUrl }),
    setting(env.timeout, 'Timeout of each HTTP call, in seconds', { format: 'number', default: '30' }),
    setting(env.maxResultLength, 'Longest tool answer, in characters', { format: 'number', default: '100000' }),
    // Secret: where a spec declares no security scheme, this is how a token is given (Authorization: token …).
    setting(env.headers, 'Extra headers for every request: "Name: value; Other: value"', { isSecret: true }),
    setting(env.userAgent, 'User-Agent of every request (default: the server, its API version and the generator)'),
    ...options.securitySchemes.flatMap((scheme) => requiredVariables(credentialVariables(options.serverName, scheme))
      .map((name) => setting(name, `Credential for ${scheme.name}`, { isSecret: true }))),
  ];
  const server = {
    $schema: SERVER_JSON_SCHEMA,
    // The registry takes names in a namespace you own: replace OWNER with your GitHub user (io.github.<user>/…) or a domain.
    name: `io.github.OWNER/${info.id}`,
    description: info.description,
    version: info.version,
    // The registry takes https icons of at most 255 characters (no data: URI).
    ...(options.icon !== undefined && /^https:/i.test(options.icon.src) && options.icon.src.length <= 255 && { icons: [{ src: options.icon.src, ...(options.icon.mimeType !== undefined && { mimeType: options.icon.mimeType }) }] }),
    packages: [{
      registryType: 'nuget',
      registryBaseUrl: 'https://api.nuget.org',
      identifier: info.id,
      version: info.version,
      runtimeHint: 'dnx',
      transport: { type: 'stdio' },
      environmentVariables: variables,
    }],
  };
  return { path: SERVER_JSON, content: JSON.stringify(server, null, 2) + '\n' };
}
