/** Program.cs in code mode: the limits of one script and the admission of scripts, read from the settings. */
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import type { environmentVariables } from '../../names/environment.js';
import { SCRIPT_ADMISSION } from './code.js';

/** The limits of one script, and how many scripts run and wait, from the settings (`TryReadNumber` is Program.cs's). */
export function readScriptLimits(w: CSharpWriter, env: ReturnType<typeof environmentVariables>): void {
  w.line('var scriptDefaults = new Tools.McpScriptLimits();');
  w.line(`if (!TryReadNumber(${stringLiteral(env.scriptTimeout)}, scriptDefaults.TimeoutSeconds, 1, 3600, out var scriptSeconds)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptMaxStatements)}, scriptDefaults.MaxStatements, 1000, 2_000_000_000, out var scriptStatements)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptMaxRecursion)}, scriptDefaults.MaxRecursion, 10, 10_000, out var scriptRecursion)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptMaxMemory)}, scriptDefaults.MaxMemoryMb, 16, 16_384, out var scriptMemory)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptMaxCalls)}, scriptDefaults.MaxCalls, 1, 10_000, out var scriptCalls))`);
  w.line('{');
  w.line('    return 1;');
  w.line('}');
  w.line('Tools.McpCode.Limits = new Tools.McpScriptLimits { TimeoutSeconds = scriptSeconds, MaxStatements = Math.Floor(scriptStatements), MaxRecursion = (int)scriptRecursion, MaxMemoryMb = Math.Floor(scriptMemory), MaxCalls = (int)scriptCalls };');
  w.line('// How many scripts run at once (one per core, at least 2), how many wait and how long, one caller\'s share, and when');
  w.line('// a script counts as long (it then leaves its slot to waiting ones).');
  w.line('var admissionDefaults = new Tools.McpScriptAdmissionLimits();');
  w.line(`if (!TryReadNumber(${stringLiteral(env.scriptMaxRunning)}, admissionDefaults.MaxRunning, 1, 1024, out var scriptRunning)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptQueueLength)}, ${SCRIPT_ADMISSION.queuePerRunning} * Math.Floor(scriptRunning), 0, 100_000, out var scriptQueue)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptQueueWait)}, admissionDefaults.QueueWaitSeconds, 0, 3600, out var scriptQueueWait)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptMaxRunningPerCaller)}, Math.Max(1, Math.Floor(scriptRunning / 2)), 1, 1024, out var scriptPerCaller)`);
  w.line(`    || !TryReadNumber(${stringLiteral(env.scriptShortSeconds)}, admissionDefaults.ShortSeconds, 0.05, 3600, out var scriptShort))`);
  w.line('{');
  w.line('    return 1;');
  w.line('}');
  w.line('Tools.McpScriptAdmission.Limits = new Tools.McpScriptAdmissionLimits { MaxRunning = (int)scriptRunning, QueueLength = (int)scriptQueue, QueueWaitSeconds = scriptQueueWait, MaxRunningPerCaller = (int)scriptPerCaller, ShortSeconds = scriptShort };');
}
