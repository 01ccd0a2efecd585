/**
 * `bundle`: an `init` project as an MCP Bundle (`.mcpb`), which Claude Desktop installs with one click. The project is
 * published (`dotnet publish -c Release`) into `bin/mcpb/server/`: by default once, framework-dependent, started as
 * `dotnet <Name>.dll`; with runtimes, one self-contained single-file executable per runtime. Beside it go
 * `manifest.json` (./emit/project/mcpb.ts) and the icon; the official mcpb CLI validates the manifest and packs the
 * folder. Settings files (appsettings*.json) are left out of the bundle: its settings are what the user types into
 * Claude Desktop, so no credential of the machine that bundles it goes along.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { link, mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { GeneratorError } from './errors.js';
import { describeIoError } from './load/source.js';
import { loadRecorded } from './regenerate.js';
import { prepare, projectName, type PreparedApi } from './generate.js';
import type { LoadOptions } from './load/document.js';
import { planNames } from './names/plan.js';
import { kebabName } from './names/identifiers.js';
import { selectOperations } from './select.js';
import type { ToolMode } from './emit/shared/host-options.js';
import { emitMcpbManifest, MCPB_ICON, MCPB_MANIFEST, MCPB_SERVER_FOLDER, platformOf, RUNTIME_PATTERN } from './emit/project/mcpb.js';

/** The official mcpb CLI run by npx when it is not installed beside the generator. */
export const MCPB_PACKAGE = '@anthropic-ai/mcpb@2.1.2';
/** Where the bundle's folder is made, under the project (bin/ is out of the project's own items). */
export const STAGING_FOLDER = 'bin/mcpb';

export interface BundleOptions {
  readonly projectDir: string;
  /** The `.mcpb` file; by default `<project>/<name>.mcpb`. */
  readonly output?: string;
  /** .NET runtime identifiers of self-contained executables, one per platform; none: framework-dependent. */
  readonly runtimes?: readonly string[];
  /** Replace an existing bundle. */
  readonly force?: boolean;
  /** The manifest's author; by default the spec's contact name, else its title. */
  readonly author?: string;
  /** A PNG file; by default the spec's logo when it is a PNG data: URI. */
  readonly icon?: string;
  /** The mcpb command (words separated by spaces); by default the installed package, else npx. */
  readonly mcpb?: string;
  /** Progress lines. */
  readonly log?: (line: string) => void;
}

export interface Bundle {
  readonly output: string;
  readonly bytes: number;
  readonly tools: number;
  readonly runtimes: readonly string[];
}

export async function bundle(options: BundleOptions, load: (input: string, options: LoadOptions) => Promise<PreparedApi> = prepare): Promise<Bundle> {
  const log = options.log ?? (() => {});
  const directory = resolve(options.projectDir);
  const runtimes = checkRuntimes(options.runtimes ?? []);
  const { record, api } = await loadRecorded(directory, load, 'bundle');
  const assembly = projectName(record.serverName);
  const framework = await projectFramework(directory, assembly);
  const output = resolve(options.output ?? join(directory, `${kebabName(record.serverName)}.mcpb`));
  if (existsSync(output) && options.force !== true) throw new GeneratorError('output', 'exists: pass --force to replace it', output);
  const icon = await iconBytes(options.icon, api);
  if (icon === undefined && api.model.icon !== undefined) log(`The spec's logo (${api.model.icon.src.slice(0, 80)}) is not a PNG data: URI: Claude Desktop shows a bundle's icon from a PNG file in it; give one with --icon`);

  const plan = planNames(api.model);
  const { selected } = selectOperations(api.model, plan, record.options);
  const staging = join(directory, STAGING_FOLDER);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  for (const runtime of runtimes.length === 0 ? [undefined] : runtimes) {
    const folder = join(staging, MCPB_SERVER_FOLDER, ...(runtime === undefined ? [] : [runtime]));
    log(`Publishing ${assembly} ${runtime === undefined ? 'framework-dependent, for any platform with .NET' : `for ${runtime} (self-contained, single file)`}…`);
    await run('dotnet', ['publish', join(directory, `${assembly}.csproj`), '-c', 'Release', '-o', folder, '-nologo', '-v:q', '-clp:NoSummary',
      ...(runtime === undefined ? ['-p:RollForward=Major', '-p:UseAppHost=false'] : ['-r', runtime, '--self-contained', '-p:PublishSingleFile=true'])], 'dotnet publish');
    // The machine's own settings (a key in appsettings.json) stay on it.
    for (const file of await readdir(folder)) if (/^appsettings(\.[^/]*)?\.json$/i.test(file)) await rm(join(folder, file));
  }
  if (icon !== undefined) await writeFile(join(staging, MCPB_ICON), icon);
  const info = api.spec.root.info as { contact?: { name?: unknown }; description?: unknown } | undefined;
  const contact = typeof info?.contact?.name === 'string' ? info.contact.name.trim().slice(0, 200) : '';
  const author = options.author?.trim() || contact || api.model.title.trim() || record.serverName;
  const apiDescription = typeof info?.description === 'string' ? info.description : undefined;
  await writeFile(join(staging, MCPB_MANIFEST), emitMcpbManifest({
    serverName: record.serverName, model: api.model, plan, operations: selected, mode: (record.options.mode ?? 'operations') as ToolMode,
    assembly, framework, runtimes, author, icon: icon !== undefined, ...(apiDescription !== undefined && { apiDescription }),
  }));

  const mcpb = mcpbCommand(options.mcpb);
  await run(mcpb.command, [...mcpb.args, 'validate', join(staging, MCPB_MANIFEST)], 'mcpb validate', mcpb.shell);
  const partial = `${output}.${process.pid}.partial`;
  await mkdir(dirname(output), { recursive: true });
  try {
    await run(mcpb.command, [...mcpb.args, 'pack', staging, partial], 'mcpb pack', mcpb.shell);
    await place(partial, output, options.force === true);
  } finally {
    await rm(partial, { force: true });
  }
  const tools = JSON.parse(await readFile(join(staging, MCPB_MANIFEST), 'utf8')) as { tools: unknown[] };
  return { output, bytes: (await stat(output)).size, tools: tools.tools.length, runtimes };
}

