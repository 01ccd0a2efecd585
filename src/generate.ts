import { relative, resolve } from 'node:path';
import { GeneratorError, type Diagnostic } from './errors.js';
import { loadSpec, type LoadedSpec, type LoadOptions } from './load/document.js';
import { buildModel } from './model/build.js';
import type { ApiModel, Operation } from './model/types.js';
import { planClientParameters, planNames, type NamePlan } from './names/plan.js';
import { identifier, kebabName, words } from './names/identifiers.js';
import { emitClient } from './emit/client/client.js';
import { movedTo, type GeneratedFile } from './emit/shared/file.js';
import { emitTools } from './emit/tools/tools.js';
import { emitHost, type ToolMode, type Transport } from './emit/project/host.js';
import { searchIndex } from './emit/discovery/search-index.js';
import { emitDiscoveryText, SEARCH_INDEX_FILE } from './emit/discovery/discovery.js';
import { searchMap } from './emit/discovery/search-map.js';
import { SIGNATURES_FILE, signatures } from './emit/code/code.js';
import { emitClientConfig, emitMcpConfig, emitProjectReadme, type Launch, type McpClient, type ServerLocation } from './emit/project/config.js';
import { detectFramework } from './dotnet.js';
import { selectOperations, type Selection, type Skipped } from './select.js';
import { packageVersionOf } from './emit/project/nuget.js';
import type { PackageInfo } from './emit/shared/host-options.js';
import { emitRecord, generatorCommand, type GenerationRecord, type RegenerationTarget } from './emit/project/regenerate.js';
import { BIN_SCRIPT, packageVersion } from './package.js';
import { checkSearch } from './emit/discovery/hybrid.js';
import { emitResources, planResources } from './emit/resources/resources.js';
import { checkConfirm, checkCredential, checkMode, checkNamespace, checkResources, checkServerName, checkRedis, hostTransport } from './option-checks.js';

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
  const built = buildModel(spec);
  const { model } = built;
  const skipped = built.warnings.filter((w) => w.message.startsWith('skipped '));
  if (model.operations.length === 0 && skipped[0]) {
    // Nothing could be generated: the first broken operation is the error.
    throw new GeneratorError('spec', skipped[0].message.replace(/^skipped [A-Z]+ \S+: /, ''), skipped[0].location);
  }
  return { spec, model, warnings: [...spec.warnings, ...built.warnings] };
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
  /** `destructive`: destructive tools ask the user before their request is sent. */
  readonly confirm?: string;
  /** Also write McpResources.g.cs: the GET operations without side effects as resources, their URIs in the server's scheme. */
  readonly resources?: { readonly serverName: string };
}

/**
 * The content of `McpTools.g.cs`, the operations it has tools for, those it skipped with the reason, and in
 * discovery and code mode the files written beside it (the operation index, McpDiscoveryText.g.cs with the map of
 * the operations, and in code mode the signatures).
 */
export function generateTools(api: PreparedApi, options: ToolsOptions): { file: GeneratedFile; content: string; operations: readonly Operation[]; skipped: readonly Skipped[]; beside: GeneratedFile[] } {
  checkNamespace(options.namespace, '--namespace');
  checkNamespace(options.clientNamespace, '--ext-namespace');
  const mode = checkMode(options.mode);
  const plan = options.plan ?? planNames(api.model, options.clientNamespace);
  const { selected, skipped } = selectOperations(api.model, plan, options);
  const beside = mode === 'operations' ? [] : [
    { path: SEARCH_INDEX_FILE, content: searchIndex(plan, selected, api.model) },
    emitDiscoveryText(options.namespace, `${api.model.title} ${api.model.version}`.trim(), searchMap(selected), mode, selected),
    ...(mode === 'code' ? [{ path: SIGNATURES_FILE, content: signatures(plan, selected, api.model) }] : []),
  ];
  if (options.resources) beside.push(emitResources(api.model, planResources(plan, selected, options.resources.serverName), options.namespace));
  const { file, inputSchemas } = emitTools(api.model, plan, selected, options.namespace, options.clientNamespace, options.structuredOutput === true, checkConfirm(options.confirm));
  if (inputSchemas !== undefined) beside.push(inputSchemas);
  return { file, get content() { return file.content; }, operations: selected, skipped, beside };
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
  /** `hybrid`: search_operations fuses the lexical ranking with sentence vectors' (discovery and code mode). */
  readonly search?: string;
  /** Publish the resources of McpResources.g.cs (written with the tools' `resources`). */
  readonly resources?: boolean;
  readonly transport?: Transport;
  /** HTTP only: take each call's API credential from this header of the incoming MCP request. */
  readonly forwardAuth?: string;
  /** HTTP only: admit callers by OAuth access tokens issued for the server (`oauth`). */
  readonly auth?: string;
  /** With auth: each call's API token is the caller's token exchanged at the authority (RFC 8693). */
  readonly upstreamTokenExchange?: boolean;
  /** HTTP only: the deployment files run Redis for the replicas' shared state, and scale them automatically. */
  readonly redis?: boolean;
  /** `destructive`: destructive tools ask the user before their request is sent. */
  readonly confirm?: string;
  /** `azure`: the document's Azure AD schemes get their tokens from Azure.Identity's DefaultAzureCredential. */
  readonly credential?: string;
  /** stdio only: pack as a NuGet MCP server (needs `api` for its description and settings). */
  readonly package?: boolean;
  /** The build regenerates `outputs` (the client and tools) from the spec and overlays (relative to the project). */
  readonly regenerate?: RegenerationTarget;
}

