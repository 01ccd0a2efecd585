import type { GeneratedFile } from '../shared/file.js';
import type { HostOptions } from './host-options.js';
import { emitToolCatalog, emitToolSupport } from '../tools/tool-support.js';
import { emitHttpAccess } from '../http/access.js';
import { emitHttpLimits } from '../http/limits.js';
import { AUTH_PACKAGES, emitAuthorization } from '../http/authorization.js';
import { emitDiscovery, SEARCH_INDEX_FILE, SEARCH_INDEX_RESOURCE, SEARCH_PACKAGES } from '../discovery/discovery.js';
import { emitProgram } from './program.js';
import { CODE_PACKAGES, emitCode, SIGNATURES_FILE, SIGNATURES_RESOURCE } from '../code/code.js';
import { emitDeployment } from './deploy.js';
import { emitServerJson, packageProjectLines } from './nuget.js';
import { emitUserProject, regenerationProjectLines } from './regenerate.js';
import { emitTelemetry, telemetryPackages } from './telemetry.js';
import { emitConfirm } from '../tools/confirm.js';
import { emitResourceSupport } from '../resources/resources.js';
import { INPUT_SCHEMAS_FILE } from '../tools/tools.js';
import { emitHybrid, HYBRID_PACKAGES, hybridProjectLines, isHybrid } from '../discovery/hybrid.js';

/** NuGet packages of the generated host, at versions the registry here serves. */
export const PACKAGES = [
  { id: 'Microsoft.Extensions.Hosting', version: '10.0.14' },
  { id: 'Microsoft.Extensions.Http', version: '10.0.14' },
  { id: 'Microsoft.Extensions.Http.Resilience', version: '10.11.0' },
  { id: 'ModelContextProtocol', version: '2.4.0' },
] as const;

/** `--credential azure`: Azure.Identity, whose DefaultAzureCredential gets Azure AD tokens. */
export const AZURE_PACKAGES = [{ id: 'Azure.Identity', version: '1.21.0' }] as const;

/** The HTTP host's: ASP.NET Core (hosting and HttpClient factory included) and the SDK's Streamable HTTP transport. */
export const HTTP_PACKAGES = [
  { id: 'Microsoft.Extensions.Http.Resilience', version: '10.11.0' },
  { id: 'ModelContextProtocol.AspNetCore', version: '2.4.0' },
] as const;

export { serverKey, TOOL_MODES, TRANSPORTS, type HostOptions, type ToolMode, type Transport } from './host-options.js';

/**
 * The project that hosts the tools: a console app over stdio (SPEC 4.4), or an ASP.NET Core app over HTTP with
 * what deploys it (Dockerfile, Kubernetes manifest); packed as a NuGet MCP server when asked.
 */
export function emitHost(options: HostOptions, projectName: string): GeneratedFile[] {
  const source = `the server ${options.serverName}`;
  return [
    { path: `${projectName}.csproj`, content: emitProject(options, projectName) },
    { path: 'Program.cs', content: emitProgram(options) },
    ...emitToolSupport(options.namespace, options.clientNamespace, source),
    ...emitTelemetry(options, source),
    ...(options.confirm !== undefined ? [emitConfirm(options.namespace, options.clientNamespace, source)] : []),
    ...(options.mode !== 'operations' ? emitDiscovery(options.namespace, options.clientNamespace, source, options.mode) : [emitToolCatalog(options.namespace, options.clientNamespace, source)]),
    ...(options.mode === 'code' ? emitCode(options.namespace, options.clientNamespace, source) : []),
    ...(isHybrid(options) ? emitHybrid(options.namespace, options.clientNamespace, source) : []),
    ...(options.resources === true ? [emitResourceSupport(options.namespace, options.clientNamespace, source)] : []),
    ...(options.transport === 'http' ? [...emitHttpAccess(options.namespace, options.clientNamespace, source), emitHttpLimits(options.namespace, options.clientNamespace, source), ...emitDeployment(options, projectName)] : []),
    ...(options.auth === 'oauth' ? emitAuthorization(options.namespace, options.clientNamespace, source, options.upstreamTokenExchange === true) : []),
    ...(options.package ? [emitServerJson(options, options.package)] : []),
    ...(options.regenerate?.localGenerator !== undefined ? [emitUserProject(projectName, options.regenerate.localGenerator, literal)] : []),
  ];
}

/** A value from the spec or the command line: MSBuild's special characters as %XX (no $(…) or @(…) expands), then XML. */
const literal = (text: string): string => text
  .replace(/[%$;'*?]|@(?=\()/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function emitProject(options: HostOptions, projectName: string): string {
  return [
    `<Project Sdk="${options.transport === 'http' ? 'Microsoft.NET.Sdk.Web' : 'Microsoft.NET.Sdk'}">`,
    '',
    '  <PropertyGroup>',
    '    <OutputType>Exe</OutputType>',
    `    <TargetFramework>${literal(options.framework)}</TargetFramework>`,
    '    <Nullable>enable</Nullable>',
    '    <ImplicitUsings>disable</ImplicitUsings>',
    `    <RootNamespace>${literal(options.namespace)}</RootNamespace>`,
    `    <AssemblyName>${literal(projectName)}</AssemblyName>`,
    '    <SatelliteResourceLanguages>en</SatelliteResourceLanguages>',
    '  </PropertyGroup>',
    '',
    '  <!-- What is published or packed (Release) names no folder of the machine that built it: the same sources give',
    '       the same assembly, and its debug information points at /_/ instead of this folder. -->',
    '  <PropertyGroup Condition="\'$(Configuration)\' == \'Release\'">',
    '    <Deterministic>true</Deterministic>',
    '    <PathMap>$(MSBuildProjectDirectory)=/_</PathMap>',
    '  </PropertyGroup>',
    '',
    '  <ItemGroup>',
    ...[...(options.transport === 'http' ? HTTP_PACKAGES : PACKAGES), ...(options.auth === 'oauth' ? AUTH_PACKAGES : []), ...(options.mode !== 'operations' ? SEARCH_PACKAGES : []), ...(options.mode === 'code' ? CODE_PACKAGES : []), ...(isHybrid(options) ? HYBRID_PACKAGES : []), ...(options.azureCredential ? AZURE_PACKAGES : []), ...telemetryPackages(options)].map((p) => `    <PackageReference Include="${p.id}" Version="${p.version}" />`),
    '  </ItemGroup>',
    '',
    '  <ItemGroup>',
    '    <None Update="appsettings.json" CopyToOutputDirectory="PreserveNewest" />',
    `    <EmbeddedResource Include="${INPUT_SCHEMAS_FILE}" LogicalName="${INPUT_SCHEMAS_FILE}" Condition="Exists('${INPUT_SCHEMAS_FILE}')" />`,
    ...(options.mode !== 'operations' ? [`    <EmbeddedResource Include="${SEARCH_INDEX_FILE}" LogicalName="${SEARCH_INDEX_RESOURCE}" />`] : []),
    ...(options.mode === 'code' ? [`    <EmbeddedResource Include="${SIGNATURES_FILE}" LogicalName="${SIGNATURES_RESOURCE}" />`] : []),
    '  </ItemGroup>',
    '',
    ...(isHybrid(options) ? hybridProjectLines() : []),
    ...(options.package ? packageProjectLines(options.package, literal) : []),
    ...(options.regenerate ? regenerationProjectLines(options.regenerate, projectName, literal) : []),
    '</Project>',
    '',
  ].join('\n');
}
