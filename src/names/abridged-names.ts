import { MAX_TOOL_NAME_LENGTH, type ToolNameParts } from './tool-names.js';

/**
 * Names for deep paths whose parents cannot all fit in 64 characters (Graph's `/me/calendars/{id}/
 * events/{id}/instances/{id}/exceptionOccurrences/{id}/multiValueExtendedProperties/$count`): the verb,
 * the target and the innermost parent (what the target belongs to) stay; the other parents are kept,
 * skipped, or named by their last word (`calendar_group` → `group`), in path order. Longest first, so
 * that a name keeps as much of its path as fits; whole words before shortened ones.
 */
export function abridgedNames(parts: ToolNameParts, max = MAX_TOOL_NAME_LENGTH): string[] {
  const { verb, parents } = parts;
  if (parents.length === 0) return [];
  const head = verb.join('_');
  let target = parts.target;
  while (target.length > 2 && head.length + target.join('_').length + 2 >= max) target = target.slice(1);
  const tail = target.join('_');
  // Room for the parents' words and their separators, between `verb_` and `_target`.
  const room = max - head.length - tail.length - (tail === '' ? 1 : 2);
  const forms = parents.map((words) => (words.length > 1 ? [words.join('_'), words[words.length - 1] ?? ''] : [words.join('_')]));
  const innermost = forms.length - 1;
  const found: Abridged[] = [];
  const walk = (index: number, kept: readonly string[], used: number, shortened: number): void => {
    if (found.length >= MAX_ABRIDGED) return;
    if (index > innermost) {
      found.push({ text: kept.join('_'), used, shortened, order: found.length });
      return;
    }
    (forms[index] ?? []).forEach((form, which) => {
      const cost = form.length + (kept.length > 0 ? 1 : 0);
      // `contact_folder_folder` for contactFolders/{id}/childFolders says a word twice and nothing more.
      const repeats = lastWord(kept[kept.length - 1] ?? head) === form.split('_')[0] || (index === innermost && lastWord(form) === target[0]);
      if (used + cost <= room && !repeats) walk(index + 1, [...kept, form], used + cost, shortened + which);
    });
    if (index < innermost) walk(index + 1, kept, used, shortened);
  };
  walk(0, [], 0, 0);
  found.sort((a, b) => b.used - a.used || a.shortened - b.shortened || a.order - b.order);
  return found.map((a) => [head, a.text, tail].filter((s) => s !== '').join('_'));
}

const lastWord = (text: string): string => text.slice(text.lastIndexOf('_') + 1);

interface Abridged {
  readonly text: string;
  /** Characters of the parents' words kept. */
  readonly used: number;
  /** Parents named by their last word only. */
  readonly shortened: number;
  readonly order: number;
}

/** Deep paths with short targets have many ways to fit; the first few thousand are plenty. */
const MAX_ABRIDGED = 5000;
