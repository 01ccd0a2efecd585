import { stringLiteral, CSharpWriter } from './writer.js';
import { banner } from './banner.js';
import { FIXED_NAMES } from '../names/plan.js';
import type { GeneratedFile } from './client.js';

/** NuGet packages of the generated host, at versions the registry here serves. */
export const PACKAGES = [
  { id: 'Microsoft.Extensions.Hosting', version: '10.0.14' },
  { id: 'Microsoft.Extensions.Http', version: '10.0.14' },
  { id: 'ModelContextProtocol', version: '2.3.1' },
] as const;

export interface HostOptions {
  /** Used for the project and assembly names and the environment variable prefix. */
  readonly serverName: string;
  readonly namespace: string;
  readonly clientNamespace: string;
  readonly framework: string;
  readonly serverVersion: string;
}

/** `SERVER_NAME` from a server name: `Petstore` → `PETSTORE`, `myApi` → `MY_API`. */
export function environmentPrefix(serverName: string): string {
  const prefix = serverName.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase();
  return /^[0-9]/.test(prefix) ? `_${prefix}` : prefix || 'MCP';
}

/** The key of the server in MCP client configurations: the lower-case server name. */
export function serverKey(serverName: string): string {
  return serverName.trim().toLowerCase();
}

/** The environment variables the generated server reads. */
export function environmentVariables(serverName: string): { baseUrl: string; timeout: string; maxResultLength: string } {
  const prefix = environmentPrefix(serverName);
  return { baseUrl: `${prefix}_BASE_URL`, timeout: `${prefix}_TIMEOUT_SECONDS`, maxResultLength: `${prefix}_MAX_RESULT_LENGTH` };
}

/** The console project that hosts the tools over stdio (SPEC 4.4). */
export function emitHost(options: HostOptions, projectName: string): GeneratedFile[] {
  return [
    { path: `${projectName}.csproj`, content: emitProject(options, projectName) },
    { path: 'Program.cs', content: emitProgram(options) },
  ];
}

function emitProject(options: HostOptions, projectName: string): string {
  const xml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return [
    '<Project Sdk="Microsoft.NET.Sdk">',
    '',
    '  <PropertyGroup>',
    '    <OutputType>Exe</OutputType>',
    `    <TargetFramework>${xml(options.framework)}</TargetFramework>`,
    '    <Nullable>enable</Nullable>',
    '    <ImplicitUsings>disable</ImplicitUsings>',
    `    <RootNamespace>${xml(options.namespace)}</RootNamespace>`,
    `    <AssemblyName>${xml(projectName)}</AssemblyName>`,
    '    <SatelliteResourceLanguages>en</SatelliteResourceLanguages>',
    '  </PropertyGroup>',
    '',
    '  <ItemGroup>',
    ...PACKAGES.map((p) => `    <PackageReference Include="${p.id}" Version="${p.version}" />`),
    '  </ItemGroup>',
    '',
    '</Project>',
    '',
  ].join('\n');
}

function emitProgram(options: HostOptions): string {
  const env = environmentVariables(options.serverName);
  const w = new CSharpWriter();
  w.line(banner(`the server ${options.serverName}`).trimEnd()).line('#nullable enable').line();
  const usings = ['System', 'Microsoft.Extensions.Configuration', 'Microsoft.Extensions.DependencyInjection', 'Microsoft.Extensions.Hosting', 'Microsoft.Extensions.Logging', 'ModelContextProtocol.Protocol'];
  for (const using of usings) w.line(`using ${using};`);
  const tools = `global::${options.namespace}.${FIXED_NAMES.tools}`;
  const client = `global::${options.clientNamespace}.${FIXED_NAMES.clientClass}`;
  w.line();
  w.line('var builder = Host.CreateApplicationBuilder(args);');
  w.line();
  w.line('// stdout carries the MCP protocol: every log line goes to stderr.');
  w.line('builder.Logging.ClearProviders();');
  w.line('builder.Logging.AddConsole(options => options.LogToStandardErrorThreshold = LogLevel.Trace);');
  w.line('builder.Logging.AddFilter("System.Net.Http.HttpClient", LogLevel.Warning);');
  w.line();
  w.line(`// Settings come from environment variables or appsettings.json (see README.md).`);
  w.line(`var baseUrl = builder.Configuration[${stringLiteral(env.baseUrl)}];`);
  w.line(`if (string.IsNullOrWhiteSpace(baseUrl)) baseUrl = ${client}.DefaultBaseUrl;`);
  w.line(`var timeout = TimeSpan.FromSeconds(builder.Configuration.GetValue(${stringLiteral(env.timeout)}, 30.0));`);
  w.line('Uri.TryCreate(baseUrl.EndsWith(\'/\') ? baseUrl : baseUrl + "/", UriKind.Absolute, out var baseAddress);');
  w.line(`${tools}.MaxResultLength = builder.Configuration.GetValue(${stringLiteral(env.maxResultLength)}, ${tools}.MaxResultLength);`);
  w.line();
  w.line('builder.Services.AddHttpClient();');
  w.line('builder.Services.ConfigureHttpClientDefaults(http => http.ConfigureHttpClient(client =>');
  w.line('{');
  w.line('    client.BaseAddress = baseAddress;');
  w.line('    client.Timeout = timeout;');
  w.line('}));');
  w.line();
  w.line('builder.Services');
  w.line(`    .AddMcpServer(options => options.ServerInfo = new Implementation { Name = ${stringLiteral(serverKey(options.serverName))}, Version = ${stringLiteral(options.serverVersion || '1.0.0')} })`);
  w.line('    .WithStdioServerTransport()');
  w.line(`    .WithToolsFromAssembly(typeof(${tools}).Assembly);`);
  w.line();
  w.line('var app = builder.Build();');
  w.open('if (baseAddress is null)');
  w.line('app.Services.GetRequiredService<ILoggerFactory>().CreateLogger("Startup")');
  w.line(`    .LogError("No valid base URL for the API: set ${env.baseUrl} (now {BaseUrl}).", baseUrl);`);
  w.close();
  w.line();
  w.line('await app.RunAsync();');
  return w.toString();
}

/** The MCP client configuration entry (SPEC 2.4, 4.6). */
export function emitMcpConfig(serverName: string, projectDirectory: string): string {
  const entry = { mcpServers: { [serverKey(serverName)]: { command: 'dotnet', args: ['run', '--project', projectDirectory] } } };
  return JSON.stringify(entry, null, 2) + '\n';
}
