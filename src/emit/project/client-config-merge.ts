import { GeneratorError } from '../../errors.js';
import { loadJsonc } from '../../jsonc.js';
import { lineAndColumn } from '../../load/parse.js';
import type { GeneratedFile } from '../shared/file.js';

/**
 * A client's configuration file with our one server entry put into the file that is already there:
 * everything else (other servers, `inputs`, comments, formatting) stays as it was, byte for byte. A file
 * that is not JSON (VS Code's may have comments) is refused rather than replaced.
 */
export function mergeClientConfig(existing: string, generated: GeneratedFile, where: string): string {
  const { parse, printParseErrorCode, modify, applyEdits, format } = loadJsonc();
  const errors: import('jsonc-parser').ParseError[] = [];
  const current = parse(existing, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const { line, column } = lineAndColumn(existing, first.offset);
    throw new GeneratorError('output', `cannot add the server to this file: it is not valid JSON (${printParseErrorCode(first.error)}); fix or remove it`, `${where}:${line}:${column}`);
  }
  if (existing.trim() !== '' && (current === null || typeof current !== 'object' || Array.isArray(current))) {
    throw new GeneratorError('output', 'cannot add the server to this file: its top level is not an object', where);
  }
  const ours = JSON.parse(generated.content) as Record<string, Record<string, unknown>>;
  const [root, servers] = Object.entries(ours)[0] ?? [];
  if (root === undefined || servers === undefined) return generated.content;
  if (existing.trim() === '') return generated.content;
  let text = existing;
  for (const [key, entry] of Object.entries(servers)) {
    // The edit alone, then formatted on its own range: the file's other entries keep their layout.
    const edits = modify(text, [root, key], entry, {});
    text = applyEdits(text, edits);
    for (const edit of edits) text = applyEdits(text, format(text, { offset: edit.offset, length: edit.content.length }, { insertSpaces: true, tabSize: 2, eol: '\n' }));
  }
  return text.endsWith('\n') ? text : text + '\n';
}
