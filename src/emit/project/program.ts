/**
 * Program.cs of the generated host: a short list of what it is made of, each feature's wiring in an extension method
 * of its support file (in Mcp/), the host's own steps in view: the host, the settings, the HttpClient, the MCP server
 * with its transport and tools, then build and run.
 */
import { banner } from '../shared/banner.js';
import { CSharpWriter } from '../shared/writer.js';
import type { ProgramPart } from '../shared/feature.js';
import type { HostOptions } from '../shared/host-options.js';
import { SETTINGS_CLASS } from './settings.js';

export function emitProgram(options: HostOptions, parts: readonly ProgramPart[]): string {
  const http = options.transport === 'http';
  const w = new CSharpWriter();
  w.line(banner(`the server ${options.serverName}`).trimEnd()).line('#nullable enable').line();
  const usings = ['System', ...(http ? ['Microsoft.AspNetCore.Builder'] : []), 'Microsoft.Extensions.DependencyInjection', 'Microsoft.Extensions.Hosting', options.namespace];
  for (const using of usings) w.line(`using ${using};`);
  w.line();
  const lines = (place: keyof ProgramPart): string[] => parts.flatMap((part) => [...(part[place] ?? [])]);
  const first = lines('first');
  for (const line of first) w.line(line);
  if (first.length > 0) w.line();
  if (http) {
    w.line('// Listens where ASPNETCORE_URLS or --urls say (http://localhost:5000 when neither does).');
    w.line('var builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = args, ContentRootPath = AppContext.BaseDirectory });');
  } else {
    w.line('var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = args, ContentRootPath = AppContext.BaseDirectory });');
  }
  w.line();
  w.line('// Settings: environment variables, or appsettings.json beside the project (see README.md). A wrong one stops the start.');
  w.line(`if (${SETTINGS_CLASS}.Read(builder.Configuration) is not { } settings) return 1;`);
  w.line(http ? '// Log lines go to the console.' : '// stdout carries the MCP protocol: every log line goes to stderr.');
  w.line('builder.AddMcpLogging();');
  w.line();
  w.line('// The HttpClient the tools are given is the API\'s: base address, timeout, headers and credentials from the settings.');
  w.line('builder.Services.AddHttpClient().ConfigureHttpClientDefaults(http => http.ConfigureApiClient(settings));');
  for (const line of lines('services')) w.line(line);
  w.line();
  w.line('builder.Services');
  w.line('    .AddMcpServer(options => options.ServerInfo = settings.ServerInfo)');
  if (http) w.line('    // Stateless: any replica answers any request, so no session affinity is needed behind a load balancer.');
  const server = [http ? '    .WithHttpTransport(options => options.Stateless = true)' : '    .WithStdioServerTransport()', ...lines('server').map((line) => `    ${line}`)];
  server.forEach((line, index) => w.line(index === server.length - 1 ? `${line};` : line));
  w.line();
  w.line('var app = builder.Build();');
  for (const line of lines('app')) w.line(line);
  w.line();
  w.line('await app.RunAsync();');
  w.line('return 0;');
  return w.toString();
}
