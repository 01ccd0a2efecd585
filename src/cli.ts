import { Command, CommanderError, Option } from 'commander';
import { dirname, join, resolve } from 'node:path';
import { EXIT_CODES, GeneratorError, type Diagnostic } from './errors.js';
import { generateClient, generateHost, generateProject, generateTools, prepare, projectName, type PreparedApi } from './generate.js';
import { staleFiles, writeFiles } from './write.js';
import { readFile } from 'node:fs/promises';
import { describeIoError } from './load/source.js';
import { mergeClientConfig } from './emit/project/client-config-merge.js';
import { TOOL_COUNT_LIMIT, formatReport, reportSelection } from './report.js';
import type { Selection } from './select.js';
import { serverKey } from './emit/project/host.js';
import { CLIENT_CONFIG_FILES, CLIENT_CONFIG_LOCATIONS, HTTP_DEFAULT_URL, LAUNCH_FORMS, MCP_CLIENTS, settingPlaceholders, launchCommand, type Launch, type McpClient, type ServerLocation } from './emit/project/config.js';
import { movedTo, type GeneratedFile } from './emit/shared/file.js';
import { baseUrlMeaning } from './emit/shared/base-url.js';
import { environmentVariables } from './names/environment.js';
import { detectFrameworkAsync } from './dotnet.js';
import { packageVersion } from './package.js';
import { regenerate } from './regenerate.js';
import { bundle, MCPB_PACKAGE } from './bundle.js';
import type { LoadOptions } from './load/document.js';
import { EXTERNAL_REFS, MODE, mode, TRANSPORT, FORWARD_AUTH, AUTH, EXCHANGE, REDIS, transport, STRUCTURED, CONFIRM, confirm, CREDENTIAL, credential, SEARCH, search, RESOURCES, CHECK, splitTags, collect, each, OVERLAY } from './cli-options.js';

interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** `--allow-external-refs` and `--overlay`, on every command that reads a spec. */
interface LoadFlags { allowExternalRefs?: boolean; overlay?: string[] }

interface SelectionFlags { tags?: string; include?: string[]; exclude?: string[]; readOnly?: boolean; dryRun?: boolean }

/** The options that choose which operations become tools, shared by tools, init and report. */
function withSelection(command: Command, dryRun = true): Command {
  command
    .option('--tags <tags>', 'comma-separated OpenAPI tags: only their operations become tools (default: all operations)')
    .option('--include <patterns>', 'only operations matching a pattern: operationId or tool name glob (list_*), or "METHOD /path" glob (GET /pets/**); comma-separated, repeatable', collect)
    .option('--exclude <patterns>', 'leave out operations matching a pattern (same forms as --include)', collect)
    .option('--read-only', 'only GET and HEAD operations');
  if (dryRun) command.option('--dry-run', 'write nothing: print the tools, the skipped operations and the tools/list size (as the report command)');
  return command;
}

function selection(flags: SelectionFlags): Selection {
  return {
    tags: splitTags(flags.tags ?? ''),
    ...(flags.include !== undefined && { include: flags.include }),
    ...(flags.exclude !== undefined && { exclude: flags.exclude }),
    ...(flags.readOnly !== undefined && { readOnly: flags.readOnly }),
  };
}

