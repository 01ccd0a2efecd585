/**
 * Confirmation before destructive calls (`--confirm destructive`): the mark on each tool that asks, the class that
 * asks (`McpConfirm.cs`), and Program.cs's reading of the setting that turns it off.
 */
import { REQUEST_CONTEXT_PARAMETER, type OperationNames, type NamePlan } from '../../names/plan.js';
import { bareName } from '../../names/identifiers.js';
import type { Operation } from '../../model/types.js';
import { methodParameters } from '../shared/signature.js';
import { templates } from '../shared/templates.js';
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import { environmentVariables } from '../../names/environment.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

export const CONFIRM_CLASS = 'McpConfirm';
export const CONFIRM_ATTRIBUTE = 'Confirm';
export const CONFIRM_CONTEXT_PARAMETER = REQUEST_CONTEXT_PARAMETER;

/** The values of the setting: `destructive` (the default) asks, `off` sends without asking. */
export const CONFIRM_SETTING_VALUES = ['destructive', 'off'] as const;

/** McpTools.g.cs: the attribute that marks a tool that asks, with what the question shows of its operation. */
export function emitConfirmAttribute(w: CSharpWriter): void {
  w.line();
  w.doc('summary', 'A tool that asks the user before its request is sent (--confirm destructive), and what the question shows of its operation: the request with the arguments that pick its target in place ({name}: an argument), and every argument, those first.');
  w.line('[AttributeUsage(AttributeTargets.Method)]');
  w.open('public sealed class ConfirmAttribute(string method, string path, string title, string request, params string[] arguments) : Attribute');
  w.line('public string Method { get; } = method;');
  w.line('public string Path { get; } = path;');
  w.line('public string Title { get; } = title;');
  w.line('public string Request { get; } = request;');
  w.line('public IReadOnlyList<string> Arguments { get; } = arguments;');
  w.close();
}

/**
 * The attribute on a tool that asks: its operation, the request as the question shows it (the path with its
 * parameters' arguments in place, and a DELETE's query, which picks what is deleted), and the arguments in the order
 * the question lists them: those that pick the target first, so that nothing long comes before them.
 */
export function confirmAttribute(op: Operation, names: OperationNames, plan: NamePlan): string {
  const parameters = methodParameters(op, names, plan);
  const argument = (location: string, name: string): string | undefined => {
    const found = parameters.find((p) => p.source.kind === 'parameter' && p.source.parameter.location === location && p.source.parameter.name === name);
    return found && bareName(found.name);
  };
  const path = op.requestPath.replace(/\{([^}]*)\}/g, (whole, name: string) => {
    const arg = argument('path', name);
    return arg === undefined ? whole : `{${arg}}`;
  });
  const query = op.method === 'delete' ? op.parameters.filter((p) => p.location === 'query') : [];
  const request = path + (query.length > 0 ? `?${query.map((p) => `${p.name}={${argument('query', p.name) ?? p.name}}`).join('&')}` : '');
  const targets = [...op.parameters.filter((p) => p.location === 'path'), ...query].map((p) => argument(p.location, p.name)).filter((a): a is string => a !== undefined);
  const rest = parameters.map((p) => bareName(p.name)).filter((name) => !targets.includes(name));
  const values = [op.method.toUpperCase(), op.path, names.title, request, ...targets, ...rest];
  return `[${CONFIRM_ATTRIBUTE}(${values.map(stringLiteral).join(', ')})]`;
}

/**
 * `--confirm destructive`: McpConfirm.cs, and McpSettings's reading of the setting (`destructive` or `off`), and in code
 * mode the question before a script runs.
 */
export const confirm: HostFeature = {
  applies: (options) => options.confirm !== undefined,
  files: (options, source) => [templates('tools')('McpConfirm', supportPath('McpConfirm.cs'), options.namespace, source, options.clientNamespace)],
  settings: (options) => ({ read: (w) => readConfirmSetting(w, environmentVariables(options.serverName).confirm, options.mode === 'code') }),
};

function readConfirmSetting(w: CSharpWriter, setting: string, code: boolean): void {
  w.line(`// Confirmation before destructive calls; "off" sends them without asking (trusted automation only).`);
  w.line(`var confirm = settings[${stringLiteral(setting)}]?.Trim().ToLowerInvariant();`);
  w.line(`if (!string.IsNullOrEmpty(confirm) && confirm is not (${CONFIRM_SETTING_VALUES.map(stringLiteral).join(' or ')}))`);
  w.line('{');
  w.line(`    Console.Error.WriteLine($${stringLiteral(`error: ${setting} "{confirm}" is not ${CONFIRM_SETTING_VALUES.map((v) => `"${v}"`).join(' or ')}`)});`);
  w.line('    return null;');
  w.line('}');
  w.line(`${CONFIRM_CLASS}.Enabled = confirm != "off";`);
  w.line(`${CONFIRM_CLASS}.Setting = ${stringLiteral(setting)};`);
  w.line(`${CONFIRM_CLASS}.BasePath = baseAddress.AbsolutePath.TrimEnd('/');`);
  if (code) w.line(`McpCode.Confirm = ${CONFIRM_CLASS}.ScriptRefusal;`);
}
