/**
 * Tool arguments made only from a tool's published input schema, as an AI client makes them: values of
 * the right type that honour enum, format, pattern, lengths, ranges and items (json-schema-faker), checked
 * against the schema by a JSON Schema validator (Ajv), so that every call the sweep makes is a valid one.
 */
import { generateSync, registerFormat } from 'json-schema-faker';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Schema = Record<string, unknown>;

/** `required`: only the required arguments (and required properties inside them); `all`: every optional one too. */
export type ArgumentMode = 'required' | 'all';

const BASE64_FORMAT = 'sweep-base64';
registerFormat(BASE64_FORMAT, (random) => Buffer.from(Array.from({ length: random.int(1, 24) }, () => random.int(0, 255))).toString('base64'));

/**
 * Patterns as specs write them: in JavaScript's unicode mode where they are valid there (so that `\p{L}` is
 * a letter, as in .NET), else as they are (PCRE and .NET habits such as `\-` in a class are not valid in it).
 */
const specRegExp = Object.assign((pattern: string, flags: string): RegExp => {
  try {
    return new RegExp(pattern, flags.includes('u') ? flags : `${flags}u`);
  } catch {
    return new RegExp(pattern, flags.replace('u', ''));
  }
}, { code: 'new RegExp' });
const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, unicodeRegExp: false, code: { regExp: specRegExp } });
addFormats.default(ajv);
const validators = new WeakMap<object, ReturnType<typeof ajv.compile>>();

/**
 * The schema as json-schema-faker should read it: without `null` as a choice and without `default: null`
 * (a null argument means "not given", and the point of `all` is to give every argument a value), with
 * base64 strings as a format it can make, and 32-bit integers within their bounds.
 */
function forGeneration(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forGeneration);
  if (node === null || typeof node !== 'object') return node;
  const result: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) {
    if (key === 'default' && value === null) continue;
    if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((t) => t !== 'null');
      result.type = types.length === 1 ? types[0] : types;
    } else if (key === 'enum' && Array.isArray(value)) {
      result.enum = value.filter((v) => v !== null);
    } else if ((key === 'oneOf' || key === 'anyOf') && Array.isArray(value)) {
      result[key] = value.filter((v) => !(v !== null && typeof v === 'object' && (v as Schema).type === 'null')).map(forGeneration);
    } else {
      result[key] = key === 'const' || key === 'default' || key === 'examples' ? value : forGeneration(value);
    }
  }
  if (result.contentEncoding === 'base64') result.format = BASE64_FORMAT;
  if (typeof result.pattern === 'string') result.pattern = withoutUnicodeClasses(result.pattern);
  // 32-bit integers within their bounds, others within what JSON numbers carry exactly.
  if (result.type === 'integer') {
    const bound = result.format === 'int32' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
    result.minimum ??= -bound;
    result.maximum ??= bound;
  }
  return result;
}

/** ASCII members of the Unicode classes patterns use: the generator of matching strings knows no `\p{…}`. */
const UNICODE_CLASSES: Record<string, string> = { N: '0-9', Nd: '0-9', Z: ' ', Zs: ' ', P: '.,!?', S: '+$' };

/** The pattern with `\p{L}` and its kin written as ASCII ranges, inside a character class or standing alone. */
function withoutUnicodeClasses(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const unicode = /^\\p\{(\w+)\}/.exec(pattern.slice(i));
      if (unicode?.[1]) {
        const ascii = UNICODE_CLASSES[unicode[1]] ?? 'A-Za-z';
        out += inClass ? ascii : `[${ascii}]`;
        i += unicode[0].length - 1;
      } else {
        out += pattern.slice(i, i + 2);
        i++;
      }
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    out += c;
  }
  return out;
}

function generate(schema: Schema, mode: ArgumentMode, seed: number): Record<string, unknown> {
  const value = generateSync(schema as never, {
    seed,
    requiredOnly: mode === 'required',
    alwaysFakeOptionals: mode === 'all',
    useDefaultValue: false,
    maxDefaultItems: 2,
    maxDepth: 4,
    failOnInvalidTypes: false,
  } as never);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Arguments that fit the schema, trying a few seeds; otherwise the validator's complaint about the last try. */
export function argumentsFor(inputSchema: object, mode: ArgumentMode, seed: number): { arguments: Record<string, unknown> } | { problem: string } {
  let validate = validators.get(inputSchema);
  if (!validate) {
    try {
      validate = ajv.compile(inputSchema);
    } catch (error) {
      return { problem: `the schema cannot be checked: ${(error as Error).message}` };
    }
    validators.set(inputSchema, validate);
  }
  const schema = forGeneration(inputSchema) as Schema;
  let problem = '';
  for (let attempt = 0; attempt < 8; attempt++) {
    const args = generate(schema, mode, seed + attempt * 1000);
    if (validate(args)) return { arguments: args };
    problem = ajv.errorsText(validate.errors, { dataVar: 'arguments' });
  }
  return { problem };
}
