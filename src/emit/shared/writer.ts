import { LONE_SURROGATE } from '../../names/identifiers.js';
import { PartedFile } from './file.js';

const CHUNK_LINES = 512;
const INDENTS = Array.from({ length: 8 }, (_, depth) => '    '.repeat(depth));

/** Builds C# source text: indentation, LF newlines, and escaping of everything that comes from the spec. */
export class CSharpWriter {
  /**
   * Lines are joined into chunks every few hundred: a generated file has up to millions of short
   * strings, and joining them while they are young lets the garbage collector drop them instead of
   * copying each one into the old generation.
   */
  private readonly chunks: string[] = [];
  private lines: string[] = [];
  private depth = 0;

  line(text = ''): this {
    this.lines.push(text === '' ? '' : (INDENTS[this.depth] ?? '    '.repeat(this.depth)) + text);
    if (this.lines.length === CHUNK_LINES) this.endChunk();
    return this;
  }

  /** The lines so far as one chunk, each line ended by its newline. */
  private endChunk(): void {
    this.lines.push('');
    this.chunks.push(this.lines.join('\n'));
    this.lines = [];
  }

  /** Writes `header`, an opening brace, and indents. */
  open(header: string): this {
    this.line(header).line('{');
    this.depth++;
    return this;
  }

  close(suffix = ''): this {
    this.depth--;
    return this.line('}' + suffix);
  }

  /** `/// <tag>text</tag>`; nothing when the text is empty. */
  doc(tag: 'summary' | 'remarks' | 'returns', text: string | undefined): this {
    const lines = docLines(text);
    if (lines.length === 0) return this;
    if (lines.length === 1) return this.line(`/// <${tag}>${lines[0]}</${tag}>`);
    this.line(`/// <${tag}>`);
    for (const l of lines) this.line(`/// ${l}`);
    return this.line(`/// </${tag}>`);
  }

  /** The text as the chunks it was written in, each ending with a newline. */
  parts(): readonly string[] {
    if (this.lines.length > 0) this.endChunk();
    return this.chunks;
  }

  /** The text as a file, kept in its chunks: a big one is written without ever being made whole. */
  file(path: string): PartedFile {
    return new PartedFile(path, this.parts());
  }

  toString(): string {
    return this.parts().join('');
  }
}

/** Characters that end a line in C# source. */
const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029\u0085]/;

/** Lines of text safe inside an XML doc comment. */
export function docLines(text: string | undefined): string[] {
  if (text === undefined) return [];
  if (PLAIN_XML.test(text)) return text.trim() === '' ? [] : [text.trimEnd()];
  const lines = text.split(LINE_BREAKS).map((l) => xmlEscape(l).trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Escapes text for XML; drops characters XML cannot hold. */
export function xmlEscape(text: string): string {
  return stripInvalid(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function stripInvalid(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(LONE_SURROGATE, '');
}

/** Text that needs no escaping in XML nor in a C# string literal (printable ASCII without " \\ & < >). */
const PLAIN_XML = /^[^&<>\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff\ufffe\uffff]*$/;
const PLAIN_LITERAL = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A C# regular string literal, with every character that could end or break it escaped. */
export function stringLiteral(text: string): string {
  return PLAIN_LITERAL.test(text) ? `"${text}"` : `"${text.replace(LITERAL_ESCAPE, escapeInLiteral)}"`;
}

/** Quote, backslash, control characters, line separators and lone surrogates. */
const LITERAL_ESCAPE = new RegExp(`["\\\\\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]|${LONE_SURROGATE.source}`, 'g');
const SIMPLE_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\0': '\\0' };

function escapeInLiteral(char: string): string {
  return SIMPLE_ESCAPES[char] ?? '\\u' + char.charCodeAt(0).toString(16).padStart(4, '0');
}

/**
 * A C# raw string literal (`"""…"""`, longer delimiters when the text has runs of quotes), for one line of
 * text such as JSON: readable where a regular literal would escape every quote. Text a raw literal cannot
 * hold on one line (line breaks, a quote at either end, lone surrogates) gets a regular literal.
 */
export function rawStringLiteral(text: string): string {
  if (text === '' || text.startsWith('"') || text.endsWith('"') || (MAYBE_NOT_RAW.test(text) && (NOT_RAW.test(text) || text.search(LONE_SURROGATE) >= 0))) return stringLiteral(text);
  // Three quotes close the literal unless the text has a run of three or more (JSON text seldom has).
  if (!text.includes('"""')) return `"""${text}"""`;
  let longest = 0;
  for (let start = text.indexOf('"'); start >= 0; start = text.indexOf('"', start)) {
    let end = start + 1;
    while (text.charCodeAt(end) === QUOTE) end++;
    longest = Math.max(longest, end - start);
    start = end;
  }
  const quotes = '"'.repeat(Math.max(3, longest + 1));
  return `${quotes}${text}${quotes}`;
}

const QUOTE = 0x22;
/** Control characters and line breaks: a raw literal cannot hold them on one line. */
const NOT_RAW = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
/** {@link NOT_RAW} or a surrogate: one quick scan that JSON text and most other text passes. */
const MAYBE_NOT_RAW = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/;

/** One line of a `//` comment: line breaks become spaces. */
export function commentText(text: string): string {
  return stripInvalid(text).split(LINE_BREAKS).join(' ');
}

/** JSON text for C# source: compact, with the line separators JSON allows raw escaped (C# ends a line at them). */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value);
  // Tested first: a replace that finds nothing still copies the text.
  return JSON_LINE_BREAK.test(text) ? text.replace(JSON_LINE_BREAKS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}
const JSON_LINE_BREAK = /[\u0085\u2028\u2029]/;
const JSON_LINE_BREAKS = new RegExp(JSON_LINE_BREAK.source, 'g');
