import { LineCounter, parseDocument } from 'yaml';
import { GeneratorError } from '../errors.js';

/** Parses JSON or YAML text; syntax errors carry `file:line:column`. */
export function parseSpecText(text: string, display: string): unknown {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed === '') throw new GeneratorError('spec', 'the OpenAPI document is empty', display);
  return trimmed.startsWith('{') || trimmed.startsWith('[') ? parseJson(text, display) : parseYaml(text, display);
}

function parseJson(text: string, display: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const match = /position (\d+)/.exec(message);
    const offset = match ? Number(match[1]) : text.length;
    const { line, column } = lineAndColumn(text, offset);
    const reason = message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/,\s*".*"\s*is not valid JSON$/s, '');
    throw new GeneratorError('spec', `invalid JSON: ${reason}`, `${display}:${line}:${column}`);
  }
}

function parseYaml(text: string, display: string): unknown {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false });
  const first = document.errors[0];
  if (first) {
    const position = first.linePos?.[0];
    const where = position ? `${display}:${position.line}:${position.col}` : display;
    const reason = first.message.split('\n')[0] ?? first.message;
    throw new GeneratorError('spec', `invalid YAML: ${reason}`, where);
  }
  return document.toJS({ maxAliasCount: -1 });
}

/** 1-based line and column of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: end - lineStart + 1 };
}
