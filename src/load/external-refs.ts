import { readFileSync } from 'node:fs';
import { dirname, relative, resolve as resolvePath, isAbsolute, sep } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GeneratorError, pointer } from '../errors.js';
import { parseSpecText } from './parse.js';
import { describeIoError, type SpecSource } from './source.js';
import { fetchCapped, readFileCapped, realPathInside } from './read-capped.js';

/** External `$ref`s: found in the document, confined to the spec's own folder or host, bundled into it. */

interface ExternalRef {
  readonly at: string;
  readonly ref: string;
}

/**
 * False when the text certainly has no `$ref` outside the document (JSON or YAML spelling): a `$ref` key (not the end
 * of another key, such as OData's path `/groups/{id}/members/$ref`) whose value is a string that does not start with `#`.
 */
export function mayHaveExternalRefs(text: string): boolean {
  // Each `$ref` is found with indexOf (faster than a regular expression's search through megabytes of text), then read
  // in place; what stands before it is checked here.
  for (let at = text.indexOf('$ref'); at >= 0; at = text.indexOf('$ref', at + 4)) {
    MAYBE_EXTERNAL_REF.lastIndex = at;
    if (MAYBE_EXTERNAL_REF.test(text) && (at === 0 || KEY_START.test(text.charAt(at - 1)))) return true;
  }
  return false;
}
const MAYBE_EXTERNAL_REF = /\$ref['"]?\s*:\s*(?:['"](?!#)[^'"]|(?!#)[^\s'"{[])/y;
const KEY_START = /[\s{,'"]/;

/** Every `$ref` that does not point into the document itself. */
export function findExternalRefs(root: unknown): ExternalRef[] {
  const found: ExternalRef[] = [];
  // A stack rather than recursion: a document may nest thousands of levels deep.
  const pending: { node: unknown; path: readonly string[] }[] = [{ node: root, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, path } = next;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      node.forEach((item, index) => pending.push({ node: item, path: [...path, String(index)] }));
      continue;
    }
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) found.push({ at: pointer(...path), ref });
    for (const [key, value] of Object.entries(node)) {
      if (value !== null && typeof value === 'object') pending.push({ node: value, path: [...path, key] });
    }
  }
  return found.reverse();
}

/** The $ref bundler, loaded only for a document that has external `$ref`s (CommonJS, like the other optional dependencies). */
const loadRefParser = (): typeof import('@apidevtools/json-schema-ref-parser') => createRequire(import.meta.url)('@apidevtools/json-schema-ref-parser') as typeof import('@apidevtools/json-schema-ref-parser');

/**
 * Pulls external files into the document. References may only reach files under the spec's own
 * folder (local specs) or the spec's own host (URL specs), unless `allowAnywhere`.
 */
export async function bundleExternalRefs(root: Record<string, unknown>, source: SpecSource, refs: ExternalRef[], allowAnywhere: boolean, fetchTimeoutMs?: number): Promise<Record<string, unknown>> {
  if (!allowAnywhere) for (const { at, ref } of refs) checkExternalRef(ref, source, at);
  const $RefParser = loadRefParser();
  const { ResolverError } = $RefParser;
  try {
    // Every file and URL a $ref reaches, also through other files, is read here: confined to the spec's
    // folder (after following symbolic links) or host, only regular files, within the size and time limits.
    const refuse = (url: string, message: string): never => {
      // A ResolverError is passed on as it is (its message intact); other errors become "Error reading file".
      throw new ResolverError({ message } as Error, url);
    };
    const outside = (url: string): string => `${url} is outside the spec's ${source.isUrl ? 'host' : 'folder'} (--allow-external-refs allows more)`;
    const folder = dirname(resolvePath(source.location));
    const readFile = async (file: { url: string }): Promise<Buffer> => {
      const path = /^file:/i.test(file.url) ? fileURLToPath(file.url) : file.url;
      if (!allowAnywhere && (source.isUrl || !(await realPathInside(path, folder)))) return refuse(file.url, outside(path));
      try {
        return await readFileCapped(path, path);
      } catch (error) {
        return refuse(file.url, `cannot read ${path}: ${error instanceof GeneratorError ? error.detail : describeIoError(error)}`);
      }
    };
    const readUrl = async (file: { url: string }): Promise<Buffer> => {
      if (!allowAnywhere && isOutside(file.url, source)) return refuse(file.url, outside(file.url));
      try {
        return await fetchCapped(file.url, undefined, fetchTimeoutMs);
      } catch (error) {
        return refuse(file.url, `cannot read ${file.url}: ${error instanceof GeneratorError ? error.detail : String(error)}`);
      }
    };
    const bundled = await $RefParser.bundle(source.location, root, {
      continueOnError: true,
      resolve: {
        external: true,
        file: false,
        http: false,
        // The bundler tries the next resolver when one fails: each URL has exactly one.
        local: { order: 1, canRead: (file: { url: string }) => isLocal(file.url), read: readFile },
        remote: { order: 2, canRead: (file: { url: string }) => /^https?:/i.test(file.url), read: readUrl },
        other: { order: 3, canRead: (file: { url: string }) => !isLocal(file.url) && !/^https?:/i.test(file.url), read: (file: { url: string }) => refuse(file.url, `${file.url} is neither a file nor an http(s) URL`) },
      },
      dereference: { circular: true },
    } as never);
    return bundled as unknown as Record<string, unknown>;
  } catch (error) {
    throw describeBundleError(error, source, root);
  }
}

interface BundleError { message?: string; source?: string; path?: readonly (string | number)[] | null; ioErrorCode?: string; code?: string }

/**
 * The first problem the bundler met, as a one-line error at the `$ref` that caused it: the file that holds
 * it (the spec, or a file it references) and the JSON pointer there, the `$ref` as written, and why.
 */
function describeBundleError(error: unknown, source: SpecSource, root: Record<string, unknown>): GeneratorError {
  const first = ((error as { errors?: BundleError[] }).errors?.[0] ?? error) as BundleError;
  const reason = (first.ioErrorCode ? `cannot read ${/(?:file|open) '?([^':]+)/.exec(first.message ?? '')?.[1] ?? 'the file'}: ${describeIoError({ code: first.ioErrorCode })}` : (first.message ?? String(error)).split('\n')[0]) ?? '';
  if (!Array.isArray(first.path) || first.source === undefined) return new GeneratorError('spec', `cannot resolve an external $ref: ${reason}`, `${source.display}#`);
  const at = pointer(...first.path);
  const inSpec = first.source === source.location || first.source === pathToFileURL(resolvePath(source.location)).href || /^https?:/i.test(first.source) && first.source === source.location;
  const holder = inSpec ? root : readReferencing(first.source);
  const ref = valueAt(holder, [...first.path, '$ref']);
  const where = inSpec ? source.display : relativeDisplay(first.source, source);
  return new GeneratorError('spec', `cannot resolve the external $ref ${typeof ref === 'string' ? JSON.stringify(ref) : ''}: ${reason}`.replace(' :', ':'), `${where}#${at}`);
}

/** A referenced file as the bundler read it (only to quote a `$ref` in an error). */
function readReferencing(location: string): unknown {
  try {
    const path = /^file:/i.test(location) ? fileURLToPath(location) : location;
    return /^https?:/i.test(path) ? undefined : parseSpecText(readFileSync(path, 'utf8'), path);
  } catch {
    return undefined;
  }
}

function valueAt(node: unknown, path: readonly (string | number)[]): unknown {
  let current = node;
  for (const token of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[String(token)];
  }
  return current;
}

/** A referenced file, as its path relative to the spec's folder where it lies under it. */
function relativeDisplay(location: string, source: SpecSource): string {
  if (/^https?:/i.test(location) || source.isUrl) return location;
  const path = /^file:/i.test(location) ? fileURLToPath(location) : location;
  const rel = relative(dirname(resolvePath(source.location)), path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** A path, or a file: URL (a Windows drive letter is not a scheme). */
const isLocal = (url: string): boolean => !/^[a-z][a-z0-9+.-]+:/i.test(url) || /^file:/i.test(url) || /^[a-z]:[\\/]/i.test(url);

/** True when a file or URL the bundler wants lies outside the spec's own folder (or host). */
function isOutside(url: string, source: SpecSource): boolean {
  if (source.isUrl) return !/^https?:/i.test(url) || new URL(url).origin !== new URL(source.location).origin;
  if (/^https?:/i.test(url)) return true;
  const path = /^file:/i.test(url) ? fileURLToPath(url) : url;
  const rel = relative(dirname(resolvePath(source.location)), resolvePath(path));
  return rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel);
}

function checkExternalRef(ref: string, source: SpecSource, at: string): void {
  const target = ref.split('#')[0] ?? '';
  const where = `${source.display}#${at}`;
  if (source.isUrl) {
    const resolved = new URL(target, source.location);
    if (resolved.origin !== new URL(source.location).origin) {
      throw new GeneratorError('spec', `external $ref ${JSON.stringify(ref)} points to another host; only the spec's own host is allowed (--allow-external-refs allows more)`, where);
    }
    return;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    throw new GeneratorError('spec', `external $ref ${JSON.stringify(ref)} is a URL; a local spec may only reference files in its own folder (--allow-external-refs allows more)`, where);
  }
  const folder = dirname(resolvePath(source.location));
  const file = resolvePath(folder, decodeURIComponent(target));
  const rel = relative(folder, file);
  if (rel.startsWith('..' + sep) || rel === '..' || isAbsolute(rel)) {
    throw new GeneratorError('spec', `external $ref ${JSON.stringify(ref)} leaves the spec's folder (--allow-external-refs allows more)`, where);
  }
}