/** Runs the command line; returns the exit code. */
export async function runCli(argv: readonly string[], io: Io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : EXIT_CODES.usage;
    }
    if (error instanceof GeneratorError) {
      io.err(`error: ${error.message}\n`);
      return EXIT_CODES[error.kind];
    }
    io.err(`internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    return EXIT_CODES.internal;
  }
}

function buildProgram(io: Io): Command {
  const program = new Command('openapi-mcp-dotnet')
    .description('Generate a C# MCP server from an OpenAPI document: REST client, MCP tools, host project.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    // Usage errors are one line, like every other error: commander's message, then where to look.
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (text, write) => write(`${text.trimEnd()} (run with --help for usage)\n`) });

  program.command('client')
    .description('write the companion REST client (records, HttpClient extension methods, result type) into a directory')
    .requiredOption('-u, --openapi-url <spec>', 'OpenAPI document: file path, file:// or http(s):// URL, JSON or YAML')
    .option('--allow-external-refs', EXTERNAL_REFS)
    .option('--overlay <file>', OVERLAY, each)
    .requiredOption('-o, --output <dir>', 'directory that receives the C# files (created if missing)')
    .requiredOption('-n, --namespace <namespace>', 'namespace of the generated client')
    .option('--check', CHECK)
    .action(async (options: { openapiUrl: string; output: string; namespace: string; allowExternalRefs?: boolean; overlay?: string[]; check?: boolean }) => {
      const api = await prepareReporting(options.openapiUrl, io, loadOptions(options));
      const files = generateClient(api, { namespace: options.namespace });
      if (options.check) return checkFiles(options.output, files, io);
      const written = await writeFiles(options.output, files, true);
      io.out(`Wrote the client for ${count(api.model.operations.length, 'operation')} and ${count(api.model.types.size, 'type')}: ${written.join(', ')}\n`);
    });

  withSelection(program.command('tools', { isDefault: true })
    .description('write McpTools.g.cs: one MCP tool per operation, calling the client')
    .requiredOption('--openapi-url <spec>', 'OpenAPI document: file path, file:// or http(s):// URL, JSON or YAML')
    .option('--allow-external-refs', EXTERNAL_REFS)
    .option('--overlay <file>', OVERLAY, each)
    .requiredOption('--output-file <file>', 'file that receives the tools (by convention McpTools.g.cs); its folder must exist')
    .requiredOption('--namespace <namespace>', 'namespace of the generated tools')
    .requiredOption('--server-name <name>', 'name of the MCP server')
    .requiredOption('--ext-namespace <namespace>', 'namespace of the generated REST client')
    .option('--mode <mode>', MODE)
    .option('--structured-output', STRUCTURED)
    .option('--confirm <which>', CONFIRM)
    .option('--resources', RESOURCES)
    .option('--check', CHECK))
    .action(async (options: { openapiUrl: string; outputFile: string; namespace: string; serverName: string; extNamespace: string; mode?: string; structuredOutput?: boolean; confirm?: string; resources?: boolean; allowExternalRefs?: boolean; overlay?: string[]; check?: boolean } & SelectionFlags) => {
      if (options.serverName.trim() === '') throw new GeneratorError('usage', '--server-name must not be empty');
      const api = await prepareReporting(options.openapiUrl, io, loadOptions(options));
      if (options.dryRun) return void io.out(formatReport(reportSelection(api, selection(options))));
      const tools = generateTools(api, {
        namespace: options.namespace, clientNamespace: options.extNamespace, ...selection(options), ...mode(options), structuredOutput: options.structuredOutput === true, ...confirm(options),
        ...(options.resources === true && { resources: { serverName: options.serverName } }),
      });
      warnAboutServer(api, options.serverName, tools.operations.length, io, options.mode);
      const file = resolve(options.outputFile);
      const generated = [movedTo(tools.file, file.slice(dirname(file).length + 1)), ...tools.beside];
      if (options.check) return checkFiles(dirname(file), generated, io);
      await writeFiles(dirname(file), generated, false);
      io.out(`Wrote ${count(tools.operations.length, 'tool')} to ${options.outputFile}${tools.skipped.length > 0 ? ` (${count(tools.skipped.length, 'operation')} left out by the selection)` : ''}\n`);
    });

  program.command('host')
    .description('write the project that hosts the tools, over stdio or with --transport http over HTTP: <Name>.csproj and Program.cs, Generated/<Name>.Generated.csproj (which compiles the generated code), and in Mcp/ the settings (McpSettings.g.cs) and the support files of the chosen mode and options (McpToolCatalog.cs in operations mode; the search in discovery and code mode; McpHttpAccess.cs and the other HTTP files over HTTP); Dockerfile, .dockerignore and kubernetes.yaml over HTTP')
    .requiredOption('--output-dir <dir>', 'directory of the project (created if missing)')
    .requiredOption('--server-name <name>', 'name of the MCP server')
    .requiredOption('--namespace <namespace>', 'namespace of the generated tools')
    .requiredOption('--ext-namespace <namespace>', 'namespace of the generated REST client')
    .option('--openapi-url <spec>', 'OpenAPI document whose security schemes the host sends credentials for')
    .option('--mode <mode>', MODE)
    .option('--search <kind>', SEARCH)
    .option('--resources', RESOURCES)
    .option('--transport <transport>', TRANSPORT)
    .option('--forward-auth <header>', FORWARD_AUTH)
    .option('--auth <kind>', AUTH)
    .option('--upstream-token-exchange', EXCHANGE)
    .option('--redis', REDIS)
    .option('--confirm <which>', CONFIRM)
    .option('--credential <source>', CREDENTIAL)
    .option('--check', CHECK)
    .option('--allow-external-refs', EXTERNAL_REFS)
    .option('--overlay <file>', OVERLAY, each)
    .addOption(new Option('--framework <tfm>', 'target framework (default: the newest the installed .NET SDK has)'))
    .action(async (options: { outputDir: string; serverName: string; namespace: string; extNamespace: string; openapiUrl?: string; framework?: string; mode?: string; search?: string; resources?: boolean; transport?: string; forwardAuth?: string; auth?: string; upstreamTokenExchange?: boolean; redis?: boolean; confirm?: string; credential?: string; allowExternalRefs?: boolean; overlay?: string[]; check?: boolean }) => {
      const api = options.openapiUrl === undefined ? undefined : await prepareReporting(options.openapiUrl, io, loadOptions(options));
      if (api) warnAboutServer(api, options.serverName, 0, io, options.mode);
      const files = generateHost({
        serverName: options.serverName, namespace: options.namespace, clientNamespace: options.extNamespace, ...mode(options), ...transport(options), ...search(options),
        ...confirm(options), ...credential(options), ...(options.resources === true && { resources: true }),
        ...(api !== undefined && { api }),
        ...(options.framework !== undefined && { framework: options.framework }),
      });
      if (options.check) return checkFiles(options.outputDir, files, io);
      const written = await writeFiles(options.outputDir, files, true);
      io.out(`Wrote ${written.join(', ')}\n`);
    });

  withSelection(program.command('init')
    .description('create a complete MCP server project: client, tools, host, README.md and mcp.json')
    .requiredOption('--openapi-url <spec>', 'OpenAPI document: file path, file:// or http(s):// URL, JSON or YAML')
    .option('--allow-external-refs', EXTERNAL_REFS)
    .option('--overlay <file>', OVERLAY, each)
    .requiredOption('--server-name <name>', 'name of the MCP server (also names the project)')
    .requiredOption('--output-dir <dir>', 'directory of the new project (created if missing)')
    .option('--check', CHECK))
    .option('--mode <mode>', MODE)
    .option('--search <kind>', SEARCH)
    .option('--structured-output', STRUCTURED)
    .option('--confirm <which>', CONFIRM)
    .option('--resources', RESOURCES)
    .option('--transport <transport>', TRANSPORT)
    .option('--forward-auth <header>', FORWARD_AUTH)
    .option('--auth <kind>', AUTH)
    .option('--upstream-token-exchange', EXCHANGE)
    .option('--redis', REDIS)
    .option('--credential <source>', CREDENTIAL)
    .option('--client <clients>', `also add the server to these MCP clients' configuration files (${MCP_CLIENTS.join(', ')}); comma-separated, repeatable; an existing file keeps everything else`, collect)
    .option('--package', 'pack as a NuGet MCP server, as the .NET mcpserver template does: dotnet pack writes a tool package of type McpServer with .mcp/server.json (stdio only)')
    .addOption(new Option('--launch <form>', 'how client entries start the server: "run" (dotnet run --project, always current, about a second of MSBuild per start), "dll" (the Release build\'s DLL: starts fastest, build it after each generation) or "dnx" (dnx <package>@<version> --yes from a NuGet feed; implies --package)').choices(LAUNCH_FORMS).default('run'))
    .option('--no-regenerate', 'do not regenerate the client and tools on dotnet build when the spec (a file) changes')
    .option('--generator <command>', 'the command dotnet build regenerates with, written into Generated/<Name>.Generated.csproj for every machine, such as "npx --yes openapi-mcp-dotnet@<version>" (default: this generator as it runs now, node and its script, written to the machine-local Generated/<Name>.Generated.csproj.user)')
    .addOption(new Option('--framework <tfm>', 'target framework (default: the newest the installed .NET SDK has)'))
    .action(async (options: { openapiUrl: string; serverName: string; outputDir: string; client?: string[]; launch: Launch; framework?: string; mode?: string; search?: string; structuredOutput?: boolean; confirm?: string; resources?: boolean; transport?: string; forwardAuth?: string; auth?: string; upstreamTokenExchange?: boolean; redis?: boolean; credential?: string; package?: boolean; regenerate: boolean; generator?: string; allowExternalRefs?: boolean; overlay?: string[]; check?: boolean } & SelectionFlags) => {
      const clients = mcpClients(options.client ?? []);
      if (options.generator?.trim() === '') throw new GeneratorError('usage', '--generator must not be empty (--no-regenerate leaves regeneration out)');
      const detected = options.framework === undefined && !options.dryRun ? detectFrameworkAsync() : undefined;
      const api = await prepareReporting(options.openapiUrl, io, loadOptions(options));
      if (options.dryRun) return void io.out(formatReport(reportSelection(api, selection(options))));
      const framework = options.framework ?? await (detected ?? detectFrameworkAsync());
      const project = generateProject(api, {
        serverName: options.serverName, outputDir: options.outputDir, ...selection(options), framework, launch: options.launch,
        clients, ...mode(options), ...search(options), ...transport(options), structuredOutput: options.structuredOutput === true, ...confirm(options), ...credential(options), ...(options.resources === true && { resources: true }),
        package: options.package === true, regenerate: options.regenerate, allowExternalRefs: options.allowExternalRefs === true,
        ...(options.generator !== undefined && { generator: options.generator }),
      });
      warnAboutServer(api, options.serverName, project.operations.length, io, options.mode);
      const files = await withExistingClientConfigs(options.outputDir, project.files, clients);
      // Generated/<Name>.Generated.csproj.user names this machine's generator: it is no part of what a CI run on another machine checks.
      if (options.check) return checkFiles(options.outputDir, files.filter((f) => !f.path.endsWith('.csproj.user')), io);
      await writeFiles(options.outputDir, files, true);
      io.out(initSummary(options.serverName, project.location, { ...project, files }, api, clients));
    });

  program.command('regenerate')
    .description(`write a project's client and tools again from the spec and options its openapi-mcp.json records (what dotnet build runs when the spec changed)`)
    .option('--project-dir <dir>', 'directory of the project (default: the current directory)', '.')
    .option('--check', CHECK)
    .action(async (options: { projectDir: string; check?: boolean }) => {
      const { api, files, operations } = await regenerate(options.projectDir, (input, load) => prepareReporting(input, io, load));
      if (options.check) return checkFiles(options.projectDir, files, io);
      await writeFiles(options.projectDir, files, true);
      io.out(`Regenerated ${count(operations, 'tool')} for ${api.model.title} in ${resolve(options.projectDir)}\n`);
    });

  program.command('bundle')
    .description('publish an init project and pack it as an MCP Bundle (.mcpb) for one-click install in Claude Desktop: manifest.json names the tools and asks for the base URL and each credential (sensitive); validated and packed with the official mcpb CLI')
    .option('--project-dir <dir>', 'directory of the project (default: the current directory)', '.')
    .option('--output <file>', 'the bundle to write (default: <project-dir>/<name>.mcpb); an existing one is kept unless --force')
    .option('--runtime <rids>', 'self-contained single-file executables for these .NET runtimes, one per operating system (osx-arm64, win-x64, linux-x64, ...); comma-separated, repeatable (default: one framework-dependent build, started with dotnet, for any platform with .NET)', collect)
    .option('--author <name>', 'the author Claude Desktop shows (default: the spec\'s contact name, else its title)')
    .option('--icon <png>', 'the icon Claude Desktop shows, a PNG file (default: the spec\'s logo when it is a PNG data: URI)')
    .option('--mcpb <command>', `the mcpb command that validates and packs (default: the installed @anthropic-ai/mcpb, else npx --yes ${MCPB_PACKAGE})`)
    .option('--force', 'replace an existing bundle')
    .action(async (options: { projectDir: string; output?: string; runtime?: string[]; author?: string; icon?: string; mcpb?: string; force?: boolean }) => {
      const made = await bundle({
        projectDir: options.projectDir, runtimes: options.runtime ?? [], force: options.force === true, log: (line) => io.err(`${line}\n`),
        ...(options.output !== undefined && { output: options.output }), ...(options.author !== undefined && { author: options.author }),
        ...(options.icon !== undefined && { icon: options.icon }), ...(options.mcpb !== undefined && { mcpb: options.mcpb }),
      }, (input, load) => prepareReporting(input, io, load));
      io.out(`Wrote ${made.output} (${(made.bytes / 1048576).toFixed(1)} MB, ${count(made.tools, 'tool')}, ${made.runtimes.length === 0 ? 'started with dotnet' : made.runtimes.join(', ')}): open it with Claude Desktop to install the server\n`);
    });

  withSelection(program.command('report')
    .description('print, without writing anything, the tools a selection would give, the operations it skips, and the tools/list size per tag')
    .requiredOption('--openapi-url <spec>', 'OpenAPI document: file path, file:// or http(s):// URL, JSON or YAML')
    .option('--allow-external-refs', EXTERNAL_REFS)
    .option('--overlay <file>', OVERLAY, each), false)
    .option('--json', 'print the report as JSON')
    .action(async (options: { openapiUrl: string; json?: boolean; allowExternalRefs?: boolean; overlay?: string[] } & SelectionFlags) => {
      const report = reportSelection(await prepareReporting(options.openapiUrl, io, loadOptions(options)), selection(options));
      io.out(options.json ? JSON.stringify({ ...report, skipped: report.skipped.map((s) => ({ operation: `${s.operation.method.toUpperCase()} ${s.operation.path}`, reason: s.reason })) }, null, 2) + '\n' : formatReport(report));
    });

  return program;
}

