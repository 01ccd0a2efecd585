import { createRequire } from 'node:module';
import { GeneratorError, type Diagnostic } from '../errors.js';
import { bundleExternalRefs, findExternalRefs, mayHaveExternalRefs } from './external-refs.js';
import { parseSpecText } from './parse.js';
import { readSpecSource, type SpecSource } from './source.js';
import { applyOverlay, readOverlay, type Overlay } from './overlay.js';

/** A loaded OpenAPI 3.x document: every `$ref` in it is internal (`#/...`). */
export interface LoadedSpec {
  readonly source: SpecSource;
  readonly root: Record<string, unknown>;
  /** `openapi` version of the document as given (`2.0` for Swagger documents, which are upgraded). */
  readonly originalVersion: string;
  /** The overlays applied to it, in order: what errors call each, and its absolute path. */
  readonly overlays: readonly { readonly display: string; readonly location: string }[];
  /** What loading found worth saying without stopping (an overlay action that selects nothing). */
  readonly warnings: readonly Diagnostic[];
}

/** Reads, parses, upgrades (Swagger 2.0) and bundles (external `$ref`s) an OpenAPI document. */
export interface LoadOptions {
  /** Follow external `$ref`s anywhere (other folders, other hosts), not only under the spec's own folder or host. */
  readonly allowExternalRefs?: boolean;
  /** How long a URL (the spec, or one a `$ref` names) may take to download whole; 60 s by default. */
  readonly fetchTimeoutMs?: number;
  /**
   * Overlay files (OpenAPI Overlay Specification 1.0 or 1.1) applied in this order to the document as written, before
   * a Swagger 2.0 document is upgraded and external `$ref`s are bundled: their targets name what the user sees.
   */
  readonly overlays?: readonly string[];
}

export async function loadSpec(input: string, options: LoadOptions = {}): Promise<LoadedSpec> {
  const source = await readSpecSource(input, options.fetchTimeoutMs);
  // Every overlay is read and checked before the spec is parsed: a broken one fails fast, and changes nothing.
  const overlays = await readOverlays(options.overlays ?? []);
  const parsed = parseSpecText(source.text, source.display);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new GeneratorError('spec', 'not an OpenAPI document: the top level is not an object', `${source.display}#`);
  }
  let root = parsed as Record<string, unknown>;
  const warnings: Diagnostic[] = [];
  for (const overlay of overlays) root = applyOverlay(root, overlay, source, warnings);
  const originalVersion = detectVersion(root, source.display);
  root = withMsPaths(root);
  if (originalVersion === '2.0') root = await upgradeSwagger(root, source.display);
  // Only a document whose text names an external $ref is walked (JSON specs can be tens of megabytes).
  const external = [source.text, ...overlays.map((o) => o.source.text)].some(mayHaveExternalRefs) ? findExternalRefs(root) : [];
  if (external.length > 0) root = await bundleExternalRefs(root, source, external, options.allowExternalRefs === true, options.fetchTimeoutMs);
  if (typeof root.paths !== 'object' || root.paths === null) {
    if (root.webhooks === undefined) throw new GeneratorError('spec', 'not an OpenAPI document: `paths` is missing', `${source.display}#/paths`);
  }
  return { source, root, originalVersion, overlays: overlays.map((o) => ({ display: o.source.display, location: o.source.location })), warnings };
}

/**
 * Azure's `x-ms-paths`: paths that `paths` cannot hold because they differ only in a query (`/jobs?op=cancel`), as
 * AutoRest reads them. They join `paths` (one already there keeps its own), where a query in a path template is a
 * fixed part of each request.
 */
function withMsPaths(root: Record<string, unknown>): Record<string, unknown> {
  const extra = root['x-ms-paths'];
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) return root;
  const paths = typeof root.paths === 'object' && root.paths !== null && !Array.isArray(root.paths) ? root.paths as Record<string, unknown> : {};
  const merged: Record<string, unknown> = { ...paths };
  for (const [path, item] of Object.entries(extra)) if (!(path in merged)) merged[path] = item;
  const result: Record<string, unknown> = { ...root, paths: merged };
  delete result['x-ms-paths'];
  return result;
}

/** One after the other: the first broken overlay in the order given is the error. */
async function readOverlays(inputs: readonly string[]): Promise<Overlay[]> {
  const overlays: Overlay[] = [];
  for (const input of inputs) overlays.push(await readOverlay(input));
  return overlays;
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
    // A YAML alias (or merge key) makes one object stand in several places, which the converter refuses as
    // "YAML anchor or merge key": each place gets its own copy (the alias limit has bounded how many there are).
    const result = await converter.convertObj(JSON.parse(JSON.stringify(root)) as object, { patch: true, warnOnly: true, resolve: false, direct: false });
    return result.openapi;
  } catch (error) {
    throw new GeneratorError('spec', `cannot upgrade Swagger 2.0 to OpenAPI 3: ${error instanceof Error ? error.message : String(error)}`, `${display}#`);
  }
}

