import { SCRIPT_ADMISSION, SCRIPT_LIMITS, SCRIPT_ROOM_MB } from '../code/code.js';
import { HTTP_LIMITS } from '../http/limits.js';
import { join } from 'node:path';
import type { ApiModel, SecurityScheme } from '../../model/types.js';
import { clientParameterVariable, credentialVariables, environmentVariables, requiredVariables } from '../../names/environment.js';
import { planClientParameters } from '../../names/plan.js';
import { serverKey } from './host.js';
import { telemetryRows } from './telemetry.js';
import type { GeneratedFile } from '../shared/file.js';
import { baseUrlMeaning } from '../shared/base-url.js';
import { generatedProjectFile } from './layout.js';
import { userProjectFile } from './regenerate.js';

/** MCP clients whose configuration `init --client` writes. */
export const MCP_CLIENTS = ['claude-desktop', 'claude-code', 'vscode', 'cursor'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

type Entry = { command: string; args: string[]; env?: Record<string, string> } | { type: 'http'; url: string; headers?: Record<string, string> };

/** Where an HTTP server listens when ASPNETCORE_URLS and --urls do not say (ASP.NET Core's default). */
export const HTTP_DEFAULT_URL = 'http://localhost:5000';

/**
 * Placeholders for every setting the server cannot start or call without, so that a user sees what to fill in:
 * the base URL when the spec names no absolute one, and every credential variable.
 */
export function settingPlaceholders(serverName: string, model: Pick<ApiModel, 'serverUrl' | 'serverPath' | 'securitySchemes' | 'operations'>, location?: Pick<ServerLocation, 'azureCredential'>): Record<string, string> {
  const env: Record<string, string> = {};
  if (model.serverUrl === undefined) env[environmentVariables(serverName).baseUrl] = model.serverPath === undefined ? '<base-url-of-the-api>' : '<origin-of-the-api>';
  // The parameters each call needs that the client sets once, unless the document gives their value (api-version).
  for (const client of planClientParameters(model.operations).values()) {
    if (!client.client.fixed) env[clientParameterVariable(serverName, client.setting)] = `<${client.setting.toLowerCase().replace(/_/g, '-')}>`;
  }
  for (const scheme of model.securitySchemes) {
    // DefaultAzureCredential signs in as its own environment says: nothing to fill in.
    if (location?.azureCredential && scheme.kind === 'accessToken' && scheme.azure) continue;
    const variables = credentialVariables(serverName, scheme);
    for (const name of requiredVariables(variables)) env[name] = `<${name.toLowerCase().replace(/_/g, '-')}>`;
  }
  return env;
}

/**
 * How an MCP client starts the server. `run`: `dotnet run --project DIR` (SPEC 2.4), always the current
 * code, but MSBuild checks the restore and the build on every start (about a second). `dll`: `dotnet`
 * with the Release build's DLL, which starts in a few tenths of a second but must be built first, and
 * again after each generation. `dnx`: the packed NuGet MCP server, `dnx <id>@<version> --yes` (from a NuGet feed).
 */
export const LAUNCH_FORMS = ['run', 'dll', 'dnx'] as const;
export type Launch = (typeof LAUNCH_FORMS)[number];

/** Where and how the server is, for its client entry. */
export interface ServerLocation {
  readonly projectDirectory: string;
  readonly launch: Launch;
  /** Assembly name and target framework: where `dotnet build -c Release` puts the DLL. */
  readonly assembly: string;
  readonly framework: string;
  /** A packed server: its package, which `dnx` launches take from a NuGet feed. */
  readonly package?: { readonly id: string; readonly version: string };
  /** `--credential azure`: the Azure AD schemes' tokens come from DefaultAzureCredential, not from settings. */
  readonly azureCredential?: boolean;
  /** An HTTP server: clients connect to its /mcp, sending this header with the caller's credential when given. */
  readonly http?: { readonly forwardAuth?: string; readonly oauth?: boolean; readonly tokenExchange?: boolean; readonly redis?: boolean };
}

/** The command line of a client entry. */
export function launchCommand(location: ServerLocation): { command: string; args: string[] } {
  const { projectDirectory, launch, assembly, framework } = location;
  if (launch === 'dnx' && location.package) return { command: 'dnx', args: [`${location.package.id}@${location.package.version}`, '--yes'] };
  return launch === 'dll'
    ? { command: 'dotnet', args: [join(projectDirectory, 'bin', 'Release', framework, `${assembly}.dll`)] }
    : { command: 'dotnet', args: ['run', '--project', projectDirectory] };
}

function entry(serverName: string, location: ServerLocation, model: Pick<ApiModel, 'serverUrl' | 'serverPath' | 'securitySchemes' | 'operations'>): Entry {
  if (location.http) {
    const header = location.http.forwardAuth;
    return { type: 'http', url: `${HTTP_DEFAULT_URL}/mcp`, ...(header !== undefined && { headers: { [header]: `<your-api-credential>` } }) };
  }
  const env = settingPlaceholders(serverName, model, location);
  return { ...launchCommand(location), ...(Object.keys(env).length > 0 && { env }) };
}

/** `mcp.json`: the entry of SPEC 2.4/4.6 (`mcpServers`), with placeholders for the settings the API needs. */
export function emitMcpConfig(serverName: string, location: ServerLocation, model: Pick<ApiModel, 'serverUrl' | 'serverPath' | 'securitySchemes' | 'operations'>): string {
  return JSON.stringify({ mcpServers: { [serverKey(serverName)]: entry(serverName, location, model) } }, null, 2) + '\n';
}

/** Where `init --client` writes each client's own file, relative to the project directory. */
export const CLIENT_CONFIG_FILES: Record<McpClient, string> = {
  vscode: '.vscode/mcp.json',
  cursor: '.cursor/mcp.json',
  'claude-code': '.mcp.json',
  'claude-desktop': 'claude_desktop_config.json',
};

/** The file an MCP client reads, in that client's own format, relative to the project directory. */
export function emitClientConfig(client: McpClient, serverName: string, location: ServerLocation, model: Pick<ApiModel, 'serverUrl' | 'serverPath' | 'securitySchemes' | 'operations'>): GeneratedFile {
  const key = serverKey(serverName);
  const value = entry(serverName, location, model);
  // VS Code keeps its servers under `servers`, with the transport named; the others use SPEC 2.4's `mcpServers`.
  const config = client === 'vscode' ? { servers: { [key]: 'url' in value ? value : { type: 'stdio', ...value } } } : { mcpServers: { [key]: value } };
  return { path: CLIENT_CONFIG_FILES[client], content: JSON.stringify(config, null, 2) + '\n' };
}

/** Where each client's configuration lives, per OS. */
export const CLIENT_CONFIG_LOCATIONS: Record<McpClient, string> = {
  'claude-desktop': 'merge into claude_desktop_config.json — macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\, Linux: ~/.config/Claude/ — then restart Claude',
  'claude-code': '.mcp.json at the root of the project you open in Claude Code (or run: claude mcp add …)',
  vscode: '.vscode/mcp.json in your workspace (or the user profile\'s mcp.json: "MCP: Open User Configuration")',
  cursor: '.cursor/mcp.json in a project, or ~/.cursor/mcp.json (Windows: %USERPROFILE%\\.cursor\\mcp.json) for all projects',
};

/** README.md of the generated project: how to build, run, configure and register it. */
export function emitProjectReadme(model: ApiModel, serverName: string, projectName: string, toolCount: number, location?: ServerLocation, more: { discovery?: boolean; code?: boolean; confirm?: boolean; regenerates?: { generator?: string } } = {}): string {
  const discovery = more.discovery === true;
  const code = more.code === true;
  const env = environmentVariables(serverName);
  const rows = [
    [env.baseUrl, model.serverUrl ? `\`${model.serverUrl}\`` : '(none: required)', baseUrlMeaning(model)],
    ...[...planClientParameters(model.operations).values()].map((client) => [
      clientParameterVariable(serverName, client.setting),
      client.client.fixed && client.client.value !== undefined ? `\`${client.client.value}\` (the document's)` : '(none)',
      client.client.fixed
        ? `the \`${client.name}\` every call sends; no tool takes another`
        : `the \`${client.name}\` (${client.location}) a call sends when it gives none, as Azure's SDKs set it once per client`,
    ]),
    [env.timeout, '30', 'timeout of each HTTP call, in seconds'],
    ...(model.operations.some((op) => op.longRunning) ? [
      [env.longRunningWait, '50', 'how long a call watches a long-running operation (`x-ms-long-running-operation`) before it answers that the operation is still running, with a token to watch it again'],
      [env.operationKey, '(a new one each start)', `the key (base64, at least 32 bytes) that signs those tokens: set it alike on every replica, so that any of them can watch an operation another started${location?.http ? ` (with \`${env.redis}\` set, the replicas share one without it)` : ''}`],
    ] : []),
    [env.maxResultLength, '100000', 'longest tool answer in characters; longer ones are cut with a `[truncated: …]` note'],
    [env.headers, '(none)', 'extra headers for every request: `Name: value; Other: value` (credential-like values are redacted from answers like configured credentials)'],
    [env.userAgent, '`<server>/<API version> openapi-mcp-dotnet/<version>`', 'the User-Agent of every request (a `User-Agent` in the headers setting wins)'],
    [env.iconUrl, model.icon ? 'the spec\'s logo (`info.x-logo`)' : '(none)', 'the server\'s icon, which clients show beside it (`serverInfo.icons`): an https URL or a `data:` URI of a PNG, JPEG, SVG or WebP image'],
    ...telemetryRows(env.auditLog),
    ...(more.confirm === true ? [[env.confirm, '`destructive`', '`destructive`: a destructive tool (DELETE, or what the spec marks `x-mcp: { confirm: true }`) asks the user before its request is sent, and a client that cannot ask is refused; `off`: such calls are sent without asking (trusted automation only)']] : []),
  ];
  if (location?.http) {
    rows.push(
      [env.allowedHosts, '(none)', 'host names (without port) the server answers to besides loopback ones, comma-separated; with none, a server that listens on loopback only answers loopback names, and one that listens on other addresses (Docker, Kubernetes) answers any'],
      [env.allowedOrigins, '(none)', 'origins (`scheme://host[:port]`) of web pages allowed to call the server besides loopback ones, comma-separated; a request with any other `Origin` is refused'],
      [env.trustedProxies, '(none)', 'the reverse proxies and ingresses in front of the server (IP addresses or networks such as `10.0.0.0/8`, comma-separated): a request from one of them is the caller its `X-Forwarded-For` names, for the rate limit, the script share and the audit log; from anyone else the header is ignored'],
      [env.redis, '(none)', 'a Redis server (a StackExchange.Redis connection string: `host:port`, and options after commas such as `password=…,ssl=true`) through which the replicas of a deployment share each caller\'s rate limit and script share, the tokens obtained for the API (sealed) and the long-running operations\' key; while it cannot be reached, each replica uses its own and the log says so. Without it each replica keeps its own'],
      [env.rateLimitPerMinute, String(HTTP_LIMITS.perMinute), `requests to /mcp one caller (token subject, else client address) may make a minute, across the replicas with \`${env.redis}\`, per replica without it; over it: 429 with \`Retry-After\`; 0: no limit`],
      [env.rateLimitBurst, String(HTTP_LIMITS.burst), 'requests one caller may make at once after a pause'],
      [env.maxRequestBytes, String(HTTP_LIMITS.maxRequestBytes), 'largest request body in bytes; a larger one is refused with 413 before it is read'],
      [env.drainSeconds, String(HTTP_LIMITS.drainSeconds), 'on SIGTERM, how long calls in flight may take to finish (no new connection is accepted meanwhile) before the server ends'],
    );
  }
  if (code) {
    rows.push(
      [env.scriptTimeout, String(SCRIPT_LIMITS.timeoutSeconds), 'wall time of one run_script script, in seconds'],
      [env.scriptMaxStatements, String(SCRIPT_LIMITS.maxStatements), 'statements one script may run'],
      [env.scriptMaxRecursion, String(SCRIPT_LIMITS.maxRecursion), 'depth of nested function calls in a script'],
      [env.scriptMaxMemory, String(SCRIPT_LIMITS.maxMemoryMb), `memory one script may keep alive, in MB (it may allocate and drop as much as it likes); its interpreter process also has a hard heap limit of this plus ${SCRIPT_ROOM_MB} MB`],
      [env.scriptMaxCalls, String(SCRIPT_LIMITS.maxCalls), 'API calls one script may make (so also at most this many at once); the next ends the script'],
      [env.scriptMaxRunning, 'cores (at least 2)', 'scripts running at once; each has an interpreter process, and at most 2 more are kept warm'],
      [env.scriptQueueLength, `${SCRIPT_ADMISSION.queuePerRunning} × ${env.scriptMaxRunning}`, 'scripts waiting for a running slot; a script that finds the queue full is refused at once with `Error: busy: …`'],
      [env.scriptQueueWait, String(SCRIPT_ADMISSION.queueWaitSeconds), 'longest wait in the queue, in seconds; a script still waiting then is refused with `Error: busy: …` (its time limit counts from its start, not from its call)'],
      [env.scriptMaxRunningPerCaller, `half of ${env.scriptMaxRunning} (at least 1)`, `HTTP: scripts one caller (token subject, else client address) may run at once${location?.http ? ` (with \`${env.redis}\`, on all the replicas together)` : ''}; each caller may also hold at most half the queue`],
      [env.scriptShortSeconds, String(SCRIPT_ADMISSION.shortSeconds), `while scripts wait, one that has held its slot longer than this (waiting for its interpreter included) moves to a lane of as many slots for long-running scripts (one caller's share of them as above), freeing its slot; where that lane is full it is stopped (one still waiting for its interpreter first), answering busy: long scripts cannot crowd out short ones`],
    );
  }
  if (location?.http?.oauth) {
    rows.push(
      [env.authAuthority, '(none: required)', 'the authorization server\'s issuer URL (`https://…`; `http://` only on a loopback address); its metadata is found by OpenID Connect discovery or RFC 8414'],
      [env.resourceUrl, '(none: required)', 'this server\'s MCP URL as clients reach it (`https://mcp.example.com/mcp`): the audience (`aud`) every access token must have'],
      [env.authScopes, '(none)', 'scopes every call needs, space-separated; a token without them is refused with 403 `insufficient_scope`'],
    );
    if (location.http.tokenExchange) {
      rows.push(
        [env.authClientId, '(none: required)', 'the client this server exchanges callers\' tokens as (RFC 8693), at the authority\'s token endpoint, for tokens for the API\'s base URL'],
        [env.authClientSecret, '(none: required)', 'that client\'s secret (sent with HTTP Basic)'],
      );
    }
  }
  for (const scheme of model.securitySchemes) {
    const variables = credentialVariables(serverName, scheme);
    const azure = scheme.kind === 'accessToken' && scheme.azure === true;
    if (azure && location?.azureCredential) {
      for (const name of requiredVariables(variables)) rows.push([name, '(none)', `a token for ${scheme.name} obtained elsewhere; when not set, DefaultAzureCredential signs in (environment variables AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_CLIENT_SECRET; workload identity; managed identity; \`az login\`…), and its tokens are cached until five minutes before they expire`]);
      rows.push([env.azureScope, 'the base URL\'s origin + `/.default`', 'the scope DefaultAzureCredential asks for (`https://management.azure.com/.default`, `https://graph.microsoft.com/.default`)']);
      continue;
    }
    for (const name of requiredVariables(variables)) rows.push([name, '(none)', `credential for the ${describeScheme(scheme)}${azure ? '; or generate the project with `--credential azure` to sign in with Azure.Identity\'s DefaultAzureCredential (az login, managed identity…) instead' : ''}`]);
    if (variables.scopes) rows.push([variables.scopes, '(none)', `space-separated scopes to ask for with ${scheme.name}`]);
    if (variables.tokenUrl && scheme.kind === 'oauth2ClientCredentials') rows.push([variables.tokenUrl, `\`${scheme.tokenUrl}\``, `the token URL of ${scheme.name}`]);
    if (variables.accessToken) rows.push([variables.accessToken, '(none)', `an access token for ${scheme.name} obtained elsewhere: when set, it is sent as it is and no token is asked for`]);
  }
  const md = (text: string): string => text.replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`).replace(/[\r\n\u2028\u2029]+/g, ' ');
  return [
    `# ${projectName}`,
    '',
    code
      ? `An MCP server for ${md(model.title)} ${md(model.version)}, generated by openapi-mcp-dotnet in code mode: its ${toolCount} operations are found with search_operations and describe_operation, and called by JavaScript the model writes, run by run_script in a sandbox (api.<name>(args) calls an operation).`
      : discovery
      ? `An MCP server for ${md(model.title)} ${md(model.version)}, generated by openapi-mcp-dotnet in discovery mode: its ${toolCount} operations are reached through three tools, search_operations, describe_operation and call_operation.`
      : `An MCP server with ${toolCount} tools for ${md(model.title)} ${md(model.version)}, generated by openapi-mcp-dotnet.`,
    '',
    '```sh',
    ...(location?.http ? ['dotnet build', `dotnet run --urls ${HTTP_DEFAULT_URL}   # serves MCP (Streamable HTTP) at /mcp, and GET /healthz`]
      : location?.launch === 'dll'
        ? ['dotnet build -c Release   # again after each generation: mcp.json starts this build', `dotnet bin/Release/${location.framework}/${location.assembly}.dll   # serves MCP over stdio; MCP clients start it for you`]
        : ['dotnet build', 'dotnet run          # serves MCP over stdio; MCP clients start it for you']),
    '```',
    '',
    `Two projects: \`${projectName}.csproj\` holds \`Program.cs\` and your own code, and references \`${generatedProjectFile(projectName)}\`, which compiles the generated code (every \`*.g.cs\` file, the client in \`Client/\`, and the support files in \`Mcp/\`). That project is built again only when its files change: an edit of your own code compiles \`${projectName}.csproj\` alone, however big the API.`,
    '',
    ...(location?.http ? [
      location.http.redis
        ? `\`Dockerfile\` builds an image (official .NET images, non-root, health check on /healthz; it listens on port 8080); \`kubernetes.yaml\` runs two to ten replicas (a HorizontalPodAutoscaler) behind a Service, and Redis, through which they share each caller's limits, the tokens and the operation key (\`${env.redis}\`). Any replica answers any request: no session affinity is needed.`
        : '`Dockerfile` builds an image (official .NET images, non-root, health check on /healthz; it listens on port 8080); `kubernetes.yaml` runs two replicas behind a Service. Any replica answers any request: no session affinity is needed.',
      '',
      `Every request's \`Host\` and \`Origin\` are checked first, so that a web page cannot drive the server through DNS rebinding: a request from a web page whose origin is not loopback or listed in \`${env.allowedOrigins}\` is refused with 403, and so is a \`Host\` that is not loopback or listed in \`${env.allowedHosts}\` (with none listed, a server that listens on other addresses than loopback answers any \`Host\`: list the names clients use once it is on a network). \`/healthz\` answers any \`Host\`. Anyone who can reach the server uses the API with its credentials: put it where only its callers can reach it.`,
      '',
      `Each caller (the token's subject, else the client's address: behind a proxy, the proxy's unless \`${env.trustedProxies}\` names it) may send ${HTTP_LIMITS.perMinute} requests to /mcp a minute (\`${env.rateLimitPerMinute}\`), ${HTTP_LIMITS.burst} at once (\`${env.rateLimitBurst}\`), counted across the replicas when \`${env.redis}\` names a Redis server, by each replica alone otherwise. A caller over the limit gets 429 with \`Retry-After\`; a body over ${HTTP_LIMITS.maxRequestBytes} bytes (\`${env.maxRequestBytes}\`) gets 413 unread. On SIGTERM the server stops accepting connections, lets the calls in flight finish for up to ${HTTP_LIMITS.drainSeconds} seconds (\`${env.drainSeconds}\`), and exits.`,
      '',
    ] : []),
    ...(location?.http?.oauth ? [
      '## Authorization',
      '',
      `Only callers with an OAuth 2.1 access token for this server get through (MCP authorization): a JWT signed by the authority in \`${env.authAuthority}\`, issued by it, unexpired, whose \`aud\` is \`${env.resourceUrl}\`, with the scopes in \`${env.authScopes}\` and those the spec requires for the operation a tool calls (a call without them is refused with 403 \`insufficient_scope\`, naming the scopes to ask for). Every other request to /mcp is answered 401 with \`WWW-Authenticate: Bearer resource_metadata="…"\`, and the server publishes its protected-resource metadata (RFC 9728) at \`/.well-known/oauth-protected-resource\`, so that MCP clients find the authority and sign the user in by themselves. The caller's token is never sent to the API, which is called with ${location.http.tokenExchange ? `a token this server obtains for the caller: the caller's token exchanged at the authority (RFC 8693, as the client in \`${env.authClientId}\`) for one whose audience is the API's base URL, kept until it expires and redacted from answers` : 'this server\'s own credentials'}.`,
      '',
      'Register the server with your authorization server as an API (a resource) whose identifier is the URL in the resource setting, with the scopes you want to require, and let MCP clients register (dynamic client registration) or register them yourself. For example (not tested here): Microsoft Entra ID, authority `https://login.microsoftonline.com/<tenant>/v2.0` and an app registration that exposes an API with the resource URL as its Application ID URI; Auth0, authority `https://<tenant>.auth0.com/` and an API with the resource URL as its identifier; Keycloak, authority `https://<host>/realms/<realm>` and an audience mapper adding the resource URL; Okta, authority `https://<org>.okta.com/oauth2/<server>` with the resource URL as the audience.',
      '',
    ] : []),
    ...(location?.package ? [
      '## Package',
      '',
      `\`dotnet pack -c Release -o nupkg\` writes ${location.package.id}.${location.package.version}.nupkg, a NuGet MCP server (a .NET tool of package type McpServer, with \`.mcp/server.json\` for the MCP Registry). Push it to a NuGet feed; clients start it with \`dnx ${location.package.id}@${location.package.version} --yes\` (\`mcp.json\` does). To try it before publishing: \`dnx ${location.package.id}@${location.package.version} --yes --source nupkg\`.`,
      '',
      'Before publishing: choose a package id of your own (`PackageId` in the .csproj), and in `.mcp/server.json` replace `OWNER` with your GitHub user (or a domain you own) and keep its versions equal to `PackageVersion`.',
      '',
    ] : []),
    ...(more.regenerates ? [
      '## Regeneration',
      '',
      '`dotnet build` writes the client (`Client/`) and the tools (`McpTools.g.cs`) again when the spec, an overlay, or `openapi-mcp.json` (their paths and the generator\'s options) is newer than the generated files; otherwise it skips that step. '
        + (more.regenerates.generator === undefined
          ? `It runs the command in the \`OpenApiMcpGenerator\` property, which \`${userProjectFile(projectName)}\` sets to the node and openapi-mcp-dotnet that wrote the project, on this machine: keep that file out of source control (\`dotnet new gitignore\` does). Where the property is not set, the build compiles the generated files as they are; set it to regenerate there (\`-p:OpenApiMcpGenerator="node /path/to/openapi-mcp-dotnet/bin/openapi-mcp-dotnet.js"\`, or in a Directory.Build.props). `
          : `It runs the command given to \`init --generator\`, the \`OpenApiMcpGenerator\` property of \`${generatedProjectFile(projectName)}\`; give another with \`-p:OpenApiMcpGenerator=…\`. `)
        + 'Turn it off with `-p:OpenApiMcpRegenerate=false`. By hand: `openapi-mcp-dotnet regenerate`. A change to the API\'s security schemes also needs `init` again (they are in Mcp/McpSettings.g.cs).',
      '',
    ] : []),
    '## Settings',
    '',
    'Environment variables, or the same keys in an `appsettings.json` beside this README (environment variables win).',
    '',
    '| Setting | Default | Meaning |',
    '|---|---|---|',
    ...rows.map(([name, fallback, meaning]) => `| \`${name}\` | ${fallback} | ${meaning} |`),
    '',
    ...(model.securitySchemes.length > 0 ? [
      'Credentials are sent only with the operations that require them, and never appear in tool arguments, answers or logs.',
      'A call that needs a credential that is not set answers `Error: …` naming the variable to set.',
      '',
    ] : []),
    '## Registering the server',
    '',
    location?.http
      ? '`mcp.json` holds the entry: the server\'s URL (the settings above go in the server\'s own environment). Where each client reads it:'
      : Object.keys(settingPlaceholders(serverName, model)).length > 0
      ? `\`mcp.json\` holds the entry; replace the placeholders in its \`env\` with ${[model.serverUrl === undefined ? 'the API\'s base URL' : '', model.securitySchemes.length > 0 ? 'your credentials' : ''].filter(Boolean).join(' and ')}. Where each client reads it:`
      : `\`mcp.json\` holds the entry; to pass settings, add an \`"env": { "${env.baseUrl}": "…" }\` block to it. Where each client reads it:`,
    '',
    ...MCP_CLIENTS.map((client) => `- ${client}: ${CLIENT_CONFIG_LOCATIONS[client]}`),
    '',
  ].join('\n');
}

function describeScheme(scheme: SecurityScheme): string {
  switch (scheme.kind) {
    case 'apiKey': return `API key \`${scheme.name}\` (${scheme.in} \`${scheme.parameter}\`)`;
    case 'bearer': return `bearer token \`${scheme.name}\``;
    case 'basic': return `basic authentication \`${scheme.name}\``;
    case 'oauth2ClientCredentials': return `OAuth2 client \`${scheme.name}\` (token from ${scheme.tokenUrl})`;
    case 'accessToken': return `OAuth2 access token \`${scheme.name}\` (obtained elsewhere)`;
  }
}