/** `--client a,b --client c`: known clients, each once. */
function mcpClients(names: readonly string[]): McpClient[] {
  const unknown = names.filter((n) => !(MCP_CLIENTS as readonly string[]).includes(n));
  if (unknown.length > 0) throw new GeneratorError('usage', `--client ${unknown.map((n) => JSON.stringify(n)).join(', ')} is not a known client; the clients are ${MCP_CLIENTS.join(', ')}`);
  return [...new Set(names as McpClient[])];
}

/** A client's configuration file that exists already gets our entry added; the rest of it stays. */
async function withExistingClientConfigs(directory: string, files: readonly GeneratedFile[], clients: readonly McpClient[]): Promise<GeneratedFile[]> {
  const paths = new Set(clients.map((c) => CLIENT_CONFIG_FILES[c]));
  return Promise.all(files.map(async (file) => {
    if (!paths.has(file.path)) return file;
    const target = resolve(directory, file.path);
    const existing = await readFile(target, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(new GeneratorError('output', `cannot read: ${describeIoError(error)}`, target))));
    return existing === undefined ? file : { ...file, content: mergeClientConfig(existing, file, target) };
  }));
}

/** `--check`: compares instead of writing; stale files are an error (exit 5). */
async function checkFiles(directory: string, files: readonly GeneratedFile[], io: Io): Promise<void> {
  const stale = await staleFiles(directory, files);
  if (stale.length > 0) throw new GeneratorError('stale', `${stale.length} generated file(s) out of date: ${stale.join(', ')}`);
  io.out(`Up to date: ${count(files.length, 'file')}\n`);
}

