/**
 * Regeneration on build: `init` records the spec, its overlays and the options in `openapi-mcp.json`, and the generated
 * code's project (layout.ts) runs `openapi-mcp-dotnet regenerate` before compiling whenever one of those files is newer
 * than the files it writes. The command is the `OpenApiMcpGenerator` property: by default the generator that wrote the
 * project, as it was run (this machine's node and the package's bin script), which `init` writes to
 * `Generated/<Name>.Generated.csproj.user`, the file MSBuild reads beside a project for one user's settings; nothing is
 * ever fetched from a registry unless the user says so.
 */
import type { GeneratedFile } from '../shared/file.js';
import { basename } from 'node:path';
import { fromGeneratedProject, generatedCompileItems, generatedSources } from './generated-project.js';
import { generatedProjectFile } from './layout.js';
import type { RegenerationTarget } from '../shared/host-options.js';

export type { RegenerationTarget };

/** The record of what the project's generated sources were made from, beside the .csproj. */
export const RECORD_FILE = 'openapi-mcp.json';

/** What `regenerate` needs to write the client and the tools again as `init` wrote them. */
export interface GenerationRecord {
  /** The generator that wrote the project, `openapi-mcp-dotnet@<version>`. */
  readonly generator: string;
  /** The spec: a path relative to the project directory, or a URL. */
  readonly spec: string;
  /** The overlay files applied to the spec, in order, relative to the project directory. */
  readonly overlays?: readonly string[];
  readonly serverName: string;
  readonly options: {
    readonly tags?: readonly string[];
    readonly include?: readonly string[];
    readonly exclude?: readonly string[];
    readonly readOnly?: boolean;
    readonly mode?: string;
    /** `hybrid`: the host's search_operations is hybrid (the sources are the same; recorded as the project was made). */
    readonly search?: string;
    readonly structuredOutput?: boolean;
    readonly confirm?: string;
    readonly resources?: boolean;
    readonly allowExternalRefs?: boolean;
  };
}

export function emitRecord(record: GenerationRecord): GeneratedFile {
  return { path: RECORD_FILE, content: JSON.stringify(record, null, 2) + '\n' };
}

/**
 * The machine-local file MSBuild imports beside a project (Microsoft.Common.targets: `$(MSBuildProjectFullPath).user`):
 * beside the generated code's project, which regenerates.
 */
export const userProjectFile = (projectName: string): string => `${generatedProjectFile(projectName)}.user`;

/**
 * The generated project's target: before each build, when the spec, an overlay or the record is newer than any of
 * `outputs` (the files `regenerate` writes), it runs the generator in the host's folder, then compiles what it wrote;
 * where no generator is set (a clone without the `.csproj.user` that `init` wrote), it compiles the files as they are.
 * `literal` writes a value as MSBuild reads it literally.
 */
