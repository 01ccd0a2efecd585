/**
 * `manifest.json` of an MCP Bundle (`.mcpb`, manifest 0.3), the file Claude Desktop installs a local server from: how
 * to start the published server (`server.mcp_config`, with `${__dirname}` for the bundle's folder), the settings the
 * user is asked for (`user_config`: the base URL and each credential, credentials `sensitive`, handed to the server as
 * its environment variables through `${user_config.<key>}`), and the tools it publishes. No value of a credential is
 * ever in it: only the references Claude Desktop fills in from what the user typed.
 */
import type { ApiModel, Operation, SecurityScheme } from '../../model/types.js';
import type { NamePlan } from '../../names/plan.js';
import { credentialVariables, environmentPrefix, environmentVariables, requiredVariables } from '../../names/environment.js';
import { kebabName } from '../../names/identifiers.js';
import { toolDescription, trimDescription } from '../shared/describe.js';
import { discoveryTools } from '../discovery/discovery.js';
import { codeTools } from '../code/code.js';
import type { ToolMode } from '../shared/host-options.js';
import { baseUrlMeaning } from '../shared/base-url.js';

export const MCPB_MANIFEST_VERSION = '0.3';
export const MCPB_MANIFEST = 'manifest.json';
/** The folder of the bundle the published server is in. */
export const MCPB_SERVER_FOLDER = 'server';
/** The bundle's icon, when it has one (Claude Desktop shows a PNG file of the bundle). */
export const MCPB_ICON = 'icon.png';

/** Operating systems as MCPB names them (Node's `process.platform`), from a .NET runtime identifier. */
const PLATFORMS = { win: 'win32', osx: 'darwin', linux: 'linux', 'linux-musl': 'linux' } as const;
export type McpbPlatform = (typeof PLATFORMS)[keyof typeof PLATFORMS];
export const RUNTIME_PATTERN = /^(win|osx|linux|linux-musl)-(x64|x86|arm64|arm)$/;

/** The platform a runtime identifier (`osx-arm64`) runs on, or undefined for one a bundle cannot name. */
export function platformOf(runtime: string): McpbPlatform | undefined {
  const match = RUNTIME_PATTERN.exec(runtime);
  return match ? PLATFORMS[match[1] as keyof typeof PLATFORMS] : undefined;
}

/** The executable of a self-contained server published for `runtime`, relative to the bundle. */
export function executablePath(assembly: string, runtime: string): string {
  return `${MCPB_SERVER_FOLDER}/${runtime}/${assembly}${platformOf(runtime) === 'win32' ? '.exe' : ''}`;
}

export interface ManifestInput {
  readonly serverName: string;
  readonly model: ApiModel;
  readonly plan: NamePlan;
  readonly operations: readonly Operation[];
  readonly mode: ToolMode;
  /** The project's assembly: `<assembly>.dll`, or the executable of a self-contained publish. */
  readonly assembly: string;
  /** The target framework (`net10.0`): what a framework-dependent bundle needs on the machine. */
  readonly framework: string;
  /** Self-contained executables, one per runtime (at most one per platform); none: `dotnet <assembly>.dll`. */
  readonly runtimes: readonly string[];
  readonly author: string;
  /** The spec's `info.description`, for the long description. */
  readonly apiDescription?: string;
  readonly icon: boolean;
}

/** One `user_config` entry and the environment variable it is given to the server as. */
interface UserSetting {
  readonly key: string;
  readonly variable: string;
  readonly option: Record<string, unknown>;
}

/** The manifest, as JSON text. */
export function emitMcpbManifest(input: ManifestInput): string {
  const { model } = input;
  const settings = userSettings(input);
  const env = Object.fromEntries(settings.map((s) => [s.variable, `\${user_config.${s.key}}`]));
  const title = model.title.replace(/\s+/g, ' ').trim() || input.serverName;
  const tools = manifestTools(input);
  const framework = /^net(\d+)/.exec(input.framework)?.[1];
  const manifest = {
    manifest_version: MCPB_MANIFEST_VERSION,
    name: kebabName(input.serverName),
    display_name: title,
    version: semanticVersion(model.version),
    description: trimDescription(`MCP server for ${title}`, 200),
    long_description: [
      ...(input.apiDescription?.trim() ? [trimDescription(input.apiDescription.trim(), 2000)] : []),
      `${tools.length} tool${tools.length === 1 ? '' : 's'} calling ${title}${model.version ? ` ${model.version}` : ''}${model.serverUrl ? ` at ${model.serverUrl} (or the base URL you set)` : ''}, made from its OpenAPI document by openapi-mcp-dotnet.`,
      input.runtimes.length === 0 ? `Needs the .NET${framework === undefined ? '' : ` ${framework}`} runtime or a later one (the \`dotnet\` command).` : 'Self-contained: needs no .NET on the machine.',
    ].join('\n\n'),
    author: { name: input.author },
    ...(input.icon && { icon: MCPB_ICON }),
    server: server(input, env),
    tools,
    keywords: ['openapi', 'api', ...model.tags.slice(0, 8).map((t) => t.toLowerCase())].filter((k, i, all) => k.trim() !== '' && all.indexOf(k) === i),
    compatibility: { platforms: platforms(input.runtimes) },
    user_config: Object.fromEntries(settings.map((s) => [s.key, s.option])),
  };
  return JSON.stringify(manifest, null, 2) + '\n';
}

