/**
 * What the client sets once for every call, from the settings: the parameters it fills itself (`api-version`, an ARM
 * `subscriptionId`), and for long-running operations how long a call watches one and the key of its tokens.
 */
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { FIXED_NAMES } from '../../names/plan.js';
import { clientParameterVariable, environmentVariables } from '../../names/environment.js';
import type { HostOptions } from '../shared/host-options.js';
import type { HostFeature } from '../shared/feature.js';

export const clientParameters: HostFeature = {
  applies: (options) => (options.clientParameters ?? []).length > 0,
  settings: (options) => ({ read: (w) => readClientParameters(w, options) }),
};

export const longRunning: HostFeature = {
  applies: (options) => options.longRunning === true,
  settings: (options) => ({ read: (w) => readLongRunningSettings(w, environmentVariables(options.serverName)) }),
};

/** The parameters the client sets once, from their settings (else the document's value, or none). */
function readClientParameters(w: CSharpWriter, options: HostOptions): void {
  const parameters = options.clientParameters ?? [];
  w.line(`// The parameters every call takes that the client sets once: ${parameters.map((p) => p.name).join(', ')}.`);
  parameters.forEach((parameter, index) => {
    const variable = clientParameterVariable(options.serverName, parameter.setting);
    w.line(`if (settings[${stringLiteral(variable)}]?.Trim() is { Length: > 0 } clientParameter${index}) Client.${FIXED_NAMES.clientParameters}.${parameter.property} = clientParameter${index};`);
  });
}

/** How long a call watches a long-running operation, and the key that signs the tokens of those still running. */
function readLongRunningSettings(w: CSharpWriter, env: ReturnType<typeof environmentVariables>): void {
  w.line('// Long-running operations: how long a call watches one before it answers that it is still running, and the key');
  w.line('// that signs the tokens with which a later call watches it again (set it alike on every replica of a deployment).');
  w.line(`if (!TryReadNumber(${stringLiteral(env.longRunningWait)}, Client.${FIXED_NAMES.limits}.LongRunningWaitSeconds, 0, 3600, out var longRunningWait))`);
  w.line('{');
  w.line('    return null;');
  w.line('}');
  w.line(`Client.${FIXED_NAMES.limits}.LongRunningWaitSeconds = longRunningWait;`);
  w.line(`if (settings[${stringLiteral(env.operationKey)}] is { Length: > 0 } operationKey)`);
  w.line('{');
  w.line('    var key = Convert.TryFromBase64String(operationKey, new byte[operationKey.Length], out var length) ? Convert.FromBase64String(operationKey) : [];');
  w.line('    if (key.Length < 32)');
  w.line('    {');
  w.line(`        Console.Error.WriteLine(${stringLiteral(`error: ${env.operationKey} must be at least 32 bytes in base64 (e.g. openssl rand -base64 32)`)});`);
  w.line('        return null;');
  w.line('    }');
  w.line(`    Client.${FIXED_NAMES.request}.OperationKeys = [key];`);
  w.line('}');
}
