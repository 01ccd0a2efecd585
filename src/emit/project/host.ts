import type { GeneratedFile } from '../shared/file.js';
import type { HostOptions } from '../shared/host-options.js';
import { HOST_FEATURES } from './features.js';
import { emitProgram } from './program.js';
import { emitSettings, SETTINGS_CLASS } from './settings.js';
import { msbuildLiteral as literal } from './msbuild.js';
import { supportPath, type HostFeature } from '../shared/feature.js';
import { emitGeneratedProject, projectProperties, withoutAnalyzersTarget } from './generated-project.js';
import { GENERATED_FOLDER, GENERATED_SOURCES, generatedProjectFile } from './layout.js';

export { PACKAGES, HTTP_PACKAGES } from './core.js';
export { AZURE_PACKAGES } from './credentials.js';
export { serverKey, TOOL_MODES, TRANSPORTS, type HostOptions, type ToolMode, type Transport } from '../shared/host-options.js';

/**
 * The project that hosts the tools: a console app over stdio (SPEC 4.4), or an ASP.NET Core app over HTTP with
 * what deploys it (Dockerfile, Kubernetes manifest); packed as a NuGet MCP server when asked. Program.cs and the
 * project file at the root; the support files, McpSettings.g.cs among them, in Mcp/; the project that compiles the
 * generated code in Generated/ (layout.ts).
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
    { path: generatedProjectFile(projectName), content: emitGeneratedProject(options, projectName, features) },
    { path: 'Program.cs', content: emitProgram(options, parts((f) => f.program?.(options))) },
    { path: supportPath(`${SETTINGS_CLASS}.g.cs`), content: emitSettings(options, parts((f) => f.settings?.(options))) },
    ...features.flatMap((feature) => feature.files?.(options, source, projectName) ?? []),
  ];
}

/** The host's project file: Program.cs and the user's own code, over the generated code's project. */
function emitProject(options: HostOptions, projectName: string, features: readonly HostFeature[]): string {
  return [
    `<Project Sdk="${options.transport === 'http' ? 'Microsoft.NET.Sdk.Web' : 'Microsoft.NET.Sdk'}">`,
    '',
    ...projectProperties(options, projectName, [
      '    <OutputType>Exe</OutputType>',
      '    <!-- A server has no project that compiles against it: no reference assembly to write. -->',
      '    <ProduceReferenceAssembly>false</ProduceReferenceAssembly>',
      `    <!-- ${GENERATED_FOLDER}/ is the generated code's project, with its own bin/ and obj/. -->`,
      `    <DefaultItemExcludes>$(DefaultItemExcludes);${GENERATED_FOLDER}/**</DefaultItemExcludes>`,
    ]),
    '',
    '  <!-- Code you add that wants analyzers or source generators (CA rules, [LoggerMessage], [JsonSerializable]): set',
    '       OpenApiMcpAnalyzers to true, here or with -p:OpenApiMcpAnalyzers=true. Without them the build is quicker. -->',
    '  <PropertyGroup>',
    '    <OpenApiMcpAnalyzers Condition="\'$(OpenApiMcpAnalyzers)\' == \'\'">false</OpenApiMcpAnalyzers>',
    '  </PropertyGroup>',
    ...withoutAnalyzersTarget('\'$(OpenApiMcpAnalyzers)\' != \'true\''),
    '',
    `  <!-- The generated code compiles in ${generatedProjectFile(projectName)} (its packages come with it): an edit here`,
    '       compiles this project alone. Its files are those it takes (every *.g.cs, and Mcp/), left out here. -->',
    '  <ItemGroup>',
    `    <Compile Remove="${GENERATED_SOURCES.map((s) => s.include).join(';')}" />`,
    `    <ProjectReference Include="${literal(generatedProjectFile(projectName))}" />`,
    '  </ItemGroup>',
    '',
    '  <ItemGroup>',
    '    <None Update="appsettings.json" CopyToOutputDirectory="PreserveNewest" />',
    '  </ItemGroup>',
    '',
    ...features.flatMap((feature) => feature.project?.(options, projectName) ?? []),
    '</Project>',
    '',
  ].join('\n');
}
