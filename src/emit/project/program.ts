import { stringLiteral, CSharpWriter } from '../shared/writer.js';
import { banner } from '../shared/banner.js';
import { FIXED_NAMES } from '../../names/plan.js';
import { clientParameterVariable, credentialVariables, environmentVariables, requiredVariables } from '../../names/environment.js';
import type { SecurityScheme } from '../../model/types.js';
import { serverKey, type HostOptions } from './host-options.js';
import { packageVersion } from '../../package.js';
import { readAccessSettings, useAccessCheck } from '../http/access.js';
import { readAuthorizationSettings, useAuthorization } from '../http/authorization.js';
import { AUDIT_FILTER_LINE, configureTelemetry } from './telemetry.js';
import { readScriptLimits } from '../code/settings.js';
import { readLimitSettings, useLimits } from '../http/limits.js';
import { ICONS_MEMBER, readIconSetting } from './server-icon.js';
import { readConfirmSetting } from '../tools/confirm.js';
import { registerResources } from '../resources/resources.js';
import { hybridFlags, isHybrid, useHybrid } from '../discovery/hybrid.js';

/** Program.cs of the generated host: settings, credentials, the API's HttpClient, the MCP server and its transport. */
export function emitProgram(options: HostOptions): string {
  const env = environmentVariables(options.serverName);
  const w = new CSharpWriter();
  w.line(banner(`the server ${options.serverName}`).trimEnd()).line('#nullable enable').line();
  const http = options.transport === 'http';
  const usings = ['System', 'System.Globalization', 'System.Net', 'System.Net.Http', 'System.Threading.Tasks', ...(http ? ['Microsoft.AspNetCore.Builder', 'Microsoft.AspNetCore.Http'] : []), 'Microsoft.Extensions.Configuration', 'Microsoft.Extensions.DependencyInjection', 'Microsoft.Extensions.Hosting', 'Microsoft.Extensions.Http.Resilience', 'Microsoft.Extensions.Logging', 'ModelContextProtocol.Protocol', 'ModelContextProtocol.Server', 'Polly'];
  for (const using of usings) w.line(`using ${using};`);
  w.line(`using Client = global::${options.clientNamespace};`);
  w.line(`using Tools = global::${options.namespace};`);
  w.line();
  if (options.mode === 'code') {
    w.line('// The same program is also the interpreter process of one run_script script (started by the server itself).');
    w.line('if (args is [Tools.McpScriptRunner.Flag]) return Tools.McpScriptRunner.Run();');
    w.line();
  }
  if (isHybrid(options)) hybridFlags(w);
  if (http) {
    w.line('// Listens where ASPNETCORE_URLS or --urls say (http://localhost:5000 when neither does).');
    w.line('var builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = args, ContentRootPath = AppContext.BaseDirectory });');
    w.line();
    w.line('builder.Logging.ClearProviders();');
    w.line('builder.Logging.AddConsole();');
  } else {
    w.line('var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = args, ContentRootPath = AppContext.BaseDirectory });');
    w.line();
    w.line('// stdout carries the MCP protocol: every log line goes to stderr.');
    w.line('builder.Logging.ClearProviders();');
    w.line('builder.Logging.AddConsole(options => options.LogToStandardErrorThreshold = LogLevel.Trace);');
  }
  w.line('builder.Logging.AddFilter("System.Net.Http.HttpClient", LogLevel.Warning);');
  w.line();
  w.line('// Settings: environment variables, or appsettings.json beside the project (see README.md).');
  w.line('var settings = builder.Configuration;');
  w.line(`var baseUrl = settings[${stringLiteral(env.baseUrl)}];`);
  w.line(`if (string.IsNullOrWhiteSpace(baseUrl)) baseUrl = Client.${FIXED_NAMES.clientClass}.DefaultBaseUrl;`);
  w.line('// Only an absolute http(s) URL: a relative one would be read as a file path, and other schemes are not the API.');
  w.line('// A query in it (?token=…) goes with every request.');
  w.line(`if (!Client.${FIXED_NAMES.request}.TryBaseAddress(baseUrl, out var baseAddress))`);
  w.line('{');
  w.line(`    Console.Error.WriteLine(string.IsNullOrWhiteSpace(baseUrl) ? ${stringLiteral(`error: no base URL for the API: set ${env.baseUrl}`)} : $${stringLiteral(`error: the base URL "{baseUrl}" is not an absolute http(s) URL: set ${env.baseUrl}`)});`);
  w.line('    return 1;');
  w.line('}');
  w.line(`if (!TryReadNumber(${stringLiteral(env.timeout)}, 30, 1, 3600, out var timeoutSeconds)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.maxResultLength)}, Tools.${FIXED_NAMES.tools}.MaxResultLength, 1000, 50_000_000, out var maxResultLength))`);
  w.line('{');
  w.line('    return 1;');
  w.line('}');
  w.line('var timeout = TimeSpan.FromSeconds(timeoutSeconds);');
  w.line(`var extraHeaders = Client.${FIXED_NAMES.request}.ParseHeaderList(settings[${stringLiteral(env.headers)}]);`);
  w.line('foreach (var (name, value) in extraHeaders)');
  w.line('{');
  w.line('    // A credential given as a header (Authorization: token …) is redacted from answers like configured ones.');
  w.line('    Client.ApiSecrets.AddHeader(name, value);');
  w.line('}');
  w.line(`var userAgent = settings[${stringLiteral(env.userAgent)}];`);
  w.line(`if (string.IsNullOrWhiteSpace(userAgent)) userAgent = ${stringLiteral(userAgent(options))};`);
  w.line(`Tools.${FIXED_NAMES.tools}.MaxResultLength = (int)maxResultLength;`);
  w.line('// A body is read no further than what could make an answer: memory per call does not depend on the API.');
  w.line(`Client.ApiLimits.MaxResponseBytes = Math.Max(4 * Tools.${FIXED_NAMES.tools}.MaxResultLength, 64 * 1024);`);
  readIconSetting(w, env.iconUrl, options.icon);
  readClientParameters(w, options);
  if (options.longRunning) readLongRunningSettings(w, env);
  if (options.mode === 'code') readScriptLimits(w, env);
  if (options.confirm !== undefined) readConfirmSetting(w, env.confirm, options.mode === 'code');
  if (http) readAccessSettings(w, options.serverName);
  if (http) readLimitSettings(w, options.serverName, options.mode === 'code');
  if (http && options.auth === 'oauth') readAuthorizationSettings(w, options.serverName, options.upstreamTokenExchange === true);
  if (http) {
    w.line('// The request being served, for who its caller is (the credentials and limits of a call follow its caller).');
    w.line('builder.Services.AddHttpContextAccessor();');
  }
  const azure = options.azureCredential === true;
  const credentials = options.securitySchemes.map((scheme) => credentialInitializer(options.serverName, scheme, azure));
  if (azure) {
    w.line();
    w.line('// Azure AD tokens from DefaultAzureCredential (environment, workload identity, managed identity, Azure CLI, …), for the');
    w.line(`// API's origin (${env.azureScope} says another scope), cached by the credentials until five minutes before they expire.`);
    w.line('var azureCredential = new Azure.Identity.DefaultAzureCredential();');
    w.line(`var azureScope = settings[${stringLiteral(env.azureScope)}] is { Length: > 0 } scope ? scope : baseAddress.GetLeftPart(UriPartial.Authority) + "/.default";`);
  }
  if (credentials.length > 0) {
    w.line();
    w.line('// Credentials: each request carries those its operation requires; none are ever logged or returned.');
    w.line(`var credentials = new Client.${FIXED_NAMES.credentials}(`);
    w.line('[');
    for (const c of credentials) w.line(`    ${c},`);
    w.line(options.forwardAuth === undefined && !options.upstreamTokenExchange ? ']);' : '])');
    if (options.upstreamTokenExchange) {
      w.line('{');
      w.line('    // A shared server: each call\'s API token is obtained for its caller, never the caller\'s own token.');
      w.line('    Forwarded = tokenExchange.ExchangedTokenAsync,');
      w.line('    ForwardedFrom = "Authorization",');
      w.line('};');
      w.line('Client.ApiSecrets.CallSecret = Tools.McpTokenExchange.ExchangedToken;');
    }
    if (options.forwardAuth !== undefined) {
      const header = stringLiteral(options.forwardAuth);
      w.line('{');
      w.line(`    // A shared server: each call's credential is the caller's own, from the ${options.forwardAuth} header of its MCP request.`);
      w.line('    Forwarded = _ => ValueTask.FromResult(ForwardedCredential()),');
      w.line(`    ForwardedFrom = ${header},`);
      w.line('};');
      w.line('Client.ApiSecrets.CallSecret = ForwardedCredential;');
    }
  }
  w.line();
  w.line('builder.Services.AddHttpClient();');
  w.line('builder.Services.ConfigureHttpClientDefaults(http =>');
  w.line('{');
  w.line('    http.ConfigurePrimaryHttpMessageHandler(() => new SocketsHttpHandler');
  w.line('    {');
  w.line('        // Redirects are followed by the client itself, within the API\'s origin only: credentials go nowhere else.');
  w.line('        AllowAutoRedirect = false,');
  w.line('        // No cookie jar: a cookie an API sets lasts one call and never reaches another caller.');
  w.line('        UseCookies = false,');
  w.line('        // gzip, deflate and brotli asked for and undone; byte caps count the bytes after decompression.');
  w.line('        AutomaticDecompression = DecompressionMethods.All,');
  w.line('    });');
  w.line('    http.ConfigureHttpClient(client =>');
  w.line('    {');
  w.line('        client.BaseAddress = baseAddress;');
  w.line('        client.Timeout = timeout;');
  w.line('        client.DefaultRequestHeaders.TryAddWithoutValidation("User-Agent", userAgent);');
  w.line('        foreach (var (name, value) in extraHeaders)');
  w.line('        {');
  w.line('            // A header from the settings replaces the default of that name (User-Agent).');
  w.line('            client.DefaultRequestHeaders.Remove(name);');
  w.line('            client.DefaultRequestHeaders.TryAddWithoutValidation(name, value);');
  w.line('        }');
  w.line('    });');
  if (credentials.length > 0) w.line('    http.AddHttpMessageHandler(credentials.CreateHandler);');
  w.line('    // A GET, HEAD, PUT or DELETE answered 429 or 503 with a Retry-After that ends within the call\'s time is sent');
  w.line('    // again after that wait, twice at most; POST and PATCH never are (they may have done their work).');
  w.line('    http.AddResilienceHandler("retry-after", pipeline =>');
  w.line('    {');
  w.line('        var retry = new HttpRetryStrategyOptions');
  w.line('        {');
  w.line('            MaxRetryAttempts = 2,');
  w.line('            ShouldRetryAfterHeader = true,');
  w.line(`            ShouldHandle = arguments => ValueTask.FromResult(Client.${FIXED_NAMES.request}.RetryWait(arguments.Outcome.Result) is not null),`);
  w.line('        };');
  w.line('        retry.DisableFor(HttpMethod.Post, HttpMethod.Patch, HttpMethod.Connect);');
  w.line('        pipeline.AddRetry(retry);');
  w.line('    });');
  w.line('});');
  w.line();
  // Discovery and code mode publish a few fixed tools; operations mode one per operation, made on first call.
  const discovery = options.mode !== 'operations';
  configureTelemetry(w, options);
  const serverInfo = `new Implementation { Name = ${stringLiteral(serverKey(options.serverName))}, Version = ${stringLiteral(options.serverVersion || '1.0.0')}, ${ICONS_MEMBER} }`;
  w.line('builder.Services');
  if (discovery) {
    w.line(`    .AddMcpServer(options => options.ServerInfo = ${serverInfo})`);
  } else {
    w.line('    .AddMcpServer(options =>');
    w.line('    {');
    w.line(`        options.ServerInfo = ${serverInfo};`);
    w.line('        // The SDK\'s own tool collection stays empty, McpToolCatalog has the tools: with a collection, the server');
    w.line('        // announces its tools (listChanged) and the SDK calls the tool McpToolCatalog.FindTool matches.');
    w.line('        options.ToolCollection = [];');
    w.line('    })');
  }
  if (http) w.line('    // Stateless: any replica answers any request, so no session affinity is needed behind a load balancer.');
  w.line(http ? '    .WithHttpTransport(options => options.Stateless = true)' : '    .WithStdioServerTransport()');
  w.line(AUDIT_FILTER_LINE);
  if (discovery) {
    w.line('    // Arguments are read with the client\'s JSON settings: exact property names (an API may have both xAxis and xaxis).');
    if (options.mode === 'code') {
      w.line('    // Code mode: search the operations, describe one, and run a script that calls them.');
      w.line(`    .WithTools([typeof(Tools.McpDiscovery), typeof(Tools.McpCode)], Client.${FIXED_NAMES.json}.Options)`);
    } else {
      w.line('    // Discovery mode: three tools that search the operations, describe one and call it.');
      w.line(`    .WithTools([typeof(Tools.McpDiscovery)], Client.${FIXED_NAMES.json}.Options)`);
    }
    w.line('    // Arguments are checked against the published input schemas before a call; every Error: answer is flagged isError;');
    w.line('    // tools/list comes in pages, so that a client can list any number of tools.');
    w.line('    .WithRequestFilters(filters => filters.AddCallToolFilter(Tools.McpToolSupport.CheckCalls).AddListToolsFilter(Tools.McpToolSupport.PageToolList))');
  } else {
    w.line('    // One tool per operation. tools/list comes in pages read from the tools\' attributes, so that a client can list any');
    w.line('    // number of tools; a tool is made from its McpTools method on its first call, so that a big API starts at once.');
    w.line('    .WithListToolsHandler(Tools.McpToolCatalog.ListTools)');
    w.line('    // Arguments are checked against the published input schemas before a call; every Error: answer is flagged isError.');
    w.line('    .WithRequestFilters(filters => filters.AddCallToolFilter(Tools.McpToolCatalog.FindTool).AddCallToolFilter(Tools.McpToolSupport.CheckCalls))');
  }
  if (options.resources === true) registerResources(w);
  w.line(`    .WithMessageFilters(filters => filters.AddIncomingFilter(Tools.McpToolSupport.CheckMessages));`);
  w.line();
  w.line('var app = builder.Build();');
  if (discovery) {
    w.line('// The tools publish the input schemas the generator wrote from the spec, constraints and all.');
    w.line('Tools.McpToolSupport.PublishInputSchemas(app.Services.GetServices<McpServerTool>());');
    w.line('// A tool that can reach every operation is annotated as the least permissive of them (destructive if any is).');
    w.line('Tools.McpDiscovery.AnnotateReach(app.Services.GetServices<McpServerTool>());');
    if (isHybrid(options)) useHybrid(w);
  } else {
    w.line('// The tools of McpTools, with the input schemas the generator wrote from the spec, constraints and all; arguments are');
    w.line('// read with the client\'s JSON settings: exact property names (an API may have both xAxis and xaxis).');
    w.line('Tools.McpToolCatalog.Load(app.Services);');
  }
  if (http) {
    w.line();
    useAccessCheck(w, options.serverName);
    w.line('// Who calls: the authenticated subject, else the client\'s address (for shares, limits and the audit log).');
    w.line('var callers = app.Services.GetRequiredService<IHttpContextAccessor>();');
    w.line('Tools.McpCaller.Identify = () => callers.HttpContext is { } call ? Tools.McpCaller.Of(call.User.FindFirst("sub")?.Value, call.Connection.RemoteIpAddress) : null;');
    w.line();
    if (options.auth === 'oauth') useAuthorization(w);
    useLimits(w);
    if (options.auth === 'oauth' && options.mode === 'code') {
      w.line('// A script\'s api calls need the scopes of the operations they call, as the caller\'s own tools/call would.');
      w.line('Tools.McpCode.Admit = tool => authorization.Refusal(callers.HttpContext?.User, tool);');
    }
    w.line(options.auth === 'oauth' ? 'app.MapMcp("/mcp").RequireAuthorization();' : 'app.MapMcp("/mcp");');
    w.line('// For load balancers and orchestrators: the process is up and serving.');
    w.line('app.MapGet("/healthz", () => "ok");');
  }
  if (options.mode === 'code') {
    w.line('// search_operations with detail "full" gives each hit\'s signature, as scripts call it.');
    w.line('Tools.McpDiscovery.SignatureOf = Tools.McpCode.SignatureOf;');
    w.line('// Warm interpreter processes for scripts, started ahead.');
    w.line('Tools.McpScriptProcess.Prepare(Tools.McpCode.Limits);');
    w.line('// Scripts running, waiting and the interpreters alive, as gauges (exported with OTEL_EXPORTER_OTLP_ENDPOINT).');
    w.line('Tools.McpTelemetry.ObserveScripts(() => Tools.McpScriptAdmission.Running, () => Tools.McpScriptAdmission.Waiting, () => Tools.McpScriptAdmission.PoolSize);');
  }
  w.line();
  w.line('await app.RunAsync();');
  w.line('return 0;');
  w.line();
  w.line('// A number setting: its default when unset, else a number in range, else one line on stderr and no start.');
  w.open('bool TryReadNumber(string name, double fallback, double min, double max, out double value)');
  w.line('var text = settings[name];');
  w.line('value = fallback;');
  w.line('if (string.IsNullOrWhiteSpace(text)) return true;');
  w.line('if (double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value) && value >= min && value <= max) return true;');
  w.line('Console.Error.WriteLine($"error: {name} is \\"{text}\\": give a number from {min} to {max}");');
  w.line('return false;');
  w.close();
  if (http && options.forwardAuth !== undefined && credentials.length > 0) {
    w.line();
    w.line('// The credential the MCP request being served carries, without a leading "Bearer ".');
    w.open('static string? ForwardedCredential()');
    w.line(`var value = new HttpContextAccessor().HttpContext?.Request.Headers[${stringLiteral(options.forwardAuth)}].ToString();`);
    w.line('if (string.IsNullOrWhiteSpace(value)) return null;');
    w.line('value = value.Trim();');
    w.line('return value.StartsWith("Bearer ", StringComparison.OrdinalIgnoreCase) ? value[7..].Trim() : value;');
    w.close();
  }
  return w.toString();
}

