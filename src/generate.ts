import { resolve } from 'node:path';
import { GeneratorError, type Diagnostic } from './errors.js';
import { loadSpec, type LoadedSpec, type LoadOptions } from './load/document.js';
import { buildModel } from './model/build.js';
import type { ApiModel, Operation } from './model/types.js';
import { planNames, type NamePlan } from './names/plan.js';
import { identifier, isValidNamespace, words } from './names/identifiers.js';
import { emitClient } from './emit/client.js';
import type { GeneratedFile } from './emit/file.js';
import { emitTools } from './emit/tools.js';
import { emitHost, TOOL_MODES, TRANSPORTS, type ToolMode, type Transport } from './emit/host.js';
import { searchIndex } from './emit/search-index.js';
import { SEARCH_INDEX_FILE } from './emit/discovery.js';
import { emitClientConfig, emitMcpConfig, emitProjectReadme, type Launch, type McpClient, type ServerLocation } from './emit/config.js';
import { detectFramework } from './dotnet.js';
import { selectOperations, type Selection, type Skipped } from './select.js';

export type { GeneratedFile };

/** A spec taken through load → model: what the naming plan and the emitters read. */
export interface PreparedApi {
  readonly spec: LoadedSpec;
  readonly model: ApiModel;
  readonly warnings: readonly Diagnostic[];
}

/** Loads a spec (path or URL) and builds the model. */
export async function prepare(input: string, options: LoadOptions = {}): Promise<PreparedApi> {
  const spec = await loadSpec(input, options);
  const { model, warnings } = buildModel(spec);
  const skipped = warnings.filter((w) => w.message.startsWith('skipped '));
  if (model.operations.length === 0 && skipped[0]) {
    // Nothing could be generated: the first broken operation is the error.
    throw new GeneratorError('spec', skipped[0].message.replace(/^skipped [A-Z]+ \S+: /, ''), skipped[0].location);
  }
  return { spec, model, warnings };
}

/** The companion client: files relative to its output directory. */
export function generateClient(api: PreparedApi, options: { namespace: string; plan?: NamePlan }): GeneratedFile[] {
  checkNamespace(options.namespace, '--namespace');
  return emitClient(api.model, options.plan ?? planNames(api.model, options.namespace), options.namespace);
}

export interface ToolsOptions extends Selection {
  readonly namespace: string;
  readonly clientNamespace: string;
  /** The plan the client was generated with; made from `clientNamespace` when absent (the same one). */
  readonly plan?: NamePlan;
  /** `discovery` also writes the operation index the discovery tools search. */
  readonly mode?: ToolMode;
  /** Tools with a JSON answer publish its outputSchema and return structuredContent. */
  readonly structuredOutput?: boolean;
}

/**
 * The content of `McpTools.g.cs`, the operations it has tools for, those it skipped with the reason, and in
 * discovery mode the files written beside it (the operation index).
 */
export function generateTools(api: PreparedApi, options: ToolsOptions): { content: string; operations: readonly Operation[]; skipped: readonly Skipped[]; beside: GeneratedFile[] } {
  checkNamespace(options.namespace, '--namespace');
  checkNamespace(options.clientNamespace, '--ext-namespace');
  const mode = checkMode(options.mode);
  const plan = options.plan ?? planNames(api.model, options.clientNamespace);
  const { selected, skipped } = selectOperations(api.model, plan, options);
  const beside = mode === 'discovery' ? [{ path: SEARCH_INDEX_FILE, content: searchIndex(plan, selected) }] : [];
  return { content: emitTools(api.model, plan, selected, options.namespace, options.clientNamespace, options.structuredOutput === true), operations: selected, skipped, beside };
}

export interface HostProjectOptions {
  readonly serverName: string;
  readonly namespace: string;
  readonly clientNamespace: string;
  /** Target framework; detected from the installed .NET SDK when absent. */
  readonly framework?: string;
  readonly serverVersion?: string;
  /** The API whose security schemes the host configures; none when absent. */
  readonly api?: PreparedApi;
  readonly mode?: ToolMode;
  readonly transport?: Transport;
  /** HTTP only: take each call's API credential from this header of the incoming MCP request. */
  readonly forwardAuth?: string;
}

/** The hosting console project: `<Name>.csproj` and `Program.cs`. */
export function generateHost(options: HostProjectOptions): GeneratedFile[] {
  checkServerName(options.serverName);
  checkNamespace(options.namespace, '--namespace');
  checkNamespace(options.clientNamespace, '--ext-namespace');
  const framework = options.framework ?? detectFramework();
  if (!/^net\d+\.\d+$/.test(framework)) throw new GeneratorError('usage', `--framework ${JSON.stringify(framework)} is not a target framework such as net10.0`);
  return emitHost({
    serverName: options.serverName, namespace: options.namespace, clientNamespace: options.clientNamespace, framework,
    serverVersion: options.serverVersion ?? options.api?.model.version ?? '1.0.0',
    securitySchemes: options.api?.model.securitySchemes ?? [],
    mode: checkMode(options.mode),
    ...hostTransport(options),
  }, projectName(options.serverName));
}

