#nullable enable

using System;
using System.Diagnostics;
using System.Net.Http;
using System.Runtime.CompilerServices;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry;
using OpenTelemetry.Exporter;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace __NAMESPACE__;

/// <summary>
/// The audit line of each tool call (on unless its setting is <c>false</c>), and OpenTelemetry over OTLP when
/// <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> is set: spans of the MCP requests and of the API requests they make, and metrics.
/// The standard <c>OTEL_*</c> settings apply as the OpenTelemetry SDK reads them (<c>OTEL_EXPORTER_OTLP_PROTOCOL</c>,
/// <c>OTEL_SERVICE_NAME</c>, <c>OTEL_RESOURCE_ATTRIBUTES</c>, <c>OTEL_METRIC_EXPORT_INTERVAL</c>, …).
/// </summary>
internal static class McpTelemetrySetup
{
    /// <summary>
    /// The audit line of each tool call (<see cref="McpSettings.Audit"/>), and OpenTelemetry when a collector is
    /// configured, under the server's name and version.
    /// </summary>
    public static IHostApplicationBuilder AddMcpTelemetry(this IHostApplicationBuilder builder, McpSettings settings)
    {
        McpAudit.Enabled = settings.Audit;
        // The status of the API's answers within a tool call, for its audit line.
        builder.Services.ConfigureHttpClientDefaults(http => http.AddHttpMessageHandler(() => new McpAudit.StatusHandler()));
        // No collector: nothing is exported, and no exporter, listener or connection is started (nor is OpenTelemetry loaded).
        if (!string.IsNullOrWhiteSpace(builder.Configuration["OTEL_EXPORTER_OTLP_ENDPOINT"]))
        {
            AddOpenTelemetry(builder, settings.ServerInfo.Name, settings.ServerInfo.Version);
        }
        return builder;
    }

    /// <summary>Traces and metrics over OTLP; a method of its own, so that OpenTelemetry's assemblies load only when used.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void AddOpenTelemetry(IHostApplicationBuilder builder, string serviceName, string serviceVersion)
    {
        // The exporter's own HttpClient: from the HttpClient factory it would get the API's settings (its extra headers,
        // which may hold a credential, its User-Agent, retries and handlers), and send them to the collector.
        builder.Services.ConfigureAll<OtlpExporterOptions>(options => options.HttpClientFactory = () => new HttpClient { Timeout = TimeSpan.FromMilliseconds(options.TimeoutMilliseconds) });
        builder.Services.AddOpenTelemetry()
            // This server's name and version, unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise.
            .ConfigureResource(resource => resource.AddService(serviceName, serviceVersion: serviceVersion).AddEnvironmentVariableDetector())
            .WithTracing(tracing => tracing
                // A span per MCP request (tools/call <tool>), with the SDK's mcp.* and gen_ai.* attributes.
                .AddSource(McpTelemetry.SdkName)__SERVER_TRACING__
                // A child span per request to the API (no header is recorded)...
                .AddHttpClientInstrumentation()
                // ...and in no span a query value, whatever the runtime's own redaction is set to.
                .AddProcessor(new UrlRedaction()))
            .WithMetrics(metrics => metrics
                // The SDK's mcp.server.operation.duration, this server's mcp.tool.* and mcp.scripts.*, and the API requests'.
                .AddMeter(McpTelemetry.SdkName, McpTelemetry.MeterName)__SERVER_METRICS__
                .AddHttpClientInstrumentation())
            .UseOtlpExporter();
    }

    /// <summary>Redacts the query values of every span's URL when it ends, before any exporter sees it.</summary>
    private sealed class UrlRedaction : BaseProcessor<Activity>
    {
        public override void OnEnd(Activity activity) => McpTelemetry.RedactUrl(activity);
    }
}
