import type { Operation, SchemaFacts, TypeRef } from '../../model/types.js';

/** Longest tool description; longer ones are cut at a word boundary outside code spans. */
export const MAX_TOOL_DESCRIPTION = 1024;
const MAX_ENUM_VALUES = 50;
/** Most meanings of values a description gives (x-ms-enum's), each at most MAX_MEANING characters. */
const MAX_VALUE_MEANINGS = 20;
const MAX_MEANING = 100;
/** Enums longer than this stay in the description only (they would swell every tools/list). */
export const MAX_SCHEMA_ENUM = 100;

/** Whether a tool's input schema lists the type's allowed values as `enum` (short enough to). */
export function enumPublished(type: TypeRef): boolean {
  const values = type.constraints?.enum;
  return values !== undefined && values.length <= MAX_SCHEMA_ENUM;
}

/**
 * A parameter or property description: the spec's text, the allowed values and the default. `forSchema`:
 * the text a tool's input schema carries, which leaves out the allowed values the schema lists as `enum`.
 */
export function valueDescription(facts: SchemaFacts, type: TypeRef | undefined, fallback?: string, forSchema = false): string | undefined {
  const parts: string[] = [];
  const text = (facts.description ?? fallback)?.trim();
  if (text) parts.push(/[.!?:]$/.test(text) ? text : text + '.');
  const values = type?.constraints?.enum;
  if (values && values.length > 0 && !(forSchema && type && enumPublished(type))) {
    const shown = values.slice(0, MAX_ENUM_VALUES).map(showValue);
    const more = values.length > MAX_ENUM_VALUES ? `, … (${values.length} in all)` : '';
    parts.push(`Allowed values: ${shown.join(', ')}${more}.`);
  }
  // What the values mean, where the document says (x-ms-enum): a few, each shortened, so that a long list stays short.
  const meanings = facts.valueDescriptions;
  if (meanings && meanings.length > 0) {
    const shown = meanings.slice(0, MAX_VALUE_MEANINGS).map(([value, meaning]) => `${showValue(value)}: ${trimDescription(meaning.replace(/\s+/g, ' '), MAX_MEANING).replace(/[.;]+$/, '')}`);
    parts.push(`${shown.join('; ')}${meanings.length > MAX_VALUE_MEANINGS ? '; …' : ''}.`);
  }
  // A default outside the allowed values is the spec's mistake: it is not repeated.
  if (facts.defaultValue !== undefined && !(values && !values.some((v) => JSON.stringify(v) === JSON.stringify(facts.defaultValue)))) parts.push(`Default: ${showValue(facts.defaultValue)}.`);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

function showValue(value: unknown): string {
  if (typeof value === 'string') return /^[\w.+-]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** The tool description: the summary, plus the description where it adds to it, trimmed. */
export function toolDescription(op: Operation): string {
  if (op.mcp?.description) return trimDescription(op.mcp.description.trim(), MAX_TOOL_DESCRIPTION);
  const summary = op.summary?.trim();
  const description = op.description?.trim();
  let text = summary ?? description ?? `${op.method.toUpperCase()} ${op.path}`;
  if (summary && description && !sameText(summary, description) && !description.startsWith(summary)) text = `${summary}\n\n${description}`;
  else if (summary && description && description.startsWith(summary)) text = description;
  if (op.deprecated) text = `Deprecated. ${text}`;
  return trimDescription(text, MAX_TOOL_DESCRIPTION);
}

const sameText = (a: string, b: string): boolean => a.replace(/[\s.]+$/, '').toLowerCase() === b.replace(/[\s.]+$/, '').toLowerCase();

/** Cuts text to `max` characters without splitting a word or a `code span`, ending with an ellipsis. */
export function trimDescription(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  const space = cut.search(/\s\S*$/);
  if (space > max / 2) cut = cut.slice(0, space);
  if ((cut.match(/`/g) ?? []).length % 2 === 1) cut = cut.slice(0, cut.lastIndexOf('`'));
  return cut.trimEnd() + '…';
}
