/** Words, casing and C# identifiers: the one place identifiers are made. */

/** Reserved C# keywords (contextual keywords are valid identifiers and are not listed). */
export const CSHARP_KEYWORDS: ReadonlySet<string> = new Set([
  'abstract', 'as', 'base', 'bool', 'break', 'byte', 'case', 'catch', 'char', 'checked', 'class', 'const',
  'continue', 'decimal', 'default', 'delegate', 'do', 'double', 'else', 'enum', 'event', 'explicit', 'extern',
  'false', 'finally', 'fixed', 'float', 'for', 'foreach', 'goto', 'if', 'implicit', 'in', 'int', 'interface',
  'internal', 'is', 'lock', 'long', 'namespace', 'new', 'null', 'object', 'operator', 'out', 'override',
  'params', 'private', 'protected', 'public', 'readonly', 'ref', 'return', 'sbyte', 'sealed', 'short',
  'sizeof', 'stackalloc', 'static', 'string', 'struct', 'switch', 'this', 'throw', 'true', 'try', 'typeof',
  'uint', 'ulong', 'unchecked', 'unsafe', 'ushort', 'using', 'virtual', 'void', 'volatile', 'while',
]);

/**
 * Contextual keywords: valid identifiers, but some change meaning where generated code uses them
 * (`await` in an async method, `value` in a setter), so every one of them gets `@` as well.
 */
export const CSHARP_CONTEXTUAL_KEYWORDS: ReadonlySet<string> = new Set([
  'add', 'allows', 'alias', 'and', 'args', 'ascending', 'async', 'await', 'by', 'descending', 'dynamic', 'equals', 'extension',
  'field', 'file', 'from', 'get', 'global', 'group', 'init', 'into', 'join', 'let', 'managed', 'nameof', 'nint', 'not',
  'notnull', 'nuint', 'on', 'or', 'orderby', 'partial', 'record', 'remove', 'required', 'scoped', 'select', 'set',
  'unmanaged', 'value', 'var', 'when', 'where', 'with', 'yield',
]);

