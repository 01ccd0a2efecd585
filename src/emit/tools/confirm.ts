/**
 * Confirmation before destructive calls (`--confirm destructive`): the mark on each tool that asks, the class that
 * asks (`McpConfirm.cs`), and Program.cs's reading of the setting that turns it off.
 */
import { REQUEST_CONTEXT_PARAMETER } from '../../names/plan.js';
import type { GeneratedFile } from '../shared/file.js';
import { templates } from '../shared/templates.js';
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';

export const CONFIRM_CLASS = 'McpConfirm';
export const CONFIRM_ATTRIBUTE = 'Confirm';
export const CONFIRM_CONTEXT_PARAMETER = REQUEST_CONTEXT_PARAMETER;

/** The values of the setting: `destructive` (the default) asks, `off` sends without asking. */
export const CONFIRM_SETTING_VALUES = ['destructive', 'off'] as const;

/** McpTools.g.cs: the attribute that marks a tool that asks, with what the question shows of its operation. */
export function emitConfirmAttribute(w: CSharpWriter): void {
  w.line();
  w.doc('summary', 'A tool that asks the user before its request is sent (--confirm destructive), and what the question shows of its operation.');
  w.line('[AttributeUsage(AttributeTargets.Method)]');
  w.open('public sealed class ConfirmAttribute(string method, string path, string title) : Attribute');
  w.line('public string Method { get; } = method;');
  w.line('public string Path { get; } = path;');
  w.line('public string Title { get; } = title;');
  w.close();
}

/** McpConfirm.cs, in the tools' namespace. */
export function emitConfirm(namespace: string, clientNamespace: string, source: string): GeneratedFile {
  return templates('tools')('McpConfirm', 'McpConfirm.cs', namespace, source, clientNamespace);
}

/** Program.cs: the setting (`destructive` or `off`), and in code mode the question before a script runs. */
export function readConfirmSetting(w: CSharpWriter, setting: string, code: boolean): void {
  w.line(`// Confirmation before destructive calls; "off" sends them without asking (trusted automation only).`);
  w.line(`var confirm = settings[${stringLiteral(setting)}]?.Trim().ToLowerInvariant();`);
  w.line(`if (!string.IsNullOrEmpty(confirm) && confirm is not (${CONFIRM_SETTING_VALUES.map(stringLiteral).join(' or ')}))`);
  w.line('{');
  w.line(`    Console.Error.WriteLine($${stringLiteral(`error: ${setting} "{confirm}" is not ${CONFIRM_SETTING_VALUES.map((v) => `"${v}"`).join(' or ')}`)});`);
  w.line('    return 1;');
  w.line('}');
  w.line(`Tools.${CONFIRM_CLASS}.Enabled = confirm != "off";`);
  w.line(`Tools.${CONFIRM_CLASS}.Setting = ${stringLiteral(setting)};`);
  if (code) w.line(`Tools.McpCode.Confirm = Tools.${CONFIRM_CLASS}.ScriptRefusal;`);
}
