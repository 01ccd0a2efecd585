/**
 * The generated code's project, `Generated/<Name>.Generated.csproj` (layout.ts): a class library of McpTools.g.cs,
 * the client and the support files, with the packages they use, the files they read embedded, and regeneration on
 * build. Its sources are in the host's folder, one level up; the host sees its internal classes (McpSettings,
 * McpHostSetup, …) through InternalsVisibleTo.
 */
import { posix, win32 } from 'node:path';
import type { HostOptions } from '../shared/host-options.js';
import type { HostFeature, Package } from '../shared/feature.js';
import { msbuildLiteral as literal } from './msbuild.js';
import { GENERATED_SOURCES, generatedProjectName } from './layout.js';

/**
 * A path from the host's folder as the generated project reads it, from its own folder one level down; an absolute
 * one (a spec on another drive) as it is.
 */
export const fromGeneratedProject = (path: string): string => (posix.isAbsolute(path) || win32.isAbsolute(path) ? path : `../${path}`);

/** The target that leaves out every analyzer and source generator but the regular-expression one, when `condition` holds. */
export const withoutAnalyzersTarget = (condition?: string): string[] => [
  `  <Target Name="OpenApiMcpWithoutAnalyzers" BeforeTargets="CoreCompile"${condition === undefined ? '' : ` Condition="${condition}"`}>`,
  '    <ItemGroup>',
  '      <Analyzer Remove="@(Analyzer)" Condition="\'%(Filename)\' != \'System.Text.RegularExpressions.Generator\'" />',
  '    </ItemGroup>',
  '  </Target>',
];

/** The generated sources' globs as the generated project reads them, all of them (to remove them). */
export const generatedSources = (): string => GENERATED_SOURCES.map((s) => fromGeneratedProject(s.include)).join(';');

/** The Compile items of the generated sources, at `indent`: in the project, and again after regeneration wrote them. */
export const generatedCompileItems = (indent: string): string[] => GENERATED_SOURCES.map((s) => `${indent}<Compile Include="${fromGeneratedProject(s.include)}"${s.exclude ? ` Exclude="${s.exclude.map(fromGeneratedProject).join(';')}"` : ''} />`);

/** The first property group of either project, with `more` of its own, and the Release one (reproducible builds). */
export function projectProperties(options: HostOptions, assemblyName: string, more: readonly string[], sourceRoot = '$(MSBuildProjectDirectory)'): string[] {
  return [
    '  <PropertyGroup>',
    `    <TargetFramework>${literal(options.framework)}</TargetFramework>`,
    '    <Nullable>enable</Nullable>',
    '    <ImplicitUsings>disable</ImplicitUsings>',
    `    <RootNamespace>${literal(options.namespace)}</RootNamespace>`,
    `    <AssemblyName>${literal(assemblyName)}</AssemblyName>`,
    '    <SatelliteResourceLanguages>en</SatelliteResourceLanguages>',
    ...more,
    '  </PropertyGroup>',
    '',
    '  <!-- What is published or packed (Release) names no folder of the machine that built it: the same sources give',
    '       the same assembly, and its debug information points at /_/ instead of this folder. -->',
    '  <PropertyGroup Condition="\'$(Configuration)\' == \'Release\'">',
    '    <Deterministic>true</Deterministic>',
    `    <PathMap>${sourceRoot}=/_</PathMap>`,
    '  </PropertyGroup>',
  ];
}

export function emitGeneratedProject(options: HostOptions, projectName: string, features: readonly HostFeature[]): string {
  const packages = new Map<string, Package>();
  for (const p of features.flatMap((feature) => feature.packages?.(options) ?? [])) packages.set(p.id, p);
  const embedded = features.flatMap((feature) => feature.embedded?.(options) ?? []);
  return [
    '<Project Sdk="Microsoft.NET.Sdk">',
    '',
    `  <!-- The generated code of ${literal(projectName)}.csproj, which references this project: built again only when it changes,`,
    '       not on each edit of the host\'s own code. Its files are in the folder above (openapi-mcp-dotnet writes them there).',
    '       Your own parts of its partial classes (a tool written by hand in McpTools) go in this folder: a partial class is',
    '       compiled whole, in one assembly, and the .cs files here compile with the generated ones. -->',
    ...projectProperties(options, generatedProjectName(projectName), [
      '    <!-- Referenced by the server alone: no reference assembly to write (on a large API, seconds). -->',
      '    <ProduceReferenceAssembly>false</ProduceReferenceAssembly>',
    ], '$([System.IO.Path]::GetFullPath(\'$(MSBuildProjectDirectory)/..\'))'),
    '',
    '  <!-- The generated code needs no analyzer and no source generator but the regular-expression one, and on a large API',
    '       they take a quarter of the build. -->',
    ...withoutAnalyzersTarget(),
    '',
    '  <ItemGroup>',
    ...(options.transport === 'http' ? ['    <FrameworkReference Include="Microsoft.AspNetCore.App" />'] : []),
    ...[...packages.values()].map((p) => `    <PackageReference Include="${p.id}" Version="${p.version}" />`),
    '  </ItemGroup>',
    '',
    '  <ItemGroup>',
    ...generatedCompileItems('    '),
    ...embedded.map((e) => {
      const file = literal(fromGeneratedProject(e.file));
      return `    <EmbeddedResource Include="${file}" LogicalName="${literal(e.name)}"${e.optional ? ` Condition="Exists('${file}')"` : ''} />`;
    }),
    `    <InternalsVisibleTo Include="${literal(projectName)}" />`,
    '  </ItemGroup>',
    '',
    ...features.flatMap((feature) => feature.generatedProject?.(options, projectName) ?? []),
    '</Project>',
    '',
  ].join('\n');
}