/** A UTF-16 surrogate without its other half: not text, and not encodable in UTF-8 (global: use with `replace`). */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Longest identifier generated; longer names are cut (C# metadata allows 1,023 characters). */
export const MAX_IDENTIFIER_LENGTH = 128;

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Splits any text into lower-case words: on everything that is not a letter or digit, and at
 * camelCase and letter/digit boundaries (`X-Request-Id` → x, request, id; `HTTPServer2` → http, server, 2).
 */
export function words(text: string): readonly string[] {
  return memoised(WORDS, text, splitWords);
}

/** Names repeat across a spec (`id`, `name`, `url`…): splitting and naming are memoised, bounded, and pure. */
const WORDS = new Map<string, readonly string[]>();
const ASCII_WORDS = new Map<string, readonly string[]>();
const PASCAL_NAMES = new Map<string, string>();
const CAMEL_NAMES = new Map<string, string>();

/** `compute(text)`, remembered in `cache` (which is emptied when it grows past 50,000 entries). */
export function memoised<T>(cache: Map<string, T>, text: string, compute: (text: string) => T): T {
  let found = cache.get(text);
  if (found === undefined) {
    if (cache.size >= 50_000) cache.clear();
    found = compute(text);
    cache.set(text, found);
  }
  return found;
}

function splitWords(text: string): string[] {
  if (ASCII.test(text)) return splitAsciiWords(text);
  return text
    .replace(ASTRAL, ' ')
    .replace(LOWER_UPPER, '$1 $2')
    .replace(UPPER_WORD, '$1 $2')
    .replace(LETTER_DIGIT, '$1 $2')
    .split(NOT_WORD)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

// Made once: the bundle builds some Unicode property regular expressions with `new RegExp`, which inside a
// function would build (and, after a garbage collection, compile) them again on every call.
const ASTRAL = /[\u{10000}-\u{10FFFF}]/gu;
const LOWER_UPPER = /([\p{Ll}\p{Nd}])(\p{Lu})/gu;
const UPPER_WORD = /(\p{Lu})(\p{Lu}\p{Ll})/gu;
const LETTER_DIGIT = /(\p{L})(\p{Nd})/gu;
const NOT_WORD = /[^\p{L}\p{M}\p{Nd}]+/u;
const LEADING_MARKS = /^\p{M}+/u;
const LEADING_DIGIT = /^\p{Nd}/u;
const NAMESPACE_PART = /^[\p{L}_][\p{L}\p{M}\p{Nd}\p{Pc}]*$/u;
const ASTRAL_CHARACTER = /[\u{10000}-\u{10FFFF}]/u;

const enum Kind { Other, Lower, Upper, Digit }

function kindOf(code: number): Kind {
  if (code >= 97 && code <= 122) return Kind.Lower;
  if (code >= 65 && code <= 90) return Kind.Upper;
  if (code >= 48 && code <= 57) return Kind.Digit;
  return Kind.Other;
}

/**
 * The same rules for ASCII text, in one pass (most names are ASCII): a word ends at anything that is
 * not a letter or digit, before an upper-case letter that follows a lower-case letter or digit
 * (`petId`), before the last capital of a run followed by a lower-case letter (`HTTPServer`), and
 * before a digit that follows a letter (`v2`).
 */
function splitAsciiWords(text: string): string[] {
  const found: string[] = [];
  let start = -1;
  let previous = Kind.Other;
  for (let i = 0; i <= text.length; i++) {
    const kind = i < text.length ? kindOf(text.charCodeAt(i)) : Kind.Other;
    const boundary = kind === Kind.Other
      || (kind === Kind.Upper && (previous === Kind.Lower || previous === Kind.Digit))
      || (kind === Kind.Upper && previous === Kind.Upper && kindOf(text.charCodeAt(i + 1)) === Kind.Lower)
      || (kind === Kind.Digit && (previous === Kind.Lower || previous === Kind.Upper));
    if (boundary && start >= 0) {
      found.push(text.slice(start, i).toLowerCase());
      start = -1;
    }
    if (kind !== Kind.Other && start < 0) start = i;
    previous = kind;
  }
  return found;
}

/** Only ASCII letters and digits, for names that leave C# (tool names). */
/** `Petstore API` → `petstore-api`: a name for commands, images and Kubernetes objects (a DNS label: a letter first, 63 characters at most). */
export function kebabName(text: string): string {
  const name = asciiWords(text).join('-').slice(0, 63).replace(/-+$/, '');
  return /^[a-z]/.test(name) ? name : `mcp-${name}`.replace(/-$/, '');
}

export function asciiWords(text: string): readonly string[] {
  // ASCII text (nearly all) has nothing to take apart or drop: its words are only ASCII letters and digits already.
  if (ASCII.test(text)) return words(text);
  return memoised(ASCII_WORDS, text, (t) => words(t.normalize('NFKD').replace(/[\u0300-\u036f]/g, '')).map((w) => w.replace(/[^a-z0-9]/g, '')).filter((w) => w !== ''));
}

const capitalize = (w: string): string => (w[0]?.toUpperCase() ?? '') + w.slice(1);

export function pascalCase(parts: readonly string[]): string {
  return parts.map(capitalize).join('');
}

export function camelCase(parts: readonly string[]): string {
  return parts.map((w, i) => (i === 0 ? w : capitalize(w))).join('');
}

/**
 * A valid C# identifier from words: cased, prefixed with `_` when it would start with a digit,
 * `fallback` when nothing is left, and escaped with `@` when it is a keyword.
 */
export function identifier(parts: readonly string[], casing: 'pascal' | 'camel', fallback: string): string {
  let name = (casing === 'pascal' ? pascalCase(parts) : camelCase(parts)).replace(LEADING_MARKS, '').slice(0, MAX_IDENTIFIER_LENGTH);
  if (name === '') name = fallback;
  if (LEADING_DIGIT.test(name)) name = '_' + name;
  return CSHARP_KEYWORDS.has(name) || CSHARP_CONTEXTUAL_KEYWORDS.has(name) ? '@' + name : name;
}

/** `identifier(words(text), casing, fallback)`, memoised. */
export function nameFrom(text: string, casing: 'pascal' | 'camel', fallback: string): string {
  const name = memoised(casing === 'pascal' ? PASCAL_NAMES : CAMEL_NAMES, text, (t) => identifier(words(t), casing, ''));
  return name === '' ? identifier([], casing, fallback) : name;
}

/** The name without a keyword's `@`: what C# reflection (and so MCP) sees. */
export function bareName(name: string): string {
  return name.startsWith('@') ? name.slice(1) : name;
}

/** Returns `name`, or `name` + 2, 3… — the first that `taken` does not hold; records the result. */
export function unique(name: string, taken: Set<string>, separator = ''): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name}${separator}${n}`;
  taken.add(candidate);
  return candidate;
}

/** A valid C# namespace (dotted identifiers), or undefined. */
export function isValidNamespace(text: string): boolean {
  return text.split('.').every((part) => NAMESPACE_PART.test(part) && !CSHARP_KEYWORDS.has(part) && !ASTRAL_CHARACTER.test(part));
}