/** The hosting project: `<Name>.csproj`, `Program.cs` and what they use (and deploy or pack them). */
export function generateHost(options: HostProjectOptions): GeneratedFile[] {
  checkServerName(options.serverName);
  checkNamespace(options.namespace, '--namespace');
  checkNamespace(options.clientNamespace, '--ext-namespace');
  const framework = options.framework ?? detectFramework();
  if (!/^net\d+\.\d+$/.test(framework)) throw new GeneratorError('usage', `--framework ${JSON.stringify(framework)} is not a target framework such as net10.0`);
  return emitHost({
    serverName: options.serverName, namespace: options.namespace, clientNamespace: options.clientNamespace, framework,
    serverVersion: options.serverVersion ?? options.api?.model.version ?? '1.0.0',
    ...(options.api?.model.icon !== undefined && { icon: options.api.model.icon }),
    ...(options.api?.model.serverPath !== undefined && { serverPath: options.api.model.serverPath }),
    securitySchemes: options.api?.model.securitySchemes ?? [],
    clientParameters: [...planClientParameters(options.api?.model.operations ?? []).values()],
    ...(options.api?.model.operations.some((op) => op.longRunning) && { longRunning: true }),
    mode: checkMode(options.mode),
    ...(checkSearch(options.search, options.mode) === 'hybrid' && { search: 'hybrid' as const }),
    ...(options.resources === true && { resources: checkResources(options) }),
    ...hostTransport(options),
    ...(checkRedis(options) && { redis: true }),
    ...(options.confirm !== undefined && { confirm: checkConfirm(options.confirm) }),
    ...(checkCredential(options) && { azureCredential: true }),
    ...(options.package === true && { package: packageInfo(options) }),
    ...(options.regenerate !== undefined && { regenerate: options.regenerate }),
  }, projectName(options.serverName));
}

