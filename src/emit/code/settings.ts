/**
 * Code mode in the host: its files (the tools, the interpreter process and its sandbox), the interpreter's package,
 * the signatures resource, the limits of one script and the admission of scripts read from the settings, and
 * Program.cs's lines (the same program is also the interpreter process of one script).
 */
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { environmentVariables } from '../../names/environment.js';
import { CODE_PACKAGES, emitCode, SCRIPT_ADMISSION, SIGNATURES_FILE, SIGNATURES_RESOURCE } from './code.js';
import type { HostFeature } from '../shared/feature.js';

export const codeMode: HostFeature = {
  applies: (options) => options.mode === 'code',
  files: (options, source) => emitCode(options.namespace, options.clientNamespace, source),
  packages: () => CODE_PACKAGES,
  embedded: () => [{ file: SIGNATURES_FILE, name: SIGNATURES_RESOURCE }],
  settings: (options) => ({ read: (w) => readScriptLimits(w, environmentVariables(options.serverName), options.transport === 'http') }),
  program: () => ({
    first: [
      '// The same program is also the interpreter process of one run_script script (started by the server itself).',
      'if (args is [McpScriptRunner.Flag]) return McpScriptRunner.Run();',
    ],
    server: [
      '// Code mode: search the operations, describe one, and run a script that calls them.',
      '.WithCodeTools()',
    ],
  }),
};

/** The limits of one script, and how many scripts run and wait, from the settings. */
function readScriptLimits(w: CSharpWriter, env: ReturnType<typeof environmentVariables>, http: boolean): void {
  w.line('// Code mode: the limits of one script.');
  w.line('var scriptDefaults = new McpScriptLimits();');
  w.line(`if (!TryReadNumber(${stringLiteral(env.scriptTimeout)}, scriptDefaults.TimeoutSeconds, 1, 3600, out var scriptSeconds)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptMaxStatements)}, scriptDefaults.MaxStatements, 1000, 2_000_000_000, out var scriptStatements)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptMaxRecursion)}, scriptDefaults.MaxRecursion, 10, 10_000, out var scriptRecursion)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptMaxMemory)}, scriptDefaults.MaxMemoryMb, 16, 16_384, out var scriptMemory)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptMaxCalls)}, scriptDefaults.MaxCalls, 1, 10_000, out var scriptCalls))`);
  w.line('{');
  w.line('    return null;');
  w.line('}');
  w.line('McpCode.Limits = new McpScriptLimits { TimeoutSeconds = scriptSeconds, MaxStatements = Math.Floor(scriptStatements), MaxRecursion = (int)scriptRecursion, MaxMemoryMb = Math.Floor(scriptMemory), MaxCalls = (int)scriptCalls };');
  w.line('// How many scripts run at once (one per core, at least 2), how many wait and how long, one caller\'s share, and when');
  w.line('// a script counts as long (it then leaves its slot to waiting ones).');
  w.line('var admissionDefaults = new McpScriptAdmissionLimits();');
  w.line(`if (!TryReadNumber(${stringLiteral(env.scriptMaxRunning)}, admissionDefaults.MaxRunning, 1, 1024, out var scriptRunning)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptQueueLength)}, ${SCRIPT_ADMISSION.queuePerRunning} * Math.Floor(scriptRunning), 0, 100_000, out var scriptQueue)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptQueueWait)}, admissionDefaults.QueueWaitSeconds, 0, 3600, out var scriptQueueWait)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptMaxRunningPerCaller)}, Math.Max(1, Math.Floor(scriptRunning / 2)), 1, 1024, out var scriptPerCaller)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptShortSeconds)}, admissionDefaults.ShortSeconds, 0.05, 3600, out var scriptShort))`);
  w.line('{');
  w.line('    return null;');
  w.line('}');
  w.line('McpScriptAdmission.Limits = new McpScriptAdmissionLimits { MaxRunning = (int)scriptRunning, QueueLength = (int)scriptQueue, QueueWaitSeconds = scriptQueueWait, MaxRunningPerCaller = (int)scriptPerCaller, ShortSeconds = scriptShort };');
  if (http) {
    w.line('// With Redis, one caller\'s share of scripts holds across the replicas.');
    w.line('McpScriptAdmission.DeploymentShare = sharedState is null ? null : sharedState.EnterScriptShareAsync;');
  }
}
