/**
 * State the replicas of an HTTP server share, on Redis, when its REDIS setting names one: each caller's rate limit and
 * share of scripts, the tokens obtained for the API, and the long-running operations' key. McpSharedState.cs does the
 * work; McpSettings reads the setting, Program.cs starts it. Without the setting nothing of it runs.
 */
import { templates } from '../shared/templates.js';
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { environmentVariables } from '../../names/environment.js';
import { serverKey, type HostOptions } from '../shared/host-options.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

const template = templates('http');

/** StackExchange.Redis, and RedisRateLimiting's Redis-backed limiters (a token bucket, a concurrency limit) on it. */
export const SHARED_STATE_PACKAGES = [
  { id: 'StackExchange.Redis', version: '2.13.23' },
  { id: 'RedisRateLimiting', version: '1.2.1' },
] as const;

export const sharedState: HostFeature = {
  applies: (options) => options.transport === 'http',
  files: (options, source) => [template('McpSharedState', supportPath('McpSharedState.cs'), options.namespace, source, options.clientNamespace)],
  packages: () => SHARED_STATE_PACKAGES,
  settings: (options) => ({
    members: [
      `/// <summary>What the replicas share on Redis (${environmentVariables(options.serverName).redis}); null: each keeps its own.</summary>`,
      'public McpSharedState? Shared { get; init; }',
    ],
    read: (w) => readSharedState(w, options),
    values: ['Shared = sharedState'],
  }),
  program: () => ({
    services: ['// With a Redis server set, the replicas share the rate limits, script shares, tokens and the operation key.', 'builder.AddMcpSharedState(settings);'],
  }),
};

function readSharedState(w: CSharpWriter, options: HostOptions): void {
  const env = environmentVariables(options.serverName);
  const sharesKey = options.longRunning === true ? `string.IsNullOrEmpty(settings[${stringLiteral(env.operationKey)}])` : 'false';
  w.line('// Redis, when set: the replicas of a deployment share what limits each caller, the tokens, and the operation key.');
  w.line(`if (!McpSharedState.TryParse(settings[${stringLiteral(env.redis)}], ${stringLiteral(env.redis)}, ${stringLiteral(serverKey(options.serverName))}, ${sharesKey}, out var sharedState, out var sharedStateError))`);
  w.line('{');
  w.line('    Console.Error.WriteLine(sharedStateError);');
  w.line('    return null;');
  w.line('}');
}
