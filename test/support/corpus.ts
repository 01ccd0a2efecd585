/**
 * Generates real-world specs as a user would (the `client` and `tools` commands) and compiles the
 * results in batches: one class-library project per batch, each spec in its own folder and namespace,
 * so every compiler diagnostic can be traced to its spec.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runCli, PACKAGES } from '../../src/index.js';

const run = promisify(execFile);

export interface SpecOutcome {
  readonly id: string;
  readonly folder: string;
  readonly exitCode: number;
  readonly stderr: string;
  readonly seconds: number;
  readonly toolNames: string[];
  readonly warnings: number;
}

/** Runs `client` then `tools` for one spec into `folder`; namespaces `<ns>.Client` and `<ns>`. */
export async function generateSpec(id: string, specPath: string, folder: string, namespace: string): Promise<SpecOutcome> {
  let stderr = '';
  let toolsErr = '';
  const started = performance.now();
  await mkdir(folder, { recursive: true });
  let exitCode = await runCli(['client', '-u', specPath, '-o', join(folder, 'Client'), '-n', `${namespace}.Client`], { out: () => {}, err: (t) => void (stderr += t) });
  if (exitCode === 0) {
    const args = ['tools', '--openapi-url', specPath, '--output-file', join(folder, 'McpTools.g.cs'), '--namespace', namespace, '--server-name', namespace, '--ext-namespace', `${namespace}.Client`];
    exitCode = await runCli(args, { out: () => {}, err: (t) => void (toolsErr += t) });
    if (exitCode !== 0) stderr += toolsErr;
  }
  const seconds = (performance.now() - started) / 1000;
  const toolNames = exitCode === 0 ? [...(await readFile(join(folder, 'McpTools.g.cs'), 'utf8')).matchAll(/\[McpServerTool\(Name = "([^"]*)"/g)].map((m) => m[1] ?? '') : [];
  const warnings = stderr.split('\n').filter((l) => l.startsWith('warning:')).length;
  return { id, folder, exitCode, stderr, seconds, toolNames, warnings };
}

/** Problems with a spec's tool names: pattern, uniqueness. */
export function toolNameProblems(names: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (!/^[a-z0-9_]{1,64}$/.test(name)) problems.push(`invalid tool name ${JSON.stringify(name)}`);
    if (seen.has(name)) problems.push(`duplicate tool name ${name}`);
    seen.add(name);
  }
  return problems;
}

export interface CompilerDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly severity: 'error' | 'warning';
  readonly code: string;
  readonly message: string;
}

/** Writes a class-library project over `directory` and builds it; returns the diagnostics. */
export async function buildBatch(directory: string, framework: string): Promise<{ diagnostics: CompilerDiagnostic[]; seconds: number; output: string }> {
  const project = [
    '<Project Sdk="Microsoft.NET.Sdk">',
    '  <PropertyGroup>',
    `    <TargetFramework>${framework}</TargetFramework>`,
    '    <Nullable>enable</Nullable>',
    '    <ImplicitUsings>disable</ImplicitUsings>',
    '    <OutputType>Library</OutputType>',
    '    <SatelliteResourceLanguages>en</SatelliteResourceLanguages>',
    '    <GenerateDocumentationFile>false</GenerateDocumentationFile>',
    '  </PropertyGroup>',
    '  <ItemGroup>',
    ...PACKAGES.filter((p) => p.id === 'ModelContextProtocol').map((p) => `    <PackageReference Include="${p.id}" Version="${p.version}" />`),
    '  </ItemGroup>',
    '</Project>',
    '',
  ].join('\n');
  await writeFile(join(directory, 'Batch.csproj'), project);
  const started = performance.now();
  let output: string;
  try {
    const { stdout, stderr } = await run('dotnet', ['build', directory, '-nologo', '-clp:NoSummary', '-v:q', '-p:WarningLevel=4'], { maxBuffer: 512 * 1024 * 1024 });
    output = stdout + stderr;
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    output = (failure.stdout ?? '') + (failure.stderr ?? '');
  }
  return { diagnostics: parseDiagnostics(output), seconds: (performance.now() - started) / 1000, output };
}

/** `path(line,col): error CS0000: message [project]` lines, each once. */
export function parseDiagnostics(output: string): CompilerDiagnostic[] {
  const seen = new Set<string>();
  const result: CompilerDiagnostic[] = [];
  for (const match of output.matchAll(/^\s*(.+?)\((\d+),\d+\): (error|warning) ([A-Z]+\d+): (.*?)(?: \[[^\]]*\])?$/gm)) {
    const key = match[0].trim();
    if (seen.has(key)) continue;
    seen.add(key);
    result.push({ file: match[1] ?? '', line: Number(match[2]), severity: match[3] as 'error' | 'warning', code: match[4] ?? '', message: match[5] ?? '' });
  }
  return result;
}
