import type { PreparedApi } from './generate.js';
import { planNames } from './names/plan.js';
import { selectOperations, type Selection, type Skipped } from './select.js';
import { toolListing } from './emit/tools/listing.js';
import { discoveryListing } from './emit/discovery/discovery.js';
import { searchMap } from './emit/discovery/search-map.js';
import { outputSchema } from './emit/tools/output-schema.js';

/** Clients degrade, or refuse, past these sizes (Cursor shows about 40 tools; VS Code allows 128). */
export const TOOL_COUNT_WARNING = 40;
export const TOOL_COUNT_LIMIT = 128;
export const TOKEN_WARNING = 20_000;

export interface ToolSize {
  readonly name: string;
  readonly operation: string;
  readonly tags: readonly string[];
  readonly bytes: number;
}

export interface SelectionReport {
  readonly title: string;
  readonly tools: readonly ToolSize[];
  readonly skipped: readonly Skipped[];
  readonly bytes: number;
  readonly byTag: readonly { tag: string; tools: number; bytes: number }[];
  /** tools/list of the same selection in discovery mode: three tools, search_operations' description with the map of the selection. */
  readonly discoveryBytes: number;
  /** What --structured-output adds to tools/list: the output schemas. */
  readonly structuredBytes: number;
  readonly warnings: readonly string[];
}

/** Roughly four bytes of JSON per token. */
export const approximateTokens = (bytes: number): number => Math.ceil(bytes / 4);

/** What a selection would generate, without writing anything: tools, skipped operations, tools/list size. */
export function reportSelection(api: PreparedApi, selection: Selection): SelectionReport {
  const plan = planNames(api.model);
  const { selected, skipped } = selectOperations(api.model, plan, selection);
  const tools = selected.map((op) => ({
    name: plan.operations.get(op.id)?.toolName ?? '',
    operation: `${op.method.toUpperCase()} ${op.path}`,
    tags: op.tags,
    bytes: Buffer.byteLength(JSON.stringify(toolListing(api.model, plan, op))),
  }));
  const bytes = tools.reduce((sum, t) => sum + t.bytes, 0) + 12;
  const structuredBytes = selected.reduce((sum, op) => {
    const output = outputSchema(api.model, op);
    return sum + (output ? Buffer.byteLength(`,"outputSchema":${JSON.stringify(output.schema)}`) : 0);
  }, 0);
  const tags = new Map<string, { tools: number; bytes: number }>();
  for (const tool of tools) {
    for (const tag of tool.tags.length > 0 ? tool.tags : ['(untagged)']) {
      const entry = tags.get(tag) ?? { tools: 0, bytes: 0 };
      entry.tools++;
      entry.bytes += tool.bytes;
      tags.set(tag, entry);
    }
  }
  const byTag = [...tags.entries()].map(([tag, v]) => ({ tag, ...v })).sort((a, b) => b.bytes - a.bytes);
  const largest = byTag.slice(0, 3).map((t) => `${t.tag} (${t.tools} tools, ~${approximateTokens(t.bytes).toLocaleString('en-US')} tokens)`).join(', ');
  const warnings: string[] = [];
  const discoveryBytes = Buffer.byteLength(JSON.stringify({ tools: discoveryListing(searchMap(selected)) }));
  if (tools.length > TOOL_COUNT_LIMIT || approximateTokens(bytes) > TOKEN_WARNING) {
    warnings.push(`use --mode discovery: three tools that search, describe and call the operations; tools/list ~${discoveryBytes.toLocaleString('en-US')} bytes (~${approximateTokens(discoveryBytes).toLocaleString('en-US')} tokens) instead of ~${bytes.toLocaleString('en-US')} bytes (~${approximateTokens(bytes).toLocaleString('en-US')} tokens) for ${tools.length} tools`);
  }
  if (tools.length > TOOL_COUNT_LIMIT) warnings.push(`${tools.length} tools is over the ${TOOL_COUNT_LIMIT} that VS Code accepts; pick tags with --tags. Largest tags: ${largest}`);
  else if (tools.length > TOOL_COUNT_WARNING) warnings.push(`${tools.length} tools: assistants choose less well past about ${TOOL_COUNT_WARNING}. Largest tags: ${largest}`);
  if (approximateTokens(bytes) > TOKEN_WARNING) warnings.push(`tools/list is ~${approximateTokens(bytes).toLocaleString('en-US')} tokens, over ${TOKEN_WARNING.toLocaleString('en-US')}: it takes that much of every conversation. Largest tags: ${largest}`);
  return { title: `${api.model.title} ${api.model.version}`.trim(), tools, skipped, bytes, byTag, discoveryBytes, structuredBytes, warnings };
}

/** The report as text for a terminal. */
export function formatReport(report: SelectionReport): string {
  const n = (value: number): string => value.toLocaleString('en-US');
  const width = report.tools.reduce((most, t) => Math.max(most, t.name.length), 4);
  const tagWidth = report.byTag.reduce((most, t) => Math.max(most, t.tag.length), 3);
  return [
    `${report.title}: ${report.tools.length} tools, ${report.skipped.length} operations skipped; tools/list ~${n(report.bytes)} bytes, ~${n(approximateTokens(report.bytes))} tokens (--structured-output adds ~${n(report.structuredBytes)} bytes)`,
    '',
    `${'tag'.padEnd(tagWidth)}  tools  ~tokens`,
    ...report.byTag.map((t) => `${t.tag.padEnd(tagWidth)}  ${String(t.tools).padStart(5)}  ${n(approximateTokens(t.bytes)).padStart(7)}`),
    '',
    'tools:',
    ...report.tools.map((t) => `  ${t.name.padEnd(width)}  ${t.operation}  (~${n(approximateTokens(t.bytes))} tokens)`),
    ...(report.skipped.length > 0 ? ['', 'skipped:', ...report.skipped.map((s) => `  ${s.operation.method.toUpperCase()} ${s.operation.path}: ${s.reason}`)] : []),
    ...(report.warnings.length > 0 ? ['', ...report.warnings.map((w) => `warning: ${w}`)] : []),
    '',
  ].join('\n');
}
