import type { GeneratedFile } from '../shared/file.js';
import { templates } from '../shared/templates.js';
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { environmentVariables } from '../../names/environment.js';
import { serverKey, type HostOptions } from './host-options.js';

const template = templates('tools');

/** OpenTelemetry's hosting, OTLP exporter and HttpClient instrumentation: every generated server (1.20.x, as served here). */
export const TELEMETRY_PACKAGES = [
  { id: 'OpenTelemetry.Extensions.Hosting', version: '1.20.1' },
  { id: 'OpenTelemetry.Exporter.OpenTelemetryProtocol', version: '1.20.1' },
  { id: 'OpenTelemetry.Instrumentation.Http', version: '1.20.2' },
] as const;

/** An HTTP server's spans and metrics of its own requests (ASP.NET Core). */
export const HTTP_TELEMETRY_PACKAGES = [
  { id: 'OpenTelemetry.Instrumentation.AspNetCore', version: '1.20.2' },
] as const;

/** The NuGet packages telemetry needs in a host with this transport. */
export function telemetryPackages(options: Pick<HostOptions, 'transport'>): readonly { id: string; version: string }[] {
  return options.transport === 'http' ? [...TELEMETRY_PACKAGES, ...HTTP_TELEMETRY_PACKAGES] : TELEMETRY_PACKAGES;
}

/** The C# of the audit line and of OpenTelemetry: McpTelemetry (instruments), McpAudit (the call filter), McpTelemetrySetup. */
export function emitTelemetry(options: HostOptions, source: string): GeneratedFile[] {
  const http = options.transport === 'http';
  const fills = {
    __SERVER_TRACING__: http ? '\n                // A span per HTTP request the server answers (its parent span).\n                .AddAspNetCoreInstrumentation()' : '',
    __SERVER_METRICS__: http ? '\n                .AddAspNetCoreInstrumentation()' : '',
  };
  return [
    template('McpTelemetry', 'McpTelemetry.cs', options.namespace, source, options.clientNamespace),
    template('McpAudit', 'McpAudit.cs', options.namespace, source, options.clientNamespace),
    template('McpTelemetrySetup', 'McpTelemetrySetup.cs', options.namespace, source, options.clientNamespace, fills),
  ];
}

/** Program.cs, before the MCP server is added: the audit setting, and OpenTelemetry when a collector is configured. */
export function configureTelemetry(w: CSharpWriter, options: HostOptions): void {
  const env = environmentVariables(options.serverName);
  const name = stringLiteral(serverKey(options.serverName));
  const version = stringLiteral(options.serverVersion || '1.0.0');
  w.line('// An audit line per tool call (category <Namespace>.Audit); spans and metrics over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set.');
  w.line(`if (!Tools.McpTelemetrySetup.Configure(builder, ${name}, ${version}, ${stringLiteral(env.auditLog)})) return 1;`);
  w.line();
}

/** The MCP server's outermost call filter: each call timed, counted and written to the audit log. */
export const AUDIT_FILTER_LINE = '    .WithRequestFilters(filters => filters.AddCallToolFilter(Tools.McpAudit.Calls))';

/** The settings table's rows for the audit line and OpenTelemetry. */
export function telemetryRows(auditLog: string): string[][] {
  return [
    [auditLog, '`true`', 'one JSON line per tool call in the log (category `<Namespace>.Audit`): time, caller, tool, outcome, the API\'s HTTP status, duration, answer bytes and argument names (never values); `false` writes none'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', '(none: off)', 'an OTLP collector (`http://localhost:4317`; `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf` for port 4318): spans of the tool calls and of the API requests, and metrics; the other standard `OTEL_*` settings apply'],
  ];
}
