/**
 * The limits of an HTTP server: requests per caller (a token bucket per subject or address), the largest request
 * body, and the drain on stop. McpHttpLimits.cs does the work; Program.cs reads its settings and puts it in place.
 */
import type { GeneratedFile } from '../shared/file.js';
import { templates } from '../shared/templates.js';
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { environmentVariables } from '../../names/environment.js';

const template = templates('http');

/** The defaults: a shared server's, for callers that are assistants (a few calls a second at most, in bursts). */
export const HTTP_LIMITS = { perMinute: 300, burst: 60, maxRequestBytes: 1_048_576, drainSeconds: 25 } as const;

export function emitHttpLimits(namespace: string, clientNamespace: string, source: string): GeneratedFile {
  return template('McpHttpLimits', 'McpHttpLimits.cs', namespace, source, clientNamespace);
}

/** Program.cs, with the other settings: the limits, or one line and no start when one is out of range. */
export function readLimitSettings(w: CSharpWriter, serverName: string, code: boolean): void {
  const env = environmentVariables(serverName);
  w.line();
  w.line('// Requests per caller, the largest request body, and how long requests in flight may take to finish on stop.');
  w.line(`if (!TryReadNumber(${stringLiteral(env.rateLimitPerMinute)}, ${HTTP_LIMITS.perMinute}, 0, 1_000_000, out var ratePerMinute)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.rateLimitBurst)}, ${HTTP_LIMITS.burst}, 1, 1_000_000, out var rateBurst)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.maxRequestBytes)}, ${HTTP_LIMITS.maxRequestBytes}, 1024, 1_073_741_824, out var maxRequestBytes)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.drainSeconds)}, ${HTTP_LIMITS.drainSeconds}, 0, 3600, out var drainSeconds))`);
  w.line('{');
  w.line('    return 1;');
  w.line('}');
  w.line('var limits = new Tools.McpHttpLimits');
  w.line('{');
  w.line('    PerMinute = Math.Ceiling(ratePerMinute), Burst = Math.Floor(rateBurst), MaxRequestBytes = (long)maxRequestBytes, Drain = TimeSpan.FromSeconds(drainSeconds),');
  if (code) {
    w.line('    // After the drain: the interpreter processes kept ready for scripts end with the server.');
    w.line('    OnStopped = Tools.McpScriptProcess.EndAll,');
  }
  w.line('};');
  w.line('limits.AddServices(builder);');
}

/** Program.cs, after authentication and before the endpoints: the size check and the rate limit. */
export function useLimits(w: CSharpWriter): void {
  w.line('// A body over the size limit is refused (413) unread; a caller over the rate limit gets 429 and Retry-After.');
  w.line('limits.Use(app);');
}
