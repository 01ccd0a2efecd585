/** The command line's option texts, and the small mappings from parsed options to the generator's options. */
import type { ToolMode, Transport } from './emit/project/host.js';

export const EXTERNAL_REFS = 'follow external $refs anywhere (by default only files under the spec\'s folder, or its own host for a URL)';
export const MODE = 'what the server publishes: "operations" (one tool per operation, the default) "discovery" (three tools that search the operations, describe one and call it: for APIs too big to list) or "code" (search, describe, and run_script, which runs the model\'s JavaScript against the API in a sandbox: for big APIs and multi-step work)';
/** The `--mode` option, when given, for the generator's options. */
export const mode = (options: { mode?: string }): { mode?: ToolMode } => (options.mode === undefined ? {} : { mode: options.mode as ToolMode });
export const TRANSPORT = 'how clients reach the server: "stdio" (a child process of the client, the default) or "http" (an ASP.NET Core server, MCP Streamable HTTP at /mcp, stateless, GET /healthz; for shared and scaled-out hosting)';
export const FORWARD_AUTH = 'with --transport http: take each call\'s API credential from this header of the incoming MCP request (the caller\'s own token) instead of the server\'s settings';
export const AUTH = 'with --transport http: "oauth" admits only callers with an OAuth access token issued for the server by the authority its settings name (MCP authorization)';
/** The `--transport`, `--forward-auth` and `--auth` options, when given, for the generator's options. */
export const EXCHANGE = 'with --auth oauth: each call\'s API token is the caller\'s MCP token exchanged at the authority for one for the API (RFC 8693 token exchange)';
export const REDIS = 'with --transport http: kubernetes.yaml also runs Redis, whose address the replicas get in their REDIS setting to share each caller\'s rate limit and script share, tokens and the operation key, and scales them with a HorizontalPodAutoscaler (the server reads REDIS whatever this option)';
export const transport = (options: { transport?: string; forwardAuth?: string; auth?: string; upstreamTokenExchange?: boolean; redis?: boolean }): { transport?: Transport; forwardAuth?: string; auth?: string; upstreamTokenExchange?: boolean; redis?: boolean } => ({
  ...(options.upstreamTokenExchange === true && { upstreamTokenExchange: true }),
  ...(options.redis === true && { redis: true }),
  ...(options.transport !== undefined && { transport: options.transport as Transport }),
  ...(options.forwardAuth !== undefined && { forwardAuth: options.forwardAuth }),
  ...(options.auth !== undefined && { auth: options.auth }),
});
export const STRUCTURED = 'tools with a JSON answer also publish its outputSchema and return structuredContent beside the JSON text (MCP 2025-06-18 and later)';
export const CREDENTIAL = 'where the server gets the API\'s credentials: "settings" (the values its settings give, the default) or "azure" (for the document\'s Azure AD schemes, Azure.Identity\'s DefaultAzureCredential: environment, workload identity, managed identity, Azure CLI…, with the scope of the API\'s origin)';
export const credential = (options: { credential?: string }): { credential?: string } => (options.credential === undefined ? {} : { credential: options.credential });
export const CONFIRM = '"destructive": a destructive tool (DELETE, or what x-mcp confirm marks) asks the user through MCP elicitation before its request is sent, and sends nothing unless the user accepts; the server\'s CONFIRM setting "off" turns it off for trusted automation';
export const SEARCH = 'with --mode discovery or code: "lexical" (the default) ranks by the words of the request, "hybrid" fuses that ranking with a sentence model\'s (all-MiniLM-L6-v2, shipped as a NuGet package; the build computes the operations\' vectors), which finds more requests phrased in other words than the API\'s';
/** The `--search` option, when given. */
export const search = (options: { search?: string }): { search?: string } => (options.search === undefined ? {} : { search: options.search });
/** The `--confirm` option, when given. */
export const confirm = (options: { confirm?: string }): { confirm?: string } => (options.confirm === undefined ? {} : { confirm: options.confirm });
export const RESOURCES = 'GET operations without side effects also become MCP resources: one that needs no argument a resource (<server>://books), one whose only required parameters are path parameters a resource template (<server>://books/{bookId}); tools writes McpResources.g.cs, host registers it';
export const CHECK = 'write nothing: exit 5 and list the files whose content differs from what would be generated (for CI)';
export const splitTags = (value: string): string[] => value.split(',').map((t) => t.trim()).filter((t) => t !== '');
export const collect = (value: string, previous: string[] = []): string[] => [...previous, ...splitTags(value)];
/** A repeatable option whose values are kept whole (a file name may have a comma). */
export const each = (value: string, previous: string[] = []): string[] => [...previous, value];
export const OVERLAY = 'apply an OpenAPI Overlay (1.0 or 1.1, JSON or YAML file) to the spec before anything else: fixes to a spec you cannot edit; repeatable, applied in the order given';

