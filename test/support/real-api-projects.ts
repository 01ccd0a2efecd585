/** The generated projects of the real-API tests: written by `init` into a work folder, built together, started by the dll. */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../../src/index.js';
import { detectFramework } from '../../src/dotnet.js';
import { environmentVariables } from '../../src/names/environment.js';

/** `init` of `spec` into `work/folder`, as the command line runs it: its exit code and what it wrote on stderr. */
export async function initProject(work: string, spec: string, serverName: string, folder: string, ...more: string[]): Promise<{ code: number; errors: string }> {
  let errors = '';
  const code = await runCli(['init', '--openapi-url', spec, '--server-name', serverName, '--output-dir', join(work, folder), ...more], { out: () => {}, err: (text: string) => void (errors += text) });
  return { code, errors };
}

/**
 * One `dotnet build` (Debug, warnings as errors) of the projects (paths relative to `work`), each in a solution folder of
 * its own so that projects of the same name can sit side by side: the build's output, or `build failed:` and why.
 */
export async function buildProjects(work: string, projects: readonly string[]): Promise<string> {
  const entries = projects.map((path) => `  <Folder Name="/${dirname(path)}/">\n    <Project Path="${path}" />\n  </Folder>\n`);
  await writeFile(join(work, 'all.slnx'), `<Solution>\n${entries.join('')}</Solution>\n`);
  return promisify(execFile)('dotnet', ['build', join(work, 'all.slnx'), '-warnaserror', '-nologo', '-clp:NoSummary'], { maxBuffer: 64 * 1024 * 1024 })
    .then(({ stdout }) => stdout, (error: { stdout?: string; stderr?: string }) => `build failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
}

/** How to start a built project: `dotnet <its dll>`. */
export function projectDll(work: string, folder: string, assembly: string): { command: string; args: string[] } {
  return { command: 'dotnet', args: [join(work, folder, 'bin/Debug', detectFramework(), `${assembly}.dll`)] };
}

/** The credential variable a project asks for, as its mcp.json entry names it (a placeholder there), or ''. */
export async function credentialVariable(work: string, folder: string, serverName: string): Promise<string> {
  const entry = JSON.parse(await readFile(join(work, folder, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, { env?: Record<string, string> }> };
  return Object.keys(Object.values(entry.mcpServers)[0]?.env ?? {}).find((name) => name !== environmentVariables(serverName).baseUrl) ?? '';
}
