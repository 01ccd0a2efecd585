/**
 * The limits of an HTTP server: requests per caller (a token bucket per subject or address), the largest request
 * body, and the drain on stop. McpHttpLimits.cs does the work; McpSettings reads its settings, Program.cs puts it in place.
 */
import { templates } from '../shared/templates.js';
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { environmentVariables } from '../../names/environment.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

const template = templates('http');

/** The defaults: a shared server's, for callers that are assistants (a few calls a second at most, in bursts). */
export const HTTP_LIMITS = { perMinute: 300, burst: 60, maxRequestBytes: 1_048_576, drainSeconds: 25 } as const;

export const httpLimits: HostFeature = {
  applies: (options) => options.transport === 'http',
  files: (options, source) => [template('McpHttpLimits', supportPath('McpHttpLimits.cs'), options.namespace, source, options.clientNamespace)],
  settings: (options) => ({
    members: ['/// <summary>Requests per caller, the largest request body, and the drain on stop.</summary>', 'public required McpHttpLimits Limits { get; init; }'],
    read: (w) => readLimitSettings(w, options.serverName, options.mode === 'code'),
    values: ['Limits = limits'],
  }),
  program: () => ({
    services: ['builder.AddMcpHttpLimits(settings);'],
    app: ['// A body over the size limit is refused (413) unread; a caller over the rate limit gets 429 and Retry-After.', 'app.UseMcpHttpLimits(settings);'],
  }),
};

/** The limits, or one line and no start when one is out of range. */
function readLimitSettings(w: CSharpWriter, serverName: string, code: boolean): void {
  const env = environmentVariables(serverName);
  w.line('// Requests per caller, the largest request body, and how long requests in flight may take to finish on stop.');
  w.line(`if (!TryReadNumber(${stringLiteral(env.rateLimitPerMinute)}, ${HTTP_LIMITS.perMinute}, 0, 1_000_000, out var ratePerMinute)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.rateLimitBurst)}, ${HTTP_LIMITS.burst}, 1, 1_000_000, out var rateBurst)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.maxRequestBytes)}, ${HTTP_LIMITS.maxRequestBytes}, 1024, 1_073_741_824, out var maxRequestBytes)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.drainSeconds)}, ${HTTP_LIMITS.drainSeconds}, 0, 3600, out var drainSeconds))`);
  w.line('{');
  w.line('    return null;');
  w.line('}');
  w.line('var limits = new McpHttpLimits');
  w.line('{');
  w.line('    PerMinute = Math.Ceiling(ratePerMinute), Burst = Math.Floor(rateBurst), MaxRequestBytes = (long)maxRequestBytes, Drain = TimeSpan.FromSeconds(drainSeconds),');
  w.line('    Shared = sharedState,');
  if (code) {
    w.line('    // After the drain: the interpreter processes kept ready for scripts end with the server.');
    w.line('    OnStopped = McpScriptProcess.EndAll,');
  }
  w.line('};');
}