/** The NuGet package: named as the project, versioned as the API when NuGet can take its version. */
function packageInfo(options: HostProjectOptions): PackageInfo {
  if (options.transport === 'http') throw new GeneratorError('usage', '--package: a NuGet MCP server is started by its client over stdio; an HTTP server is deployed instead (see its Dockerfile)');
  const model = options.api?.model;
  const description = `MCP server for ${model?.title.replace(/\s+/g, ' ').trim() || options.serverName}`;
  return {
    id: projectName(options.serverName),
    command: kebabName(options.serverName),
    version: packageVersionOf(options.serverVersion ?? model?.version ?? '1.0.0'),
    description: description.length <= 100 ? description : `${description.slice(0, 99)}…`,
    ...(model?.serverUrl !== undefined && { defaultBaseUrl: model.serverUrl }),
  };
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
  /** `hybrid`: search_operations fuses the lexical ranking with sentence vectors'. */
  readonly search?: string;
  readonly structuredOutput?: boolean;
  /** GET operations without side effects are also MCP resources. */
  readonly resources?: boolean;
  readonly transport?: Transport;
  readonly forwardAuth?: string;
  /** With transport http: `oauth` admits callers by access tokens issued for the server. */
  readonly auth?: string;
  /** With auth: each call's API token is the caller's token exchanged at the authority (RFC 8693). */
  readonly upstreamTokenExchange?: boolean;
  /** HTTP only: the deployment files run Redis for the replicas' shared state, and scale them automatically. */
  readonly redis?: boolean;
  /** `destructive`: destructive tools ask the user before their request is sent. */
  readonly confirm?: string;
  /** `azure`: the document's Azure AD schemes get their tokens from Azure.Identity's DefaultAzureCredential. */
  readonly credential?: string;
  /** Pack as a NuGet MCP server; implied by `launch: 'dnx'`. */
  readonly package?: boolean;
  /** Record the spec and options, and regenerate on build when the spec changes (default true; a URL spec is recorded but not watched). */
  readonly regenerate?: boolean;
  /**
   * A command of the user's choosing that the build regenerates with, written into the .csproj for every machine (say
   * `npx --yes openapi-mcp-dotnet@1.2.3`, once a version is on a registry the user trusts). By default the build runs
   * `localGenerator`, named in the machine-local `<Name>.csproj.user`.
   */
  readonly generator?: string;
  /**
   * The generator the build runs when `generator` is not given: node and this package's bin script, by default as this
   * process runs them (`process.execPath`, and `bin/openapi-mcp-dotnet.js` in the package's folder).
   */
  readonly localGenerator?: { readonly node: string; readonly script: string };
  /** The spec was loaded with external $refs allowed: regeneration loads it so too. */
  readonly allowExternalRefs?: boolean;
}

/** Everything `init` writes: client (in `Client/`), tools, host project and `mcp.json`. */
export function generateProject(api: PreparedApi, options: ProjectOptions): { files: GeneratedFile[]; operations: readonly Operation[]; skipped: readonly Skipped[]; namespace: string; location: ServerLocation } {
  checkServerName(options.serverName);
  const namespace = projectName(options.serverName);
  const clientNamespace = `${namespace}.Client`;
  const sources = generateSources(api, options);
  const framework = options.framework ?? detectFramework();
  const record = generationRecord(api, options);
  const packaged = options.package === true || options.launch === 'dnx';
  const regenerate: RegenerationTarget | undefined = options.regenerate !== false && !api.spec.source.isUrl ? {
    spec: record.spec, overlays: record.overlays ?? [], outputs: sources.files.map((f) => f.path),
    ...(options.generator !== undefined
      ? { generator: options.generator }
      : { localGenerator: generatorCommand(options.localGenerator ?? { node: process.execPath, script: BIN_SCRIPT }) }),
  } : undefined;
  const host = generateHost({
    serverName: options.serverName, namespace, clientNamespace, api, framework, ...(options.mode !== undefined && { mode: options.mode }),
    ...(options.search !== undefined && { search: options.search }),
    ...(options.resources === true && { resources: true }),
    ...(options.transport !== undefined && { transport: options.transport }), ...(options.forwardAuth !== undefined && { forwardAuth: options.forwardAuth }),
    ...(options.auth !== undefined && { auth: options.auth }),
    ...(options.upstreamTokenExchange === true && { upstreamTokenExchange: true }),
    ...(options.redis === true && { redis: true }),
    ...(options.confirm !== undefined && { confirm: options.confirm }),
    ...(options.credential !== undefined && { credential: options.credential }),
    package: packaged,
    ...(regenerate !== undefined && { regenerate }),
  });
  if (options.transport === 'http' && options.clients?.includes('claude-desktop')) throw new GeneratorError('usage', '--client claude-desktop: Claude Desktop\'s configuration file starts stdio servers only; add an HTTP server in its Connectors settings');
  const pkg = packaged ? packageInfo({ serverName: options.serverName, namespace, clientNamespace, api }) : undefined;
  const location = serverLocation(options, framework, pkg);
  // The record is written first: the tools, written after it, are never older, so a fresh project's build does not regenerate.
  const files = [
    ...(options.regenerate !== false ? [emitRecord(record)] : []),
    ...host,
    ...sources.files,
    { path: 'mcp.json', content: emitMcpConfig(options.serverName, location, api.model) },
    { path: 'README.md', content: emitProjectReadme(api.model, options.serverName, namespace, sources.operations.length, location, { discovery: options.mode === 'discovery', code: options.mode === 'code', confirm: options.confirm !== undefined, ...(regenerate !== undefined && { regenerates: { ...(regenerate.generator !== undefined && { generator: regenerate.generator }) } }) }) },
    ...[...new Set(options.clients ?? [])].map((client) => emitClientConfig(client, options.serverName, location, api.model)),
  ];
  return { files, operations: sources.operations, skipped: sources.skipped, namespace, location };
}

