import type { Operation } from '../model/types.js';
import { asciiWords, unique, words } from './identifiers.js';
import { VERSION, formatOf, tokenize } from './path-tokens.js';
import { MAX_TOOL_NAME_LENGTH, PREFERRED_TOOL_NAME_LENGTH, joinToolName, toolNameParts, truncateName, type ToolNameParts } from './tool-names.js';

export interface ChosenName {
  readonly name: string;
  readonly parts: ToolNameParts;
}

/** Every operation's tool name, in the order of the list (earlier operations keep the plainer names). */
export function chooseToolNames(list: readonly Operation[], prefixLength: number, taken: Set<string>): Map<string, ChosenName> {
  return new Map(list.map((op) => [op.id, chooseToolName(op, prefixLength, taken)]));
}

/**
 * An operation's tool name: from method and path (SPEC 4.3); from the operationId where the path has no
 * words of its own (`POST /#X-Amz-Target=Service.AssociateFleet`, `/`). When the name is taken, the words
 * that tell this operation apart are added (API version, the parent resources the length limit dropped,
 * the item parameter, what follows `#` or `?` in the template, the operationId); a counter only when
 * nothing tells them apart.
 */
function chooseToolName(op: Operation, prefixLength: number, taken: Set<string>): ChosenName {
  const parts = toolNameParts(op, prefixLength);
  const fromId = op.operationId === undefined ? '' : readableName(op.operationId);
  const full = [...parts.verb, ...parts.parents.flat(), ...parts.target].join('_');
  const base = hasWords(op.requestPath, prefixLength) || fromId === '' ? joinToolName(parts) ?? truncateName(full, PREFERRED_TOOL_NAME_LENGTH) : truncateName(fromId, MAX_TOOL_NAME_LENGTH);
  for (const candidate of candidates(base, op, parts, fromId)) {
    const name = truncateName(candidate.replace(/[^a-z0-9_]/g, ''), MAX_TOOL_NAME_LENGTH);
    if (name !== '' && !taken.has(name)) {
      taken.add(name);
      return { name, parts };
    }
  }
  return { name: unique(truncateName(base, MAX_TOOL_NAME_LENGTH - 4), taken, '_'), parts };
}

/**
 * An operationId as a snake_case name, when it reads as words: `AssociateFleet` → associate_fleet, but not
 * `58d8bcb7a9e6240e200cff24` (mostly letters in words of two or more, or nothing). Hash-like pieces
 * (`GetCount-e7d5`) are left out, and a version stays one word (`ListObjectsV2` → list_objects_v2).
 */
function readableName(operationId: string): string {
  const parts = operationIdWords(operationId).reduce<string[]>((joined, w) => {
    if (/^\d+$/.test(w) && joined[joined.length - 1] === 'v') joined[joined.length - 1] = `v${w}`;
    else joined.push(w);
    return joined;
  }, []);
  const total = parts.reduce((n, w) => n + w.length, 0);
  const wordy = parts.filter((w) => w.length >= 2 && /^[a-z]+$/.test(w)).reduce((n, w) => n + w.length, 0);
  return wordy > 0 && wordy * 2 >= total ? parts.join('_') : '';
}

/** An operationId's words without its hash-like pieces (`Get.Count.multiValueExtendedProperties-e7d5`). */
export function operationIdWords(operationId: string): readonly string[] {
  return asciiWords(operationId.split(/[^A-Za-z0-9]+/).filter((piece) => !/^(?=.*\d)[0-9a-f]{3,}$/i.test(piece)).join(' '));
}

/** Whether the path (after the prefix every path shares) has a resource or action word. */
function hasWords(path: string, prefixLength: number): boolean {
  const rest = path.split('/').filter((s) => s !== '').slice(prefixLength).join('/');
  return tokenize(rest).some((t) => t.kind !== 'param');
}

/** Lazily: most base names are free, and the others need the path taken apart again. */
function* candidates(base: string, op: Operation, parts: ToolNameParts, fromId: string): Generator<string> {
  yield base;
  const version = op.requestPath.split('/').find((s) => VERSION.test(s) && /^v/i.test(s));
  if (version) yield `${base}_${version.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`;
  const longer = joinToolName(parts, MAX_TOOL_NAME_LENGTH);
  if (longer !== undefined && longer !== base) yield longer;
  const lastParam = tokenize(op.requestPath).findLast((t) => t.kind === 'param');
  const byParam = lastParam?.kind === 'param' ? `${base}_by_${words(lastParam.name).join('_')}` : undefined;
  // A format (`/ip/{ipv4}.txt`) is what tells an operation from its JSON sibling, so it stays in the name.
  const format = formatOf(op.requestPath);
  if (format) yield `${base}_${format}`;
  if (byParam) yield format ? `${byParam}_${format}` : byParam;
  const baseWords = new Set(base.split('_'));
  const extra = asciiWords(op.path.slice(op.requestPath.length)).filter((w) => !baseWords.has(w));
  if (extra.length > 0) yield `${base}_${extra.join('_')}`;
  const tag = asciiWords(op.tags[0] ?? '').filter((w) => !baseWords.has(w));
  if (tag.length > 0) yield `${base}_${tag.join('_')}`;
  if (fromId !== '' && fromId !== base) yield fromId;
}