/** `Petstore/1.0.0 openapi-mcp-dotnet/0.1.0`: the server and API version, then the generator (RFC 9110 product tokens). */
function userAgent(options: HostOptions): string {
  const token = (text: string, fallback: string): string => text.replace(/[^!#$%&'*+.^_`|~0-9A-Za-z-]+/g, '-').replace(/^-+|-+$/g, '') || fallback;
  return `${token(options.serverName, 'mcp-server')}/${token(options.serverVersion, '1.0.0')} openapi-mcp-dotnet/${packageVersion()}`;
}

const CREDENTIAL_KINDS = { header: 'ApiKeyHeader', query: 'ApiKeyQuery', cookie: 'ApiKeyCookie' } as const;

/** `new Client.ApiCredential { ... }` for one scheme, its values read from configuration. */
function credentialInitializer(serverName: string, scheme: SecurityScheme, azure: boolean): string {
  const variables = credentialVariables(serverName, scheme);
  const read = (name: string | undefined): string => `settings[${stringLiteral(name ?? '')}]`;
  const fromAzure = azure && scheme.kind === 'accessToken' && scheme.azure === true;
  const kind = scheme.kind === 'apiKey' ? CREDENTIAL_KINDS[scheme.in]
    : scheme.kind === 'basic' ? 'Basic'
    : scheme.kind === 'oauth2ClientCredentials' ? 'OAuth2ClientCredentials'
    : fromAzure ? 'Token'
    : 'Bearer';
  const fields = [`Scheme = ${stringLiteral(scheme.name)}`, `Kind = Client.${FIXED_NAMES.credentialKind}.${kind}`];
  if (scheme.kind === 'apiKey') fields.push(`ParameterName = ${stringLiteral(scheme.parameter)}`);
  if (variables.value) fields.push(`Value = ${read(variables.value)}`);
  if (variables.username) fields.push(`Username = ${read(variables.username)}`, `Password = ${read(variables.password)}`);
  if (scheme.kind === 'oauth2ClientCredentials') {
    fields.push(
      `ClientId = ${read(variables.clientId)}`, `ClientSecret = ${read(variables.clientSecret)}`,
      `TokenUrl = string.IsNullOrWhiteSpace(${read(variables.tokenUrl)}) ? ${stringLiteral(scheme.tokenUrl)} : ${read(variables.tokenUrl)}`,
      `Scopes = ${read(variables.scopes)}`, `Value = ${read(variables.accessToken)}`,
    );
  }
  if (fromAzure) fields.push('TokenSource = async cancellationToken => await azureCredential.GetTokenAsync(new Azure.Core.TokenRequestContext([azureScope]), cancellationToken).ConfigureAwait(false) is var token ? (token.Token, token.ExpiresOn) : default');
  const settings = fromAzure ? `${requiredVariables(variables).join(' and ')}, or sign in as DefaultAzureCredential reads it (az login, AZURE_CLIENT_ID…)` : requiredVariables(variables).join(' and ');
  fields.push(`Settings = ${stringLiteral(variables.accessToken ? `${settings} (or ${variables.accessToken})` : settings)}`);
  return `new Client.${FIXED_NAMES.credential} { ${fields.join(', ')} }`;
}

/** The parameters the client sets once, from their settings (else the document's value, or none). */
function readClientParameters(w: CSharpWriter, options: HostOptions): void {
  const parameters = options.clientParameters ?? [];
  if (parameters.length === 0) return;
  w.line();
  w.line(`// The parameters every call takes that the client sets once: ${parameters.map((p) => p.name).join(', ')}.`);
  parameters.forEach((parameter, index) => {
    const variable = clientParameterVariable(options.serverName, parameter.setting);
    w.line(`if (settings[${stringLiteral(variable)}]?.Trim() is { Length: > 0 } clientParameter${index}) Client.${FIXED_NAMES.clientParameters}.${parameter.property} = clientParameter${index};`);
  });
}

/** How long a call watches a long-running operation, and the key that signs the tokens of those still running. */
function readLongRunningSettings(w: CSharpWriter, env: ReturnType<typeof environmentVariables>): void {
  w.line();
  w.line('// Long-running operations: how long a call watches one before it answers that it is still running, and the key');
  w.line('// that signs the tokens with which a later call watches it again (set it alike on every replica of a deployment).');
  w.line(`if (!TryReadNumber(${stringLiteral(env.longRunningWait)}, Client.${FIXED_NAMES.limits}.LongRunningWaitSeconds, 0, 3600, out var longRunningWait))`);
  w.line('{');
  w.line('    return 1;');
  w.line('}');
  w.line(`Client.${FIXED_NAMES.limits}.LongRunningWaitSeconds = longRunningWait;`);
  w.line(`if (settings[${stringLiteral(env.operationKey)}] is { Length: > 0 } operationKey)`);
  w.line('{');
  w.line('    var key = Convert.TryFromBase64String(operationKey, new byte[operationKey.Length], out var length) ? Convert.FromBase64String(operationKey) : [];');
  w.line('    if (key.Length < 32)');
  w.line('    {');
  w.line(`        Console.Error.WriteLine(${stringLiteral(`error: ${env.operationKey} must be at least 32 bytes in base64 (e.g. openssl rand -base64 32)`)});`);
  w.line('        return 1;');
  w.line('    }');
  w.line(`    Client.${FIXED_NAMES.request}.OperationKey = key;`);
  w.line('}');
}
