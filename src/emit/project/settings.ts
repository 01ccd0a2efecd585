/**
 * McpSettings.g.cs: the server's settings, read once at start from the configuration (environment variables, or
 * appsettings.json), each checked; one that is wrong is one line on stderr and no start. Each feature of the host
 * adds its members and its lines of `Read` (feature.ts).
 */
import { banner } from '../shared/banner.js';
import { CSharpWriter } from '../shared/writer.js';
import type { SettingsPart } from '../shared/feature.js';
import type { HostOptions } from '../shared/host-options.js';

export const SETTINGS_CLASS = 'McpSettings';

export function emitSettings(options: HostOptions, parts: readonly SettingsPart[]): string {
  const w = new CSharpWriter();
  w.line(banner(`the server ${options.serverName}`).trimEnd()).line('#nullable enable').line();
  const usings = ['System', 'System.Collections.Generic', 'System.Globalization', 'System.Threading.Tasks', ...(options.transport === 'http' ? ['Microsoft.AspNetCore.Http'] : []), 'Microsoft.Extensions.Configuration', 'ModelContextProtocol.Protocol'];
  for (const using of usings) w.line(`using ${using};`);
  w.line(`using Client = global::${options.clientNamespace};`);
  w.line().line(`namespace ${options.namespace};`).line();
  w.doc('summary', 'The server\'s settings (see README.md): environment variables, or appsettings.json beside the project. Read and checked once, at start; one that is wrong is one line on stderr and no start.');
  w.open(`internal sealed class ${SETTINGS_CLASS}`);
  parts.forEach((part, index) => {
    for (const line of part.members ?? []) w.line(line);
    if ((part.members ?? []).length > 0 && index < parts.length - 1) w.line();
  });
  w.line();
  w.doc('summary', 'Reads the settings, checks them, and sets the limits the client and the tools read; null, after one line on stderr, when one is wrong.');
  w.open(`public static ${SETTINGS_CLASS}? Read(IConfiguration settings)`);
  for (const part of parts) part.read?.(w);
  w.line();
  w.line(`return new ${SETTINGS_CLASS}`);
  w.line('{');
  for (const value of parts.flatMap((part) => part.values ?? [])) w.line(`    ${value},`);
  w.line('};');
  w.line();
  w.line('// A number setting: its default when unset, else a number in range, else one line on stderr.');
  w.open('bool TryReadNumber(string name, double fallback, double min, double max, out double value)');
  w.line('var text = settings[name];');
  w.line('value = fallback;');
  w.line('if (string.IsNullOrWhiteSpace(text)) return true;');
  w.line('if (double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value) && value >= min && value <= max) return true;');
  w.line('Console.Error.WriteLine($"error: {name} is \\"{text}\\": give a number from {min} to {max}");');
  w.line('return false;');
  w.close();
  w.close();
  for (const part of parts) {
    if (!part.methods) continue;
    w.line();
    part.methods(w);
  }
  w.close();
  return w.toString();
}
