/**
 * Regeneration on build: `init` records the spec and the options in `openapi-mcp.json`, and the .csproj runs
 * `openapi-mcp-dotnet regenerate` before compiling whenever the spec or that record is newer than the files it writes.
 */
import type { GeneratedFile } from './file.js';

/** The record of what the project's generated sources were made from, beside the .csproj. */
export const RECORD_FILE = 'openapi-mcp.json';

/** What `regenerate` needs to write the client and the tools again as `init` wrote them. */
export interface GenerationRecord {
  /** The generator that wrote the project, `openapi-mcp-dotnet@<version>`. */
  readonly generator: string;
  /** The spec: a path relative to the project directory, or a URL. */
  readonly spec: string;
  readonly serverName: string;
  readonly options: {
    readonly tags?: readonly string[];
    readonly include?: readonly string[];
    readonly exclude?: readonly string[];
    readonly readOnly?: boolean;
    readonly mode?: string;
    readonly structuredOutput?: boolean;
    readonly allowExternalRefs?: boolean;
  };
}

export function emitRecord(record: GenerationRecord): GeneratedFile {
  return { path: RECORD_FILE, content: JSON.stringify(record, null, 2) + '\n' };
}

/**
 * The .csproj target: before each build, when the spec (relative to the project) or the record is newer than any of
 * `outputs` (the files `regenerate` writes), it runs the generator, then compiles what it wrote. `generator` is the
 * default command; `literal` writes a value as MSBuild reads it literally.
 */
export function regenerationProjectLines(target: { spec: string; generator: string; outputs: readonly string[] }, literal: (text: string) => string): string[] {
  return [
    `  <!-- Regeneration: when the spec or ${RECORD_FILE} (the generator and its options) is newer than the generated files,`,
    '       the build first writes the client and the tools again. Opt out with -p:OpenApiMcpRegenerate=false; use another',
    '       generator with -p:OpenApiMcpGenerator="node path/to/bin/openapi-mcp-dotnet.js". -->',
    '  <PropertyGroup>',
    "    <OpenApiMcpRegenerate Condition=\"'$(OpenApiMcpRegenerate)' == ''\">true</OpenApiMcpRegenerate>",
    `    <OpenApiMcpGenerator Condition="'$(OpenApiMcpGenerator)' == ''">${literal(target.generator)}</OpenApiMcpGenerator>`,
    `    <OpenApiMcpSpec>${literal(target.spec)}</OpenApiMcpSpec>`,
    '  </PropertyGroup>',
    '',
    '  <ItemGroup>',
    ...target.outputs.map((path) => `    <OpenApiMcpGenerated Include="${literal(path)}" />`),
    '  </ItemGroup>',
    '',
    "  <Target Name=\"OpenApiMcpRegenerate\" BeforeTargets=\"BeforeBuild\" Condition=\"'$(OpenApiMcpRegenerate)' == 'true'\"",
    `          Inputs="$(OpenApiMcpSpec);${RECORD_FILE}" Outputs="@(OpenApiMcpGenerated)">`,
    '    <!-- Its output stays out of the build\'s (`dotnet run`, as a client starts the server, shares stdout with MCP), and its',
    '         warnings are not build warnings; when it fails, the build fails with what it said. -->',
    '    <Exec Command="$(OpenApiMcpGenerator) regenerate" WorkingDirectory="$(MSBuildProjectDirectory)" IgnoreExitCode="true"',
    '          IgnoreStandardErrorWarningFormat="true" ConsoleToMSBuild="true" StandardOutputImportance="low" StandardErrorImportance="low">',
    '      <Output TaskParameter="ExitCode" PropertyName="OpenApiMcpExitCode" />',
    '      <Output TaskParameter="ConsoleOutput" ItemName="OpenApiMcpOutput" />',
    '    </Exec>',
    "    <Error Condition=\"'$(OpenApiMcpExitCode)' != '0'\" Text=\"$(OpenApiMcpGenerator) regenerate failed (exit code $(OpenApiMcpExitCode)): @(OpenApiMcpOutput, ' ')\" />",
    '    <ItemGroup>',
    '      <Compile Remove="McpTools.g.cs;Client/*.g.cs" />',
    '      <Compile Include="McpTools.g.cs;Client/*.g.cs" />',
    '    </ItemGroup>',
    '  </Target>',
    '',
  ];
}