const loadOptions = (flags: LoadFlags): LoadOptions => ({ allowExternalRefs: flags.allowExternalRefs === true, ...(flags.overlay !== undefined && { overlays: flags.overlay }) });

async function prepareReporting(input: string, io: Io, options: LoadOptions): Promise<PreparedApi> {
  const api = await prepare(input, options);
  for (const warning of api.warnings) io.err(formatWarning(warning));
  return api;
}

/** What the generated server will need, or will be too much for its clients. */
function warnAboutServer(api: PreparedApi, serverName: string, tools: number, io: Io, mode?: string): void {
  const path = api.model.serverPath;
  if (path !== undefined) {
    io.err(formatWarning({ location: `${api.spec.source.display}#/servers/0/url`, message: `the server is named by its path alone (${path}): the server will need ${environmentVariables(serverName).baseUrl}, the API's origin, to which it adds the path` }));
  }
  const unusable = api.model.unusableServerUrl;
  if (unusable !== undefined) {
    io.err(formatWarning({ location: `${api.spec.source.display}#/servers/0/url`, message: `${JSON.stringify(unusable)} is not an absolute http(s) URL: the server will need ${environmentVariables(serverName).baseUrl}` }));
  }
  if (tools > TOOL_COUNT_LIMIT && (mode === undefined || mode === 'operations')) {
    io.err(`warning: ${thousands(tools)} tools is past the ${TOOL_COUNT_LIMIT} VS Code accepts, and more than assistants choose among well: use --mode discovery (three tools that search, describe and call the operations), or select a part with --tags, --include or --exclude (the report command lists the tags)\n`);
  }
}

