import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { GeneratorError } from '../errors.js';

/** Largest spec accepted, in bytes (README "Limits"). The biggest public specs are about 50 MB. */
export const MAX_SPEC_BYTES = 200 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 60_000;

/** The raw text of a spec and where it came from. */
export interface SpecSource {
  /** What error messages call the spec: the path as given, or the URL. */
  readonly display: string;
  /** Absolute file path or URL, used to resolve relative references. */
  readonly location: string;
  readonly isUrl: boolean;
  readonly text: string;
}

/** Reads a spec from a file path, a `file://` URL or an `http(s)://` URL. */
export async function readSpecSource(input: string): Promise<SpecSource> {
  if (input.trim() === '') throw new GeneratorError('usage', 'no OpenAPI document given');
  if (/^https?:\/\//i.test(input)) return { display: input, location: input, isUrl: true, text: await fetchText(input) };
  const path = /^file:/i.test(input) ? fileURLToPath(input) : input;
  return { display: input, location: path, isUrl: false, text: await readLocal(path, input) };
}

async function readLocal(path: string, display: string): Promise<string> {
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new GeneratorError('spec', 'is a directory, not an OpenAPI document', display);
    size = info.size;
  } catch (error) {
    if (error instanceof GeneratorError) throw error;
    throw new GeneratorError('spec', `cannot read the OpenAPI document: ${describeIoError(error)}`, display);
  }
  checkSize(size, display);
  try {
    // One buffer decoded at once gives a flat string (reading with an encoding decodes chunk by chunk).
    return (await readFile(path)).toString('utf8');
  } catch (error) {
    throw new GeneratorError('spec', `cannot read the OpenAPI document: ${describeIoError(error)}`, display);
  }
}

async function fetchText(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow' });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new GeneratorError('spec', `cannot download the OpenAPI document: ${cause}`, url);
  }
  if (!response.ok) {
    throw new GeneratorError('spec', `cannot download the OpenAPI document: HTTP ${response.status} ${response.statusText}`.trim(), url);
  }
  const declared = Number(response.headers.get('content-length') ?? '0');
  checkSize(declared, url);
  const text = await response.text();
  checkSize(Buffer.byteLength(text), url);
  return text;
}

function checkSize(bytes: number, display: string): void {
  if (bytes > MAX_SPEC_BYTES) {
    throw new GeneratorError('spec', `the OpenAPI document is ${Math.round(bytes / 1048576)} MB, over the ${MAX_SPEC_BYTES / 1048576} MB limit`, display);
  }
}

/** Turns a Node file-system error into a short phrase. */
export function describeIoError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT': return 'no such file';
    case 'EACCES': case 'EPERM': return 'permission denied';
    case 'EISDIR': return 'is a directory';
    case 'ENOTDIR': return 'a parent is not a directory';
    case 'ENOSPC': return 'no space left on device';
    case 'EROFS': return 'read-only file system';
    default: return error instanceof Error ? error.message : String(error);
  }
}
