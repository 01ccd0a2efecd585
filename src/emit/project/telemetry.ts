import { templates } from '../shared/templates.js';
import { stringLiteral } from '../shared/writer.js';
import { environmentVariables } from '../../names/environment.js';
import type { HostOptions } from '../shared/host-options.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

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

/** The audit line of each tool call and OpenTelemetry: McpTelemetry (instruments), McpAudit (the call filter), McpTelemetrySetup. */
export const telemetry: HostFeature = {
  applies: () => true,
  files: (options, source) => {
    const http = options.transport === 'http';
    const fills = {
      __SERVER_TRACING__: http ? '\n                // A span per HTTP request the server answers (its parent span).\n                .AddAspNetCoreInstrumentation()' : '',
      __SERVER_METRICS__: http ? '\n                .AddAspNetCoreInstrumentation()' : '',
    };
    return [
      template('McpTelemetry', supportPath('McpTelemetry.cs'), options.namespace, source, options.clientNamespace),
      template('McpAudit', supportPath('McpAudit.cs'), options.namespace, source, options.clientNamespace),
      template('McpTelemetrySetup', supportPath('McpTelemetrySetup.cs'), options.namespace, source, options.clientNamespace, fills),
    ];
  },
  packages: telemetryPackages,
  settings: (options) => {
    const { auditLog } = environmentVariables(options.serverName);
    return {
      members: [`/// <summary>One line per tool call in the log: ${auditLog} (true).</summary>`, 'public required bool Audit { get; init; }'],
      read: (w) => {
        w.line(`var audit = settings[${stringLiteral(auditLog)}]?.Trim();`);
        w.line('if (!string.IsNullOrEmpty(audit) && !bool.TryParse(audit, out _))');
        w.line('{');
        w.line(`    Console.Error.WriteLine($${stringLiteral(`error: ${auditLog} is "{audit}": give true or false`)});`);
        w.line('    return null;');
        w.line('}');
      },
      values: ['Audit = string.IsNullOrEmpty(audit) || bool.Parse(audit)'],
    };
  },
  program: () => ({
    services: [
      '// An audit line per tool call (category <Namespace>.Audit); spans and metrics over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set.',
      'builder.AddMcpTelemetry(settings);',
    ],
  }),
};

/** The settings table's rows for the audit line and OpenTelemetry. */
export function telemetryRows(auditLog: string): string[][] {
  return [
    [auditLog, '`true`', 'one JSON line per tool call in the log (category `<Namespace>.Audit`): time, caller, tool, outcome, the API\'s HTTP status, duration, answer bytes and argument names (never values); `false` writes none'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', '(none: off)', 'an OTLP collector (`http://localhost:4317`; `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf` for port 4318): spans of the tool calls and of the API requests, and metrics; the other standard `OTEL_*` settings apply'],
  ];
}
