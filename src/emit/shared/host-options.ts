/** The options of the generated host project, shared by the files that make it. */
import type { SecurityScheme, ServerIcon } from '../../model/types.js';
import type { ClientParameterNames } from '../../names/plan.js';
import type { ConfirmPolicy } from '../../model/confirm.js';

/**
 * What the server publishes: one tool per operation; three that search, describe and call them; or search,
 * describe and run_script, which runs the model's JavaScript against the operations.
 */
export type ToolMode = 'operations' | 'discovery' | 'code';
export const TOOL_MODES: readonly ToolMode[] = ['operations', 'discovery', 'code'];

/** How clients reach the server: a child process's stdin/stdout, or MCP's Streamable HTTP (stateless). */
export type Transport = 'stdio' | 'http';
export const TRANSPORTS: readonly Transport[] = ['stdio', 'http'];

/** How callers of an HTTP server are admitted: by the deployment around it, or by OAuth access tokens. */
export type AuthMode = 'oauth';
export const AUTH_MODES: readonly AuthMode[] = ['oauth'];

export interface HostOptions {
  /** Used for the project and assembly names and the environment variable prefix. */
  readonly serverName: string;
  readonly namespace: string;
  readonly clientNamespace: string;
  readonly framework: string;
  readonly serverVersion: string;
  /** The spec's logo, for `serverInfo.icons` and server.json. */
  readonly icon?: ServerIcon;
  /** The document names its server by this path alone: the host adds it to a base URL that has no path. */
  readonly serverPath?: string;
  /** Schemes whose credentials the host reads from configuration and sends. */
  readonly securitySchemes: readonly SecurityScheme[];
  /** Parameters the client sets once (`api-version`, an ARM `subscriptionId`), which the host reads from its settings. */
  readonly clientParameters?: readonly ClientParameterNames[];
  /** `--credential azure`: the document's Azure AD schemes get their tokens from Azure.Identity's DefaultAzureCredential. */
  readonly azureCredential?: boolean;
  /** The API has long-running operations (`x-ms-long-running-operation`): the host reads how long a call watches one. */
  readonly longRunning?: boolean;
  readonly mode: ToolMode;
  /** `hybrid`: search_operations fuses the lexical ranking with sentence vectors' (discovery and code mode). */
  readonly search?: 'lexical' | 'hybrid';
  /** `--resources`: the server also publishes McpResources (GET operations as resources). */
  readonly resources?: boolean;
  readonly transport: Transport;
  /** Destructive tools ask the user before their request is sent. */
  readonly confirm?: ConfirmPolicy;
  /** HTTP only: callers are admitted by OAuth access tokens the configured authority issued for the server. */
  readonly auth?: AuthMode;
  /** With auth: each call's API token is the caller's token exchanged at the authority (RFC 8693). */
  readonly upstreamTokenExchange?: boolean;
  /** HTTP only: the deployment files run Redis, whose address the replicas share state through, and scale them automatically. */
  readonly redis?: boolean;
  /** HTTP only: the incoming request header each call's API credential is taken from, instead of the settings. */
  readonly forwardAuth?: string;
  /** stdio only: the project packs as a NuGet MCP server (`dotnet pack`), started by clients with dnx. */
  readonly package?: PackageInfo;
  /** The build regenerates `outputs` (the client and tools) from the spec and overlays (relative to the project). */
  readonly regenerate?: RegenerationTarget;
}

/** The NuGet MCP server package (nuget.ts): what it is called and says of itself. */
export interface PackageInfo {
  readonly id: string;
  readonly version: string;
  /** The tool's command name (`ToolCommandName`). */
  readonly command: string;
  /** One line, at most 100 characters (the registry's limit). */
  readonly description: string;
  /** The spec's base URL; without one, the base URL setting is required. */
  readonly defaultBaseUrl?: string;
}

/** The key of the server in MCP client configurations: the lower-case server name. */
export function serverKey(serverName: string): string {
  return serverName.trim().toLowerCase();
}

/** What the .csproj regenerates: the spec and overlays (relative to the project), the files written, and with what. */
export interface RegenerationTarget {
  readonly spec: string;
  readonly overlays: readonly string[];
  readonly outputs: readonly string[];
  /** A command the user chose (`init --generator`): the project's default, the same on every machine. */
  readonly generator?: string;
  /** Otherwise the generator that wrote the project, as a command line for this machine's shell: in `<Name>.csproj.user`. */
  readonly localGenerator?: string;
}