export interface ProjectOptions extends Selection {
  readonly serverName: string;
  /** Directory of the project; written into `mcp.json` as an absolute path. */
  readonly outputDir: string;
  readonly framework?: string;
  /** Also write these clients' own configuration files. */
  readonly clients?: readonly McpClient[];
  /** How the client entries start the server (default `run`: `dotnet run --project`, SPEC 2.4). */
  readonly launch?: Launch;
  readonly mode?: ToolMode;
  readonly structuredOutput?: boolean;
  readonly transport?: Transport;
  readonly forwardAuth?: string;
}

/** Everything `init` writes: client (in `Client/`), tools, host project and `mcp.json`. */
export function generateProject(api: PreparedApi, options: ProjectOptions): { files: GeneratedFile[]; operations: readonly Operation[]; skipped: readonly Skipped[]; namespace: string } {
  checkServerName(options.serverName);
  const namespace = projectName(options.serverName);
  const clientNamespace = `${namespace}.Client`;
  const plan = planNames(api.model, clientNamespace);
  const tools = generateTools(api, { ...options, namespace, clientNamespace, plan });
  const framework = options.framework ?? detectFramework();
  const host = generateHost({
    serverName: options.serverName, namespace, clientNamespace, api, framework, ...(options.mode !== undefined && { mode: options.mode }),
    ...(options.transport !== undefined && { transport: options.transport }), ...(options.forwardAuth !== undefined && { forwardAuth: options.forwardAuth }),
  });
  if (options.transport === 'http' && options.clients?.includes('claude-desktop')) throw new GeneratorError('usage', '--client claude-desktop: Claude Desktop\'s configuration file starts stdio servers only; add an HTTP server in its Connectors settings');
  const location = serverLocation(options, framework);
  const schemes = api.model.securitySchemes;
  const files = [
    ...host,
    { path: 'McpTools.g.cs', content: tools.content },
    ...tools.beside,
    ...generateClient(api, { namespace: clientNamespace, plan }).map((f) => ({ ...f, path: `Client/${f.path}` })),
    { path: 'mcp.json', content: emitMcpConfig(options.serverName, location, schemes) },
    { path: 'README.md', content: emitProjectReadme(api.model, options.serverName, namespace, tools.operations.length, location, options.mode === 'discovery') },
    ...[...new Set(options.clients ?? [])].map((client) => emitClientConfig(client, options.serverName, location, schemes)),
  ];
  return { files, operations: tools.operations, skipped: tools.skipped, namespace };
}

/** Where `init` puts the server and how its client entries start it (`mcp.json` holds an absolute path). */
export function serverLocation(options: { serverName: string; outputDir: string; launch?: Launch; transport?: Transport; forwardAuth?: string }, framework: string): ServerLocation {
  return {
    projectDirectory: resolve(options.outputDir), launch: options.launch ?? 'run', assembly: projectName(options.serverName), framework,
    ...(options.transport === 'http' && { http: options.forwardAuth === undefined ? {} : { forwardAuth: options.forwardAuth } }),
  };
}

/** The C# project, assembly and namespace name for a server name: `petstore api` → `PetstoreApi`. */
export function projectName(serverName: string): string {
  return identifier(words(serverName), 'pascal', 'McpServer').replace(/^@/, '');
}

function checkServerName(serverName: string): void {
  if (serverName.trim() === '') throw new GeneratorError('usage', '--server-name must not be empty');
  if (/[\u0000-\u001f"\\]/.test(serverName)) throw new GeneratorError('usage', '--server-name must not contain quotes, backslashes or control characters');
}

function checkMode(mode: string | undefined): ToolMode {
  if (mode === undefined) return 'operations';
  if (!(TOOL_MODES as readonly string[]).includes(mode)) throw new GeneratorError('usage', `--mode ${JSON.stringify(mode)} is not one of ${TOOL_MODES.join(', ')}`);
  return mode as ToolMode;
}

/** The transport, and the header credentials are forwarded from: only over HTTP, a header name, for an API that takes credentials. */
function hostTransport(options: HostProjectOptions): { transport: Transport; forwardAuth?: string } {
  const transport = options.transport ?? 'stdio';
  if (!(TRANSPORTS as readonly string[]).includes(transport)) throw new GeneratorError('usage', `--transport ${JSON.stringify(transport)} is not one of ${TRANSPORTS.join(', ')}`);
  const header = options.forwardAuth;
  if (header === undefined) return { transport };
  if (transport !== 'http') throw new GeneratorError('usage', '--forward-auth needs --transport http: a stdio server has one user, whose credentials are its settings');
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) throw new GeneratorError('usage', `--forward-auth ${JSON.stringify(header)} is not an HTTP header name`);
  if ((options.api?.model.securitySchemes ?? []).length === 0) throw new GeneratorError('usage', '--forward-auth: the API declares no security scheme whose credential could be forwarded (give --openapi-url for host)');
  return { transport, forwardAuth: header };
}

function checkNamespace(namespace: string, option: string): void {
  if (!isValidNamespace(namespace)) throw new GeneratorError('usage', `${option} ${JSON.stringify(namespace)} is not a valid C# namespace (dotted identifiers such as Petstore.Client)`);
}