/**
 * The files of a project made from the spec, which `regenerate` writes again: McpTools.g.cs (and the search index
 * and McpDiscoveryText.g.cs in discovery mode) and the client in Client/.
 */
export function generateSources(api: PreparedApi, options: Selection & { serverName: string; mode?: ToolMode; structuredOutput?: boolean; confirm?: string; resources?: boolean }): { files: GeneratedFile[]; operations: readonly Operation[]; skipped: readonly Skipped[] } {
  checkServerName(options.serverName);
  const namespace = projectName(options.serverName);
  const clientNamespace = `${namespace}.Client`;
  const plan = planNames(api.model, clientNamespace);
  const { resources, ...rest } = options;
  const tools = generateTools(api, { ...rest, namespace, clientNamespace, plan, ...(resources === true && { resources: { serverName: options.serverName } }) });
  const files = [
    tools.file,
    ...tools.beside,
    ...generateClient(api, { namespace: clientNamespace, plan }).map((f) => movedTo(f, `Client/${f.path}`)),
  ];
  return { files, operations: tools.operations, skipped: tools.skipped };
}

/** What the project's sources are made from, for `regenerate`: the spec relative to the project (or its URL) and the options. */
function generationRecord(api: PreparedApi, options: ProjectOptions): GenerationRecord {
  const source = api.spec.source;
  const fromProject = (path: string): string => relative(resolve(options.outputDir), path).split('\\').join('/');
  return {
    generator: `openapi-mcp-dotnet@${packageVersion()}`,
    spec: source.isUrl ? source.location : fromProject(source.location),
    ...(api.spec.overlays.length > 0 && { overlays: api.spec.overlays.map((o) => fromProject(o.location)) }),
    serverName: options.serverName,
    options: {
      ...(options.tags !== undefined && options.tags.length > 0 && { tags: options.tags }),
      ...(options.include !== undefined && { include: options.include }),
      ...(options.exclude !== undefined && { exclude: options.exclude }),
      ...(options.readOnly === true && { readOnly: true }),
      ...(options.mode !== undefined && options.mode !== 'operations' && { mode: options.mode }),
      ...(checkSearch(options.search, options.mode) === 'hybrid' && { search: 'hybrid' }),
      ...(options.structuredOutput === true && { structuredOutput: true }),
      ...(options.confirm !== undefined && { confirm: options.confirm }),
      ...(options.resources === true && { resources: true }),
      ...(options.allowExternalRefs === true && { allowExternalRefs: true }),
    },
  };
}

/** Where `init` puts the server and how its client entries start it (`mcp.json` holds an absolute path). */
function serverLocation(options: { serverName: string; outputDir: string; launch?: Launch; transport?: Transport; forwardAuth?: string; auth?: string; upstreamTokenExchange?: boolean; redis?: boolean; credential?: string }, framework: string, pkg?: PackageInfo): ServerLocation {
  return {
    ...(options.credential === 'azure' && { azureCredential: true }),
    projectDirectory: resolve(options.outputDir), launch: options.launch ?? 'run', assembly: projectName(options.serverName), framework,
    ...(pkg && { package: { id: pkg.id, version: pkg.version } }),
    ...(options.transport === 'http' && { http: { ...(options.forwardAuth !== undefined && { forwardAuth: options.forwardAuth }), ...(options.auth === 'oauth' && { oauth: true }), ...(options.upstreamTokenExchange === true && { tokenExchange: true }), ...(options.redis === true && { redis: true }) } }),
  };
}

/** The C# project, assembly and namespace name for a server name: `petstore api` → `PetstoreApi`. */
export function projectName(serverName: string): string {
  return identifier(words(serverName), 'pascal', 'McpServer').replace(/^@/, '');
}