/** `server`: `dotnet ${__dirname}/server/<assembly>.dll`, or the executable of each platform's runtime. */
function server(input: ManifestInput, env: Record<string, string>): Record<string, unknown> {
  const [first, ...others] = input.runtimes;
  if (first === undefined) {
    const dll = `${MCPB_SERVER_FOLDER}/${input.assembly}.dll`;
    return { type: 'binary', entry_point: dll, mcp_config: { command: 'dotnet', args: [`\${__dirname}/${dll}`], env } };
  }
  const overrides = Object.fromEntries(others.map((runtime) => [platformOf(runtime), { command: `\${__dirname}/${executablePath(input.assembly, runtime)}` }]));
  return {
    type: 'binary',
    entry_point: executablePath(input.assembly, first),
    mcp_config: { command: `\${__dirname}/${executablePath(input.assembly, first)}`, args: [], env, ...(others.length > 0 && { platform_overrides: overrides }) },
  };
}

function platforms(runtimes: readonly string[]): McpbPlatform[] {
  return runtimes.length === 0 ? ['darwin', 'win32', 'linux'] : [...new Set(runtimes.map((r) => platformOf(r)).filter((p): p is McpbPlatform => p !== undefined))];
}

/** What the server publishes, as tools/list names and describes it. */
function manifestTools(input: ManifestInput): { name: string; description: string }[] {
  if (input.mode === 'operations') {
    // In the order of the server's tools/list (McpToolCatalog: ordinal order of the names).
    return input.operations.map((op) => ({ name: input.plan.operations.get(op.id)?.toolName ?? '', description: toolDescription(op) }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const tools = [...discoveryTools(input.mode), ...(input.mode === 'code' ? codeTools() : [])];
  return tools.map((tool) => ({ name: tool.name, description: tool.description.split('\n')[0]!.trim() }));
}

/** The settings the user is asked for: the base URL, each credential (sensitive), and extra headers (sensitive). */
function userSettings(input: ManifestInput): UserSetting[] {
  const names = environmentVariables(input.serverName);
  const prefix = `${environmentPrefix(input.serverName)}_`;
  const key = (variable: string): string => variable.slice(prefix.length).toLowerCase();
  const serverUrl = input.model.serverUrl;
  const baseUrl: UserSetting = {
    key: key(names.baseUrl), variable: names.baseUrl,
    option: {
      type: 'string', title: 'API base URL',
      description: serverUrl === undefined ? baseUrlMeaning(input.model).replace(/^./, (c) => c.toUpperCase()) : `Base URL of the API (http or https); the spec's is ${serverUrl}`,
      required: serverUrl === undefined,
      ...(serverUrl !== undefined && { default: serverUrl }),
    },
  };
  const credentials = input.model.securitySchemes.flatMap((scheme) => {
    const needed = neededByAll(scheme, input.operations);
    return requiredVariables(credentialVariables(input.serverName, scheme)).map((variable): UserSetting => ({
      key: key(variable), variable,
      option: {
        type: 'string', title: credentialTitle(scheme, variable), description: credentialDescription(scheme),
        sensitive: true, required: needed,
        // An optional setting left empty reaches the server empty (unset), not as the unreplaced reference.
        ...(!needed && { default: '' }),
      },
    }));
  });
  const headers: UserSetting = {
    key: key(names.headers), variable: names.headers,
    option: { type: 'string', title: 'Extra headers', description: 'Headers sent with every request, "Name: value; Other: value" (a token for an API whose spec declares none)', sensitive: true, required: false, default: '' },
  };
  return [baseUrl, ...credentials, headers];
}

/** Every selected operation needs this scheme's credential (the only way the API takes it); OAuth client credentials may be a ready token instead. */
function neededByAll(scheme: SecurityScheme, operations: readonly Operation[]): boolean {
  if (scheme.kind === 'oauth2ClientCredentials' || operations.length === 0) return false;
  return operations.every((op) => op.security !== undefined && op.security.length > 0 && op.security.every((alternative) => alternative.includes(scheme.name)));
}

function credentialTitle(scheme: SecurityScheme, variable: string): string {
  const part = variable.endsWith('_USERNAME') ? 'user name' : variable.endsWith('_PASSWORD') ? 'password' : variable.endsWith('_CLIENT_ID') ? 'client ID' : variable.endsWith('_CLIENT_SECRET') ? 'client secret' : scheme.kind === 'apiKey' ? 'API key' : 'token';
  return `${scheme.name}: ${part}`.slice(0, 100);
}

function credentialDescription(scheme: SecurityScheme): string {
  switch (scheme.kind) {
    case 'apiKey': return `Credential for ${scheme.name}, sent in the ${scheme.in} ${scheme.parameter}`;
    case 'basic': return `Credential for ${scheme.name} (HTTP Basic)`;
    case 'oauth2ClientCredentials': return `Credential for ${scheme.name} (OAuth 2.0 client credentials, token from ${scheme.tokenUrl})`;
    default: return `Credential for ${scheme.name}, sent as a bearer token`;
  }
}

/** MCPB versions are semantic versions: the API's when it is one (`2.1`, `v3`: 1.0.0). */
export function semanticVersion(version: string): string {
  if (/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(version)) return version;
  return /^\d+\.\d+$/.test(version) ? `${version}.0` : '1.0.0';
}
