import type { GeneratedFile } from '../shared/file.js';
import type { HostOptions } from '../shared/host-options.js';
import { INPUT_SCHEMAS_FILE } from '../tools/tools.js';
import { HOST_FEATURES } from './features.js';
import { emitProgram } from './program.js';
import { emitSettings, SETTINGS_CLASS } from './settings.js';
import { msbuildLiteral as literal } from './msbuild.js';
import { supportPath, type HostFeature, type Package } from '../shared/feature.js';

export { PACKAGES, HTTP_PACKAGES } from './core.js';
export { AZURE_PACKAGES } from './credentials.js';
export { serverKey, TOOL_MODES, TRANSPORTS, type HostOptions, type ToolMode, type Transport } from '../shared/host-options.js';

/**
 * The project that hosts the tools: a console app over stdio (SPEC 4.4), or an ASP.NET Core app over HTTP with
 * what deploys it (Dockerfile, Kubernetes manifest); packed as a NuGet MCP server when asked. Program.cs and the
 * project file at the root; the support files, McpSettings.g.cs among them, in Mcp/.
 */
export function emitHost(options: HostOptions, projectName: string): GeneratedFile[] {
  const source = `the server ${options.serverName}`;
  const features = HOST_FEATURES.filter((feature) => feature.applies(options));
  const parts = <T>(pick: (feature: HostFeature) => T | undefined): T[] => features.flatMap((feature) => {
    const part = pick(feature);
    return part === undefined ? [] : [part];
  });
  return [
    { path: `${projectName}.csproj`, content: emitProject(options, projectName, features) },
    { path: 'Program.cs', content: emitProgram(options, parts((f) => f.program?.(options))) },
    { path: supportPath(`${SETTINGS_CLASS}.g.cs`), content: emitSettings(options, parts((f) => f.settings?.(options))) },
    ...features.flatMap((feature) => feature.files?.(options, source, projectName) ?? []),
  ];
}

function emitProject(options: HostOptions, projectName: string, features: readonly HostFeature[]): string {
  const packages = new Map<string, Package>();
  for (const p of features.flatMap((feature) => feature.packages?.(options) ?? [])) packages.set(p.id, p);
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
    '    <!-- A server has no project that compiles against it: no reference assembly to write (on a large API, seconds). -->',
    '    <ProduceReferenceAssembly>false</ProduceReferenceAssembly>',
    '  </PropertyGroup>',
    '',
    '  <!-- What is published or packed (Release) names no folder of the machine that built it: the same sources give',
    '       the same assembly, and its debug information points at /_/ instead of this folder. -->',
    '  <PropertyGroup Condition="\'$(Configuration)\' == \'Release\'">',
    '    <Deterministic>true</Deterministic>',
    '    <PathMap>$(MSBuildProjectDirectory)=/_</PathMap>',
    '  </PropertyGroup>',
    '',
    '  <!-- The generated code needs no analyzer and no source generator but the regular-expression one, and on a large API',
    '       they take a quarter of the build. For code you add that wants them (CA rules, [LoggerMessage], [JsonSerializable]),',
    '       set OpenApiMcpAnalyzers to true, here or with -p:OpenApiMcpAnalyzers=true. -->',
    '  <PropertyGroup>',
    '    <OpenApiMcpAnalyzers Condition="\'$(OpenApiMcpAnalyzers)\' == \'\'">false</OpenApiMcpAnalyzers>',
    '  </PropertyGroup>',
    '  <Target Name="OpenApiMcpWithoutAnalyzers" BeforeTargets="CoreCompile" Condition="\'$(OpenApiMcpAnalyzers)\' != \'true\'">',
    '    <ItemGroup>',
    '      <Analyzer Remove="@(Analyzer)" Condition="\'%(Filename)\' != \'System.Text.RegularExpressions.Generator\'" />',
    '    </ItemGroup>',
    '  </Target>',
    '',
    '  <ItemGroup>',
    ...[...packages.values()].map((p) => `    <PackageReference Include="${p.id}" Version="${p.version}" />`),
    '  </ItemGroup>',
    '',
    '  <ItemGroup>',
    '    <None Update="appsettings.json" CopyToOutputDirectory="PreserveNewest" />',
    `    <EmbeddedResource Include="${INPUT_SCHEMAS_FILE}" LogicalName="${INPUT_SCHEMAS_FILE}" Condition="Exists('${INPUT_SCHEMAS_FILE}')" />`,
    ...features.flatMap((feature) => feature.items?.(options) ?? []),
    '  </ItemGroup>',
    '',
    ...features.flatMap((feature) => feature.project?.(options, projectName) ?? []),
    '</Project>',
    '',
  ].join('\n');
}