export function regenerationProjectLines(target: RegenerationTarget, projectName: string, literal: (text: string) => string): string[] {
  const overlays = target.overlays.map((path) => literal(fromGeneratedProject(path))).join(';');
  return [
    `  <!-- Regeneration: when the spec${target.overlays.length > 0 ? ', an overlay' : ''} or ${RECORD_FILE} (the generator's options) is newer than the generated files,`,
    ...(target.generator === undefined ? [
      `       the build first writes the client and the tools again with the command in OpenApiMcpGenerator, which ${basename(userProjectFile(projectName))}`,
      '       sets to the node and openapi-mcp-dotnet that wrote the project (this machine\'s: keep that file out of source control).',
      '       Where it is not set, the build compiles the generated files as they are. Set it with',
    ] : [
      '       the build first writes the client and the tools again with the command in OpenApiMcpGenerator. Use another with',
    ]),
    '       -p:OpenApiMcpGenerator="node path/to/bin/openapi-mcp-dotnet.js"; opt out with -p:OpenApiMcpRegenerate=false.',
    '       Paths are from this folder: the spec and the generated files are in the folder above. -->',
    '  <PropertyGroup>',
    "    <OpenApiMcpRegenerate Condition=\"'$(OpenApiMcpRegenerate)' == ''\">true</OpenApiMcpRegenerate>",
    ...(target.generator === undefined ? [] : [`    <OpenApiMcpGenerator Condition="'$(OpenApiMcpGenerator)' == ''">${literal(target.generator)}</OpenApiMcpGenerator>`]),
    `    <OpenApiMcpSpec>${literal(fromGeneratedProject(target.spec))}</OpenApiMcpSpec>`,
    ...(target.overlays.length > 0 ? [`    <OpenApiMcpOverlays>${overlays}</OpenApiMcpOverlays>`] : []),
    '  </PropertyGroup>',
    '',
    '  <ItemGroup>',
    ...target.outputs.map((path) => `    <OpenApiMcpGenerated Include="${literal(fromGeneratedProject(path))}" />`),
    '  </ItemGroup>',
    '',
    "  <Target Name=\"OpenApiMcpRegenerate\" BeforeTargets=\"BeforeBuild\" Condition=\"'$(OpenApiMcpRegenerate)' == 'true' and '$(OpenApiMcpGenerator)' != ''\"",
    `          Inputs="$(OpenApiMcpSpec);${target.overlays.length > 0 ? '$(OpenApiMcpOverlays);' : ''}${fromGeneratedProject(RECORD_FILE)}" Outputs="@(OpenApiMcpGenerated)">`,
    '    <!-- Its output stays out of the build\'s (`dotnet run`, as a client starts the server, shares stdout with MCP), and its',
    '         warnings are not build warnings; when it fails, the build fails with what it said. -->',
    '    <Exec Command="$(OpenApiMcpGenerator) regenerate" WorkingDirectory="$(MSBuildProjectDirectory)/.." IgnoreExitCode="true"',
    '          IgnoreStandardErrorWarningFormat="true" ConsoleToMSBuild="true" StandardOutputImportance="low" StandardErrorImportance="low">',
    '      <Output TaskParameter="ExitCode" PropertyName="OpenApiMcpExitCode" />',
    '      <Output TaskParameter="ConsoleOutput" ItemName="OpenApiMcpOutput" />',
    '    </Exec>',
    "    <Error Condition=\"'$(OpenApiMcpExitCode)' != '0'\" Text=\"$(OpenApiMcpGenerator) regenerate failed (exit code $(OpenApiMcpExitCode)): @(OpenApiMcpOutput, ' ')\" />",
    '    <!-- What it wrote, new files of the client among them, is compiled. -->',
    '    <ItemGroup>',
    `      <Compile Remove="${generatedSources()}" />`,
    ...generatedCompileItems('      '),
    '    </ItemGroup>',
    '  </Target>',
    '',
  ];
}

/**
 * `<Name>.csproj.user`: this machine's generator, the one that wrote the project, for regeneration on build. MSBuild
 * reads it after the project file, so a value set in the project, a Directory.Build.props or with -p: wins.
 */
export function emitUserProject(projectName: string, command: string, literal: (text: string) => string): GeneratedFile {
  return {
    path: userProjectFile(projectName),
    content: [
      '<Project>',
      '',
      `  <!-- This machine's: the openapi-mcp-dotnet that wrote ${projectName}.csproj, run as it was (node and its bin script),`,
      `       regenerates the client and the tools on build when the spec changes (see ${basename(generatedProjectFile(projectName))}). Keep this file out of source`,
      '       control (dotnet new gitignore does); on another machine, write your own or set OpenApiMcpGenerator there. -->',
      '  <PropertyGroup>',
      `    <OpenApiMcpGenerator Condition="'$(OpenApiMcpGenerator)' == ''">${literal(command)}</OpenApiMcpGenerator>`,
      '  </PropertyGroup>',
      '',
      '</Project>',
      '',
    ].join('\n'),
  };
}

/**
 * A command line that runs `node` with `script` in the shell MSBuild's Exec task uses on this platform (cmd.exe on
 * Windows, /bin/sh elsewhere): each path as one word, quoted only when it needs to be.
 */
export function generatorCommand(generator: { readonly node: string; readonly script: string }, platform: NodeJS.Platform = process.platform): string {
  const word = platform === 'win32'
    ? (path: string): string => (/^[\w:\\.-]+$/.test(path) ? path : `"${path.replace(/%/g, '%%')}"`)
    : (path: string): string => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`);
  return `${word(generator.node)} ${word(generator.script)}`;
}
