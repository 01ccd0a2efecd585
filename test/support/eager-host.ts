/**
 * What operations-mode servers were before their tools were made on first call, kept as the lazy tools test's
 * reference: a host that compiles a generated project's files (all but its Program.cs) and serves its tools as the
 * SDK makes them, every one at start (WithToolsFromAssembly, McpToolSupport's published schemas, argument checks and
 * tools/list pages). And a server spoken to in raw JSON-RPC over stdio, so that answers are compared as sent.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGES } from '../../src/emit/project/host.js';
import { TELEMETRY_PACKAGES } from '../../src/emit/project/telemetry.js';
import { INPUT_SCHEMAS_FILE } from '../../src/emit/tools/tools.js';

/** Writes the host project `<dir>/Eager.csproj` for the generated project in `project` (a path relative to `dir`). */
export async function writeEagerHost(dir: string, project: string, namespace: string, serverKey: string, baseUrlVariable: string, framework: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'Eager.csproj'), [
    '<Project Sdk="Microsoft.NET.Sdk">',
    '  <PropertyGroup>',
    `    <OutputType>Exe</OutputType><TargetFramework>${framework}</TargetFramework><Nullable>enable</Nullable><ImplicitUsings>disable</ImplicitUsings>`,
    '    <EnableDefaultCompileItems>false</EnableDefaultCompileItems>',
    '  </PropertyGroup>',
    '  <ItemGroup>',
    `    <Compile Include="${project}/**/*.cs" Exclude="${project}/Program.cs;${project}/obj/**;${project}/bin/**;${project}/Generated/bin/**;${project}/Generated/obj/**" />`,
    '    <Compile Include="Program.cs" />',
    `    <EmbeddedResource Include="${project}/${INPUT_SCHEMAS_FILE}" LogicalName="${INPUT_SCHEMAS_FILE}" Condition="Exists('${project}/${INPUT_SCHEMAS_FILE}')" />`,
    ...[...PACKAGES, ...TELEMETRY_PACKAGES].map((p) => `    <PackageReference Include="${p.id}" Version="${p.version}" />`),
    '  </ItemGroup>',
    '</Project>',
    '',
  ].join('\n'));
  await writeFile(join(dir, 'Program.cs'), `#nullable enable
using System;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using ModelContextProtocol.Protocol;
using ModelContextProtocol.Server;
using Client = global::${namespace}.Client;
using Tools = global::${namespace};

var builder = Host.CreateApplicationBuilder(args);
builder.Logging.ClearProviders();
Client.ApiRequest.TryBaseAddress(Environment.GetEnvironmentVariable("${baseUrlVariable}"), out var baseAddress);
builder.Services.AddHttpClient();
builder.Services.ConfigureHttpClientDefaults(http => http.ConfigureHttpClient(client => client.BaseAddress = baseAddress));
builder.Services
    .AddMcpServer(options => options.ServerInfo = new Implementation { Name = "${serverKey}", Version = "1.0.0" })
    .WithStdioServerTransport()
    .WithToolsFromAssembly(typeof(Tools.McpTools).Assembly, Client.ApiJson.Options)
    .WithRequestFilters(filters => filters.AddCallToolFilter(Tools.McpToolSupport.CheckCalls).AddListToolsFilter(Tools.McpToolSupport.PageToolList))
    .WithMessageFilters(filters => filters.AddIncomingFilter(Tools.McpToolSupport.CheckMessages));
var app = builder.Build();
Tools.McpToolSupport.PublishInputSchemas(app.Services.GetServices<McpServerTool>());
await app.RunAsync();
`);
}

export interface RawServer {
  /** A request's whole JSON-RPC answer ({jsonrpc, id, result} or {jsonrpc, id, error}). */
  request(method: string, params?: unknown): Promise<Record<string, unknown>>;
  notify(method: string): void;
  close(): Promise<void>;
}

/** Starts `dotnet <dll>` and speaks JSON-RPC to it over stdio, one message a line. */
export function startRaw(dll: string, env: Record<string, string>): RawServer {
  const child = spawn('dotnet', [dll], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let buffer = '';
  let stderr = '';
  let id = 0;
  child.stderr.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString('utf8')).slice(-20_000)));
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (line === '') continue;
      const message = JSON.parse(line) as Record<string, unknown>;
      const answer = typeof message.id === 'number' ? waiting.get(message.id) : undefined;
      if (answer) {
        waiting.delete(message.id as number);
        answer(message);
      }
    }
  });
  let ended = false;
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  void exited.then(() => {
    ended = true;
    for (const answer of waiting.values()) answer({ error: { message: `the server exited: ${stderr}` } });
  });
  const write = (message: Record<string, unknown>): void => void child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  return {
    request: (method, params) => new Promise((resolve) => {
      // A server that has exited answers nothing more: each request says so at once.
      if (ended) return resolve({ error: { message: `the server exited: ${stderr}` } });
      waiting.set(++id, resolve);
      write({ id, method, ...(params === undefined ? {} : { params }) });
    }),
    notify: (method) => write({ method }),
    close: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill(), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
