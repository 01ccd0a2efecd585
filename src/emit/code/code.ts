import type { GeneratedFile } from '../shared/file.js';
import type { ApiModel, Operation } from '../../model/types.js';
import type { NamePlan } from '../../names/plan.js';
import { templates } from '../shared/templates.js';
import { jsonText, rawStringLiteral, stringLiteral } from '../shared/writer.js';
import { inputSchema } from '../tools/input-schema.js';
import { signature } from './signature.js';
import { supportPath } from '../shared/feature.js';

const template = templates('code');

/** Written beside McpTools.g.cs in code mode: each operation's signature as a script calls it. */
export const SIGNATURES_FILE = 'McpSignatures.g.json';
export const SIGNATURES_RESOURCE = 'McpSignatures.json';

/** Longest script run_script takes, in characters. */
export const MAX_SCRIPT_LENGTH = 20_000;

/** The default limits of one script (each a setting; see docs/code-mode.md), as the server and its README state them. */
export const SCRIPT_LIMITS = { timeoutSeconds: 30, maxStatements: 10_000_000, maxRecursion: 200, maxMemoryMb: 128, maxCalls: 50 } as const;

/** The interpreter process's heap room beside a script's memory limit, in MB: its hard heap limit is the sum. */
export const SCRIPT_ROOM_MB = 96;

/**
 * How many scripts run and wait (each a setting; see docs/code-mode.md): scripts running at once default to one per
 * core (at least 2), the queue to 16 × that (the queue costs little: its wait is bounded), one caller's share to half the running slots (at least 1) and half the queue.
 */
export const SCRIPT_ADMISSION = { queueWaitSeconds: 10, queuePerRunning: 16, shortSeconds: 0.25 } as const;

/** The NuGet package of the interpreter (Jint: JavaScript in .NET, no native code, with execution constraints). */
export const CODE_PACKAGES = [{ id: 'Jint', version: '4.18.0' }] as const;

interface CodeTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly placeholder: string;
}

/** The tools code mode adds to search_operations: describe_operation with the signature, and run_script. */
export function codeTools(): CodeTool[] {
  return [
    {
      name: 'describe_operation', title: 'Describe an operation', placeholder: '__DESCRIBE_TOOL__',
      description: 'Describes an operation: JSON {name, title, method, path, description, inputSchema, annotations, signature}; signature declares how a run_script script calls it, api.<name>(args), and what it returns.',
      inputSchema: { type: 'object', properties: { name: { type: 'string', minLength: 1, description: 'Operation name, from search_operations.' } }, required: ['name'] },
    },
    {
      name: 'run_script', title: 'Run a script against the API', placeholder: '__RUN_TOOL__',
      description: 'Runs JavaScript (the body of an async function) that calls the API: `await api.<name>(args)` returns the answer (JSON parsed, else text) or throws an Error whose message is the error and whose status is the HTTP status. Loop, page, join and return only what is needed; console.log is kept. Answers JSON {result, logs}. No other access (no files, network, require or timers); limits on time, statements, memory and API calls apply.',
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'string', minLength: 1, maxLength: MAX_SCRIPT_LENGTH, description: 'JavaScript, e.g. `const b = await api.get_book({ bookId: 1 }); return b.title;`' } },
        required: ['code'],
      },
    },
  ];
}

/** The code-mode host's files: the tools, the interpreter process and its sandbox. */
export function emitCode(namespace: string, clientNamespace: string, source: string): GeneratedFile[] {
  const fills = Object.fromEntries(codeTools().map((tool) => [tool.placeholder, [
    `    [McpServerTool(Name = ${stringLiteral(tool.name)}, Title = ${stringLiteral(tool.title)}${tool.name === 'describe_operation' ? ', ReadOnly = true, Destructive = false, Idempotent = true, OpenWorld = false' : ''})]`,
    `    [Description(${stringLiteral(tool.description)})]`,
    `    [McpTools.InputSchema(${rawStringLiteral(jsonText(tool.inputSchema))})]`,
  ].join('\n')]));
  return [
    template('McpCode', supportPath('McpCode.cs'), namespace, source, clientNamespace, {
      ...fills,
      __TIMEOUT_SECONDS__: String(SCRIPT_LIMITS.timeoutSeconds), __MAX_STATEMENTS__: String(SCRIPT_LIMITS.maxStatements), __MAX_RECURSION__: String(SCRIPT_LIMITS.maxRecursion),
      __MAX_MEMORY_MB__: String(SCRIPT_LIMITS.maxMemoryMb), __MAX_CALLS__: String(SCRIPT_LIMITS.maxCalls),
    }),
    template('McpScriptAdmission', supportPath('McpScriptAdmission.cs'), namespace, source, clientNamespace, { __QUEUE_WAIT_SECONDS__: String(SCRIPT_ADMISSION.queueWaitSeconds), __QUEUE_PER_RUNNING__: String(SCRIPT_ADMISSION.queuePerRunning), __SHORT_SECONDS__: String(SCRIPT_ADMISSION.shortSeconds) }),
    template('McpScriptProcess', supportPath('McpScriptProcess.cs'), namespace, source, clientNamespace, { __ROOM_MB__: String(SCRIPT_ROOM_MB) }),
    template('McpScriptPool', supportPath('McpScriptPool.cs'), namespace, source, clientNamespace),
    template('McpScriptMemory', supportPath('McpScriptMemory.cs'), namespace, source, clientNamespace),
    template('McpScriptRunner', supportPath('McpScriptRunner.cs'), namespace, source, clientNamespace),
    template('McpScriptSandbox', supportPath('McpScriptSandbox.cs'), namespace, source, clientNamespace),
  ];
}

/** `McpSignatures.g.json`: tool name → signature, for the selected operations. */
export function signatures(plan: NamePlan, operations: readonly Operation[], model: ApiModel): string {
  const entries: Record<string, string> = {};
  for (const op of operations) {
    const names = plan.operations.get(op.id);
    if (names) entries[names.toolName] = signature(model, op, names.toolName, inputSchema(model, plan, op));
  }
  return `${JSON.stringify(entries, null, 1)}\n`;
}