/** Known runtime identifiers, at most one per platform (a manifest starts one executable per operating system). */
function checkRuntimes(runtimes: readonly string[]): string[] {
  const unique = [...new Set(runtimes)];
  const seen = new Map<string, string>();
  for (const runtime of unique) {
    const platform = platformOf(runtime);
    if (platform === undefined || !RUNTIME_PATTERN.test(runtime)) throw new GeneratorError('usage', `--runtime ${JSON.stringify(runtime)} is not a runtime a bundle can start: such as osx-arm64, osx-x64, win-x64, win-arm64, linux-x64, linux-arm64`);
    const other = seen.get(platform);
    if (other !== undefined) throw new GeneratorError('usage', `--runtime ${other} and ${runtime} both run on ${platform}: a bundle starts one executable per operating system`);
    seen.set(platform, runtime);
  }
  return unique;
}

/** The project's target framework, from its .csproj; an HTTP project cannot be a bundle (Claude Desktop starts bundles over stdio). */
async function projectFramework(directory: string, assembly: string): Promise<string> {
  const path = join(directory, `${assembly}.csproj`);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new GeneratorError('usage', error.code === 'ENOENT' ? 'no such project file: bundle works in a project written by init' : `cannot read: ${describeIoError(error)}`, path);
  });
  if (/Sdk="Microsoft\.NET\.Sdk\.Web"/.test(text)) throw new GeneratorError('usage', 'an HTTP server (--transport http) cannot be a bundle: Claude Desktop starts a bundle\'s server over stdio; add an HTTP server in its Connectors settings', path);
  return /<TargetFramework>([^<]+)<\/TargetFramework>/.exec(text)?.[1] ?? '';
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The icon: the file given (a PNG), else the spec's logo when it is a PNG data: URI. */
async function iconBytes(file: string | undefined, api: PreparedApi): Promise<Buffer | undefined> {
  if (file !== undefined) {
    const path = resolve(file);
    const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => { throw new GeneratorError('usage', `cannot read: ${describeIoError(error)}`, path); });
    if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw new GeneratorError('usage', 'not a PNG image: Claude Desktop shows a bundle\'s icon from a PNG file', path);
    return bytes;
  }
  const data = /^data:image\/png;base64,([A-Za-z0-9+/=\s]+)$/i.exec(api.model.icon?.src ?? '');
  const bytes = data ? Buffer.from(data[1]!, 'base64') : undefined;
  return bytes?.subarray(0, 8).equals(PNG_SIGNATURE) ? bytes : undefined;
}

/** The mcpb CLI: the command given, else the package installed beside the generator, else the pinned version through npx. */
function mcpbCommand(given: string | undefined): { command: string; args: string[]; shell: boolean } {
  const windows = process.platform === 'win32';
  if (given !== undefined) {
    const [command, ...args] = given.trim().split(/\s+/);
    if (command === undefined || command === '') throw new GeneratorError('usage', '--mcpb must not be empty');
    return { command, args, shell: windows };
  }
  try {
    const main = createRequire(import.meta.url).resolve('@anthropic-ai/mcpb');
    return { command: process.execPath, args: [join(dirname(main), 'cli', 'cli.js')], shell: false };
  } catch {
    return { command: 'npx', args: ['--yes', MCPB_PACKAGE], shell: windows };
  }
}

/** Runs a command to its end; a failure is one error with the end of what it printed. */
function run(command: string, args: readonly string[], what: string, shell = false): Promise<string> {
  const line = shell ? [command, ...args.map((a) => `"${a.replace(/"/g, '""')}"`)].join(' ') : command;
  return new Promise((resolvePromise, reject) => {
    const child = execFile(line, shell ? [] : [...args], { maxBuffer: 64 * 1024 * 1024, shell, env: { ...process.env, DOTNET_NOLOGO: '1', DOTNET_CLI_TELEMETRY_OPTOUT: '1' } }, (error, stdout, stderr) => {
      if (!error) return resolvePromise(stdout);
      const said = `${stdout}\n${stderr}`.split('\n').map((l) => l.trim()).filter((l) => l !== '').slice(-8).join(' | ');
      const code = (error as { code?: unknown }).code;
      reject(new GeneratorError('output', `${what} failed (${code === 'ENOENT' ? `cannot start ${command}: not found` : `exit code ${String(code)}`})${said === '' ? '' : `: ${said}`}`));
    });
    child.stdin?.end();
  });
}

/** Moves the packed file to its place: over an existing bundle only when asked to (never a half-written one). */
async function place(partial: string, output: string, force: boolean): Promise<void> {
  if (force) return rename(partial, output);
  await link(partial, output).catch((error: NodeJS.ErrnoException) => {
    throw new GeneratorError('output', error.code === 'EEXIST' ? 'exists: pass --force to replace it' : `cannot write: ${describeIoError(error)}`, output);
  });
  await unlink(partial);
}