/** `11,422`, as en-US writes a whole number (without loading the locale data, which takes longer than a small spec's generation). */
const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

/** `1 tool`, `2 tools`. */
const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

function formatWarning(warning: Diagnostic): string {
  return `warning: ${warning.location}: ${warning.message}\n`;
}

function initSummary(serverName: string, location: ServerLocation, project: { files: GeneratedFile[]; operations: readonly unknown[] }, api: PreparedApi, clients: readonly McpClient[]): string {
  const key = serverKey(serverName);
  const env = environmentVariables(serverName);
  const directory = location.projectDirectory;
  const placeholders = Object.keys(settingPlaceholders(serverName, api.model, location));
  const { command, args } = launchCommand(location);
  const shellWord = (word: string): string => (/^[\w.=+-]+$/.test(word) ? word : JSON.stringify(word));
  // Each entry file as it was written, where it was written: VS Code's form differs from mcp.json's.
  const entryFiles = [
    { label: 'MCP client entry', path: 'mcp.json' },
    ...clients.map((client) => ({ label: `${client} configuration`, path: CLIENT_CONFIG_FILES[client] })),
  ];
  return [
    `Created ${projectName(serverName)} (${count(project.operations.length, 'tool')} for ${api.model.title}) in ${directory}`,
    location.launch === 'dll'
      ? `Build it: dotnet build -c Release ${JSON.stringify(directory)} (and again after each generation: the entry starts that build)`
      : `Build it: dotnet build ${JSON.stringify(directory)}`,
    ...(location.http ? [`Run it: dotnet run --project ${JSON.stringify(directory)} --urls ${HTTP_DEFAULT_URL} (MCP at /mcp, health at /healthz); deploy it with its Dockerfile and kubernetes.yaml`] : []),
    ...(location.package ? [`Pack it: dotnet pack -c Release -o ${JSON.stringify(join(directory, 'nupkg'))} ${JSON.stringify(directory)}; push the package to a NuGet feed, or try it from the folder: dnx ${location.package.id}@${location.package.version} --yes --source ${shellWord(join(directory, 'nupkg'))}`] : []),
    api.model.serverPath === undefined
      ? `API base URL: ${api.model.serverUrl ?? '(none in the spec)'}; override with the environment variable ${env.baseUrl}`
      : `API base URL: set the environment variable ${env.baseUrl} to the ${baseUrlMeaning(api.model)}`,
    ...(placeholders.length > 0 ? [`Settings: set ${placeholders.join(', ')} (placeholders are in the entry's env)`] : []),
    '',
    ...entryFiles.flatMap(({ label, path }) => [
      `${label}, in ${join(directory, path)}:`,
      project.files.find((f) => f.path === path)?.content.trimEnd() ?? '',
      '',
    ]),
    ...MCP_CLIENTS.map((c) => `${(c + ':').padEnd(16)}${CLIENT_CONFIG_LOCATIONS[c]}`),
    location.http
      ? `Claude Code CLI: claude mcp add --transport http ${key} ${HTTP_DEFAULT_URL}/mcp${location.http.forwardAuth === undefined ? '' : ` --header ${shellWord(`${location.http.forwardAuth}: <your-api-credential>`)}`}`
      : `Claude Code CLI: claude mcp add ${key} -- ${[command, ...args].map(shellWord).join(' ')}`,
    '',
  ].join('\n');
}
