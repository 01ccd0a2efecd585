import { fetchCapped, readFileCapped } from './read-capped.js';
import { fileURLToPath } from 'node:url';
import { GeneratorError } from '../errors.js';

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
export async function readSpecSource(input: string, fetchTimeoutMs?: number): Promise<SpecSource> {
  if (input.trim() === '') throw new GeneratorError('usage', 'no OpenAPI document given');
  if (/^https?:\/\//i.test(input)) return { display: input, location: input, isUrl: true, text: (await fetchCapped(input, undefined, fetchTimeoutMs)).toString('utf8') };
  const path = /^file:/i.test(input) ? fileURLToPath(input) : input;
  return { display: input, location: path, isUrl: false, text: await readLocal(path, input) };
}

async function readLocal(path: string, display: string): Promise<string> {
  try {
    // One buffer decoded at once gives a flat string (reading with an encoding decodes chunk by chunk).
    return (await readFileCapped(path, display)).toString('utf8');
  } catch (error) {
    if (error instanceof GeneratorError) throw error;
    throw new GeneratorError('spec', `cannot read the OpenAPI document: ${describeIoError(error)}`, display);
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
