/**
 * Generated projects for the runtime sweep: `init` for each spec as a user would, then one
 * `dotnet build -c Release` of a solution holding them all (one restore, one build).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { credentialVariables, environmentVariables, planNames, prepare, projectName, runCli } from '../../../src/index.js';
import type { OperationInfo } from './classify.js';

const run = promisify(execFile);

export interface SpecInput {
  readonly id: string;
  /** The spec the generator and the mock both read. */
  readonly path: string;
}

export interface PreparedSpec extends SpecInput {
  readonly directory: string;
  readonly serverName: string;
  /** The Release build's DLL. */
  readonly dll: string;
  /** Settings for the server: dummy values for every credential variable its mcp.json names. */
  readonly settings: Record<string, string>;
  /** The base URL and timeout settings. */
  readonly baseUrlVariable: string;
  readonly timeoutVariable: string;
  /** The operation behind each tool name. */
  readonly operations: ReadonlyMap<string, OperationInfo>;
  /** Why `init` failed, if it did. */
  readonly error?: string;
}

/** Runs `init` for every spec into `work/<n>` (or, with `reuse`, takes what an earlier run generated and built there). */
export async function generateProjects(inputs: readonly SpecInput[], work: string, framework: string, reuse = false): Promise<PreparedSpec[]> {
  const prepared: PreparedSpec[] = [];
  for (const [index, input] of inputs.entries()) {
    const serverName = `Sweep ${index + 1}`;
    const directory = join(work, `s${index + 1}`);
    let stderr = '';
    const code = reuse ? 0 : await runCli(['init', '--openapi-url', input.path, '--server-name', serverName, '--output-dir', directory, '--framework', framework], { out: () => {}, err: (t) => void (stderr += t) });
    const settings: Record<string, string> = {};
    const operations = new Map<string, OperationInfo>();
    if (code === 0) {
      const api = await prepare(input.path);
      const plan = planNames(api.model);
      for (const op of api.model.operations) {
        const names = plan.operations.get(op.id);
        const continuations = [names?.nextLink, names?.operation].filter((name): name is string => name !== undefined);
        operations.set(names?.toolName ?? '', { method: op.method, path: op.path, ...(continuations.length > 0 && { continuations }) });
      }
      // OAuth2 client credentials: a token obtained elsewhere, as a user without the token service would give.
      for (const scheme of api.model.securitySchemes) {
        const token = credentialVariables(serverName, scheme).accessToken;
        if (token) settings[token] = `dummy-${token.toLowerCase()}`;
      }
      const config = JSON.parse(await readFile(join(directory, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, { env?: Record<string, string> }> };
      for (const entry of Object.values(config.mcpServers)) for (const name of Object.keys(entry.env ?? {})) settings[name] = `dummy-${name.toLowerCase()}`;
    }
    const variables = environmentVariables(serverName);
    prepared.push({
      ...input, directory, serverName, settings, operations,
      dll: join(directory, 'bin', 'Release', framework, `${projectName(serverName)}.dll`),
      baseUrlVariable: variables.baseUrl,
      timeoutVariable: variables.timeout,
      ...(code !== 0 && { error: stderr.trim().split('\n').filter((l) => !l.startsWith('warning:')).join(' ') || `init exited with ${code}` }),
    });
  }
  return prepared;
}

/** Builds every generated project in one `dotnet build` of a solution; returns the build's output. */
export async function buildProjects(prepared: readonly PreparedSpec[], work: string): Promise<{ ok: boolean; output: string; seconds: number }> {
  const started = performance.now();
  const projects = prepared.filter((p) => p.error === undefined).map((p) => join(p.directory, `${projectName(p.serverName)}.csproj`));
  let output = '';
  try {
    await run('dotnet', ['new', 'sln', '--name', 'Sweep', '--format', 'sln', '--output', work, '--force'], { maxBuffer: 64 * 1024 * 1024 });
    for (let i = 0; i < projects.length; i += 50) {
      await run('dotnet', ['sln', join(work, 'Sweep.sln'), 'add', ...projects.slice(i, i + 50)], { maxBuffer: 64 * 1024 * 1024 });
    }
    const build = await run('dotnet', ['build', join(work, 'Sweep.sln'), '-c', 'Release', '-nologo', '-clp:NoSummary', '-v:q'], { maxBuffer: 256 * 1024 * 1024 });
    output = build.stdout + build.stderr;
    return { ok: true, output, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message?: string };
    output = (failure.stdout ?? '') + (failure.stderr ?? '') || (failure.message ?? '');
    return { ok: false, output, seconds: (performance.now() - started) / 1000 };
  }
}
