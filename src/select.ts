import { createRequire } from 'node:module';
import type picomatchType from 'picomatch';
import { GeneratorError } from './errors.js';
import type { ApiModel, Operation } from './model/types.js';
import type { NamePlan } from './names/plan.js';

/** Which operations become tools. Every filter given must let an operation through. */
export interface Selection {
  /** Keep operations with one of these tags (case-insensitive). */
  readonly tags?: readonly string[];
  /** Keep operations matching one of these patterns: an operationId or tool name glob, or `METHOD /path` glob. */
  readonly include?: readonly string[];
  /** Drop operations matching one of these patterns. */
  readonly exclude?: readonly string[];
  /** Keep only GET and HEAD operations. */
  readonly readOnly?: boolean;
}

export interface Skipped {
  readonly operation: Operation;
  readonly reason: string;
}

/** The glob library, loaded only when a pattern is given. */
const loadPicomatch = (): typeof picomatchType => createRequire(import.meta.url)('picomatch') as typeof picomatchType;

/** Globs as picomatch reads them: `*` within a `/`-separated part, `**` across parts; any case; names may start with a dot. */
const GLOB_OPTIONS = { nocase: true, dot: true } as const;

type Matcher = (op: Operation, toolName: string) => boolean;

/**
 * A pattern as a test of operations: `listPets` or `list_*` matches the operationId or the tool name;
 * `GET /pets/*` matches method and path (`*` within one segment, `**` across segments, method `*` any,
 * several methods as `PUT|PATCH`).
 */
export function compilePattern(pattern: string): Matcher {
  const trimmed = pattern.trim();
  const picomatch = loadPicomatch();
  const space = trimmed.indexOf(' ');
  if (space > 0) {
    const methods = trimmed.slice(0, space).toLowerCase().split('|');
    const path = picomatch(trimmed.slice(space + 1).trim(), GLOB_OPTIONS);
    return (op) => (methods.includes('*') || methods.includes(op.method)) && path(op.path);
  }
  const name = picomatch(trimmed, GLOB_OPTIONS);
  return (op, toolName) => name(toolName) || (op.operationId !== undefined && name(op.operationId));
}

/** Whether one pattern (see {@link compilePattern}) matches an operation with the given tool name. */
export function matches(pattern: string, op: Operation, toolName: string): boolean {
  return compilePattern(pattern)(op, toolName);
}

/** The operations that become tools, and why each other one does not. */
export function selectOperations(model: ApiModel, plan: NamePlan, selection: Selection = {}): { selected: Operation[]; skipped: Skipped[] } {
  const tags = new Set((selection.tags ?? []).map((t) => t.trim().toLowerCase()).filter((t) => t !== ''));
  const patterns = (list: readonly string[] | undefined): { pattern: string; test: Matcher }[] =>
    (list ?? []).filter((p) => p.trim() !== '').map((pattern) => ({ pattern, test: compilePattern(pattern) }));
  const include = patterns(selection.include);
  const exclude = patterns(selection.exclude);
  const selected: Operation[] = [];
  const skipped: Skipped[] = [];
  for (const op of model.operations) {
    const toolName = plan.operations.get(op.id)?.toolName ?? '';
    const excludedBy = exclude.find((p) => p.test(op, toolName));
    const reason = op.mcp?.exclude ? 'excluded by x-mcp in the spec'
      : tags.size > 0 && !op.tags.some((t) => tags.has(t.toLowerCase())) ? `no tag among --tags (${op.tags.join(', ') || 'untagged'})`
      : selection.readOnly && op.method !== 'get' && op.method !== 'head' ? '--read-only keeps only GET and HEAD'
      : include.length > 0 && !include.some((p) => p.test(op, toolName)) ? 'matches no --include pattern'
      : excludedBy !== undefined ? `matches --exclude ${JSON.stringify(excludedBy.pattern)}`
      : undefined;
    if (reason) skipped.push({ operation: op, reason });
    else selected.push(op);
  }
  if (selected.length === 0 && model.operations.length > 0) {
    if (tags.size > 0 && !model.operations.some((op) => op.tags.some((t) => tags.has(t.toLowerCase())))) {
      const known = model.tags.length > 0 ? model.tags.join(', ') : 'none';
      throw new GeneratorError('usage', `--tags ${[...tags].join(',')} matches no operation; the spec's tags are: ${known}`);
    }
    throw new GeneratorError('usage', `the selection leaves no operation (${model.operations.length} skipped, e.g. ${skipped[0]?.operation.method.toUpperCase()} ${skipped[0]?.operation.path}: ${skipped[0]?.reason})`);
  }
  return { selected, skipped };
}
