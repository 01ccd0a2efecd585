import { dirname, relative, resolve as resolvePath, isAbsolute, sep } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { GeneratorError, pointer } from '../errors.js';
import { parseSpecText } from './parse.js';
import { readSpecSource, type SpecSource } from './source.js';

/** A loaded OpenAPI 3.x document: every `$ref` in it is internal (`#/...`). */
export interface LoadedSpec {
  readonly source: SpecSource;
  readonly root: Record<string, unknown>;
  /** `openapi` version of the document as given (`2.0` for Swagger documents, which are upgraded). */
  readonly originalVersion: string;
}

/** Reads, parses, upgrades (Swagger 2.0) and bundles (external `$ref`s) an OpenAPI document. */
export interface LoadOptions {
  /** Follow external `$ref`s anywhere (other folders, other hosts), not only under the spec's own folder or host. */
  readonly allowExternalRefs?: boolean;
}

export async function loadSpec(input: string, options: LoadOptions = {}): Promise<LoadedSpec> {
  const source = await readSpecSource(input);
  const parsed = parseSpecText(source.text, source.display);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new GeneratorError('spec', 'not an OpenAPI document: the top level is not an object', `${source.display}#`);
  }
  let root = parsed as Record<string, unknown>;
  const originalVersion = detectVersion(root, source.display);
  if (originalVersion === '2.0') root = await upgradeSwagger(root, source.display);
  // Only a document whose text names an external $ref is walked (JSON specs can be tens of megabytes).
  const external = mayHaveExternalRefs(source.text) ? findExternalRefs(root) : [];
  if (external.length > 0) root = await bundleExternalRefs(root, source, external, options.allowExternalRefs === true);
  if (typeof root.paths !== 'object' || root.paths === null) {
    if (root.webhooks === undefined) throw new GeneratorError('spec', 'not an OpenAPI document: `paths` is missing', `${source.display}#/paths`);
  }
  return { source, root, originalVersion };
}

function detectVersion(root: Record<string, unknown>, display: string): string {
  if (root.swagger !== undefined) {
    if (String(root.swagger) === '2.0') return '2.0';
    throw new GeneratorError('spec', `unsupported Swagger version ${JSON.stringify(root.swagger)}: only 2.0 and OpenAPI 3.0/3.1 are supported`, `${display}#/swagger`);
  }
  const version = root.openapi;
  if (version === undefined) throw new GeneratorError('spec', 'not an OpenAPI document: neither `openapi` nor `swagger` is set', `${display}#`);
  if (typeof version !== 'string' || !/^3\.[01](\.\d+)?(-.+)?$/.test(version)) {
    throw new GeneratorError('spec', `unsupported OpenAPI version ${JSON.stringify(version)}: 3.0.x and 3.1.x are supported (and Swagger 2.0)`, `${display}#/openapi`);
  }
  return version;
}

interface Swagger2OpenApi {
  convertObj(document: object, options: Record<string, unknown>): Promise<{ openapi: Record<string, unknown> }>;
}

async function upgradeSwagger(root: Record<string, unknown>, display: string): Promise<Record<string, unknown>> {
  const converter = createRequire(import.meta.url)('swagger2openapi') as Swagger2OpenApi;
  try {
    const result = await converter.convertObj(root, { patch: true, warnOnly: true, resolve: false, direct: false });
    return result.openapi;
  } catch (error) {
    throw new GeneratorError('spec', `cannot upgrade Swagger 2.0 to OpenAPI 3: ${error instanceof Error ? error.message : String(error)}`, `${display}#`);
  }
}

interface ExternalRef {
  readonly at: string;
  readonly ref: string;
}

/** False when the text certainly has no `$ref` outside the document (JSON or YAML spelling). */
function mayHaveExternalRefs(text: string): boolean {
  return /\$ref['"]?\s*:\s*['"]?(?!#)[^\s'"]/.test(text);
}

/** Every `$ref` that does not point into the document itself. */
export function findExternalRefs(root: unknown): ExternalRef[] {
  const found: ExternalRef[] = [];
  const path: string[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => { path.push(String(index)); visit(item); path.pop(); });
      return;
    }
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) found.push({ at: pointer(...path), ref });
    for (const [key, value] of Object.entries(node)) {
      if (value !== null && typeof value === 'object') { path.push(key); visit(value); path.pop(); }
    }
  };
  visit(root);
  return found;
}

/**
 * Pulls external files into the document. References may only reach files under the spec's own
 * folder (local specs) or the spec's own host (URL specs), unless `allowAnywhere`.
 */
async function bundleExternalRefs(root: Record<string, unknown>, source: SpecSource, refs: ExternalRef[], allowAnywhere: boolean): Promise<Record<string, unknown>> {
  if (!allowAnywhere) for (const { at, ref } of refs) checkExternalRef(ref, source, at);
  const { default: $RefParser, ResolverError } = await import('@apidevtools/json-schema-ref-parser');
  try {
    // Files reached through other files are checked too: the built-in resolvers may read only what is
    // allowed, and the guard, alone able to read the rest, refuses it.
    const allowed = (file: { url: string }): boolean => allowAnywhere || !isOutside(file.url, source);
    const guard = {
      order: 0,
      canRead: (file: { url: string }) => !allowed(file),
      read: (file: { url: string }) => {
        // A ResolverError is passed on as it is (its message intact); other errors become "Error reading file".
        throw new ResolverError({ message: `${file.url} is outside the spec's ${source.isUrl ? 'host' : 'folder'} (--allow-external-refs allows more)` } as Error, file.url);
      },
    };
    const bundled = await $RefParser.bundle(source.location, root, {
      resolve: {
        external: true,
        guard,
        file: { canRead: (file: { url: string }) => !/^https?:/i.test(file.url) && allowed(file) },
        http: source.isUrl || allowAnywhere ? { timeout: 60_000, canRead: (file: { url: string }) => /^https?:/i.test(file.url) && allowed(file) } : false,
      },
      dereference: { circular: true },
    } as never);
    return bundled as unknown as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error);
    throw new GeneratorError('spec', `cannot resolve an external $ref: ${message}`, `${source.display}#`);
  }
}

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
