import type { Operation } from '../model/types.js';
import { abridgedNames } from './abridged-names.js';
import { matchNames } from './name-matching.js';
import { asciiWords, unique, words } from './identifiers.js';
import { VERSION, formatOf, tokenize } from './path-tokens.js';
import { MAX_TOOL_NAME_LENGTH, PREFERRED_TOOL_NAME_LENGTH, joinToolName, namedTokens, toolNameParts, truncateName, type ToolNameParts } from './tool-names.js';

export interface ChosenName {
  readonly name: string;
  readonly parts: ToolNameParts;
}

/**
 * Every operation's tool name. First each operation, in the order of the list, takes its first free plain
 * name (earlier operations keep the plainer ones). Those left then share out their fallbacks (operationId,
 * shortened path, tag) so that as many as possible get one; fallbacks come second so that none takes the
 * plain name of an operation later in the list. A counter only for those left after that.
 */
export function chooseToolNames(list: readonly Operation[], prefixLength: number, taken: Set<string>): Map<string, ChosenName> {
  const chosen = new Map<string, ChosenName>();
  const left: { op: Operation; parts: ToolNameParts; base: string }[] = [];
  for (const op of list) {
    const parts = toolNameParts(op, prefixLength);
    const base = baseName(op, parts, prefixLength);
    const name = firstFree(candidates(base, op, parts), taken);
    if (name === undefined) left.push({ op, parts, base });
    else chosen.set(op.id, { name, parts });
  }
  const matched = matchNames(left.map(({ op, parts, base }) => ({ key: op.id, candidates: fitting(fallbacks(base, op, parts), taken) })), taken);
  for (const name of matched.values()) taken.add(name);
  for (const { op, parts, base } of left) {
    chosen.set(op.id, { name: matched.get(op.id) ?? unique(truncateName(base, MAX_TOOL_NAME_LENGTH - 4), taken, '_'), parts });
  }
  return new Map(list.map((op) => [op.id, chosen.get(op.id) as ChosenName]));
}

/** The first candidate that is free as a name (as {@link fitting} makes it), now taken. */
function firstFree(names: Iterable<string>, taken: Set<string>): string | undefined {
  for (const candidate of names) {
    const name = asName(candidate);
    if (name !== '' && !taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
  return undefined;
}

const asName = (candidate: string): string => truncateName(candidate.replace(/[^a-z0-9_]/g, ''), MAX_TOOL_NAME_LENGTH);

/** The first `limit` candidates that are free, as names (letters, digits and `_`, at most 64 characters). */
function fitting(names: Iterable<string>, taken: ReadonlySet<string>, limit = MAX_FALLBACKS): string[] {
  const found = new Set<string>();
  for (const candidate of names) {
    const name = asName(candidate);
    if (name !== '' && !taken.has(name)) found.add(name);
    if (found.size >= limit) break;
  }
  return [...found];
}
/** Enough choice for the deepest Graph paths, whose siblings compete for the same few names. */
const MAX_FALLBACKS = 200;

/**
 * An operation's tool name from method and path (SPEC 4.3); from the operationId where the path has no
 * words of its own (`POST /#X-Amz-Target=Service.AssociateFleet`, `/`).
 */
function baseName(op: Operation, parts: ToolNameParts, prefixLength: number): string {
  if (!hasWords(op.requestPath, prefixLength)) {
    const fromId = op.operationId === undefined ? '' : readableName(op.operationId);
    if (fromId !== '') return truncateName(fromId, MAX_TOOL_NAME_LENGTH);
  }
  return joinToolName(parts) ?? truncateName([...parts.verb, ...parts.parents.flat(), ...parts.target].join('_'), PREFERRED_TOOL_NAME_LENGTH);
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
  // Graph ends its dotted operationIds with a dash and four hex digits, at times letters only
  // (`users.GetCount-ebdb`); a kebab-case one may end in a word that looks so (`create-bank-feed`).
  const unhashed = /^[^-]*\.[^-]*-[0-9a-f]{4}$/.test(operationId) ? operationId.slice(0, -5) : operationId;
  return asciiWords(unhashed.split(/[^A-Za-z0-9]+/).filter((piece) => !/^(?=.*\d)[0-9a-f]{3,}$/i.test(piece)).join(' '));
}

/** Whether the path (after the prefix every path shares) has a resource or action word. */
function hasWords(path: string, prefixLength: number): boolean {
  return namedTokens(path, prefixLength).some((t) => t.kind !== 'param');
}

/** Lazily: most base names are free, and the others need the path taken apart again. */
function* candidates(base: string, op: Operation, parts: ToolNameParts): Generator<string> {
  yield base;
  const version = op.requestPath.split('/').find((s) => VERSION.test(s) && /^v/i.test(s));
  if (version) yield `${base}_${version.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`;
  const longer = joinToolName(parts, MAX_TOOL_NAME_LENGTH);
  if (longer !== undefined && longer !== base) yield longer;
  const params = tokenize(op.requestPath).flatMap((t) => (t.kind === 'param' ? [t.name] : []));
  const lastParam = params[params.length - 1];
  // `{event-id2}` beside `{event-id}` says only how deep the item is: no better than a counter.
  const numbered = lastParam !== undefined && params.includes(lastParam.replace(/\d+$/, '')) && /\d$/.test(lastParam);
  const byParam = lastParam !== undefined && !numbered ? `${base}_by_${words(lastParam).join('_')}` : undefined;
  // A format (`/ip/{ipv4}.txt`) is what tells an operation from its JSON sibling, so it stays in the name.
  const format = formatOf(op.requestPath);
  if (format) yield `${base}_${format}`;
  if (byParam) yield format ? `${byParam}_${format}` : byParam;
  const baseWords = new Set(base.split('_'));
  const extra = asciiWords(op.path.slice(op.requestPath.length)).filter((w) => !baseWords.has(w));
  if (extra.length > 0) yield `${base}_${extra.join('_')}`;
}

/**
 * When every plain name is taken: the operationId when it reads as words and fits whole (Azure's
 * `PolicyEvents_ListQueryResultsForResourceGroup`; a cut one loses its verb, which Graph puts last), the
 * path's words with some parents skipped or shortened, then the tag's words.
 */
function* fallbacks(base: string, op: Operation, parts: ToolNameParts): Generator<string> {
  const fromId = op.operationId === undefined ? '' : readableName(op.operationId);
  if (fromId !== '' && fromId.length <= MAX_TOOL_NAME_LENGTH) yield fromId;
  yield* abridgedNames(parts);
  const baseWords = new Set(base.split('_'));
  const tag = asciiWords(op.tags[0] ?? '').filter((w) => !baseWords.has(w));
  const tagged = [base, ...tag].join('_');
  if (tag.length > 0 && tagged.length <= MAX_TOOL_NAME_LENGTH) yield tagged;
}
