import { createRequire } from 'node:module';
import { GeneratorError } from '../errors.js';
import { locateJsonError } from './json-error.js';
import { loadJsonc } from '../jsonc.js';

/** Parses JSON or YAML text; syntax errors carry `file:line:column`. `what` names the document in errors. */
export function parseSpecText(text: string, display: string, what = 'the OpenAPI document'): unknown {
  // Specs reach tens of megabytes: look at the first significant character instead of copying the text.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /\S/.exec(body.length > 4096 ? body.slice(0, 4096) : body)?.[0] ?? (body.trim() === '' ? undefined : '');
  if (first === undefined) throw new GeneratorError('spec', `${what} is empty`, display);
  try {
    return isJsonText(first) ? parseJson(body, display) : parseYaml(body, display);
  } catch (error) {
    if (error instanceof RangeError) throw new GeneratorError('spec', 'the document is nested too deeply to read', display);
    throw error;
  }
}

const isJsonText = (first: string): boolean => first === '{' || first === '[';

/**
 * Where the value at `path` (keys and indexes from the top) starts in JSON or YAML text that parses, as 1-based
 * line and column; undefined when there is no such value. Parses the text again: for error messages only.
 */
export function locateValue(text: string, path: readonly (string | number)[]): { line: number; column: number } | undefined {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /\S/.exec(body)?.[0];
  let offset: number | undefined;
  if (first !== undefined && isJsonText(first)) {
    const { parseTree, findNodeAtLocation } = loadJsonc();
    const tree = parseTree(body);
    offset = tree === undefined ? undefined : findNodeAtLocation(tree, [...path])?.offset;
  } else {
    const { LineCounter, parseDocument } = loadYaml();
    const document = parseDocument(body, { lineCounter: new LineCounter(), uniqueKeys: false, prettyErrors: false, merge: true });
    const node = document.getIn(path, true) as { range?: [number, number, number] } | undefined;
    offset = node?.range?.[0];
  }
  return offset === undefined ? undefined : lineAndColumn(body, offset);
}

/**
 * YAML aliases may stand for the same node many times over; past this many uses (counting the aliases
 * inside aliased nodes) a document is refused: 1 KB of doubling aliases would otherwise expand to gigabytes.
 */
export const MAX_YAML_ALIAS_COUNT = 100_000;

function parseJson(text: string, display: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const { offset, problem } = locateJsonError(text);
    const { line, column } = lineAndColumn(text, offset);
    const found = offset < text.length ? `found ${JSON.stringify(text.slice(offset, offset + 12))}` : 'found the end of the file';
    throw new GeneratorError('spec', `invalid JSON: ${problem}, ${found}`, `${display}:${line}:${column}`);
  }
}

/** The YAML library, loaded only for YAML input. */
const loadYaml = (): typeof import('yaml') => createRequire(import.meta.url)('yaml') as typeof import('yaml');

function parseYaml(text: string, display: string): unknown {
  const { LineCounter, parseDocument } = loadYaml();
  const lineCounter = new LineCounter();
  // Merge keys (`<<: *common`, YAML 1.1) are expanded, as every common YAML reader does; their aliases count
  // towards the alias limit like any other.
  const document = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false, merge: true });
  const first = document.errors[0];
  if (first) {
    const position = lineCounter.linePos(first.pos[0]);
    const where = `${display}:${position.line}:${position.col}`;
    const reason = first.message.split('\n')[0] ?? first.message;
    throw new GeneratorError('spec', `invalid YAML: ${reason}`, where);
  }
  try {
    return document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      throw new GeneratorError('spec', `invalid YAML: its aliases expand past ${MAX_YAML_ALIAS_COUNT.toLocaleString('en-US')} uses (refused as a resource exhaustion attack)`, display);
    }
    throw error;
  }
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
