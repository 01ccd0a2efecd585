import { open, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { GeneratorError } from '../errors.js';

/**
 * Reading what a spec is made of, bounded: only regular files (not a device, FIFO or socket, which can be
 * endless or never answer), and no more bytes than the limit, counted as they arrive, from files and URLs
 * alike; a URL's whole download within a time limit.
 */

/** Largest spec (or referenced file) accepted, in bytes (docs/commands.md, "Limits"). The biggest public specs are about 50 MB. */
export const MAX_SPEC_BYTES = 200 * 1024 * 1024;
export const FETCH_TIMEOUT_MS = 60_000;

const tooBig = (display: string, limit: number, size?: number, what = 'OpenAPI document'): GeneratorError =>
  new GeneratorError('spec', `the ${what} is ${size === undefined ? 'larger than that' : `${Math.round(size / 1048576)} MB`}, over the ${Math.round(limit / 1048576)} MB limit`.replace('larger than that, over', 'over'), display);

/** The bytes of a regular file, refused past `limit` as they are read; `what` the file is, for errors. */
export async function readFileCapped(path: string, display: string, limit = MAX_SPEC_BYTES, what = 'OpenAPI document'): Promise<Buffer> {
  const info = await stat(path);
  if (info.isDirectory()) throw new GeneratorError('spec', `is a directory, not an ${what}`, display);
  if (!info.isFile()) throw new GeneratorError('spec', `is not a regular file (a device, FIFO or socket cannot be ${what === 'OpenAPI document' ? 'a spec' : `an ${what}`})`, display);
  if (info.size > limit) throw tooBig(display, limit, info.size, what);
  const handle = await open(path, 'r');
  try {
    // Read into one buffer of the size stat gave (and a byte more, to see that the file grew since), in one read
    // where the system allows: no chunks to join, a copy of the whole file less (GitHub's 5.7 MB: 28 -> 23 ms).
    let buffer = Buffer.allocUnsafe(Math.min(info.size + 1, limit + 1));
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, limit + 1));
        buffer.copy(grown, 0, 0, total);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > limit) throw tooBig(display, limit, undefined, what);
    }
    return buffer.subarray(0, total);
  } finally {
    await handle.close();
  }
}

/** A URL's body, refused past `limit` bytes as they arrive, the whole download within `timeoutMs`. */
export async function fetchCapped(url: string, limit = MAX_SPEC_BYTES, timeoutMs = FETCH_TIMEOUT_MS): Promise<Buffer> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: 'follow' });
  } catch (error) {
    throw new GeneratorError('spec', `cannot download the OpenAPI document: ${reason(error, timeoutMs)}`, url);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new GeneratorError('spec', `cannot download the OpenAPI document: HTTP ${response.status} ${response.statusText}`.trim(), url);
  }
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooBig(url, limit, declared);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body ?? []) {
      total += chunk.length;
      if (total > limit) throw tooBig(url, limit);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof GeneratorError) throw error;
    throw new GeneratorError('spec', `cannot download the OpenAPI document: ${reason(error, timeoutMs)}`, url);
  } finally {
    if (total > limit) await response.body?.cancel().catch(() => {});
  }
  return Buffer.concat(chunks, total);
}

function reason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no complete answer within ${timeoutMs / 1000} s`;
  return error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
}

/**
 * Whether `path`, after following every symbolic link, lies in `folder` (also after its links): a link in
 * the spec's folder to a file elsewhere is outside it.
 */
export async function realPathInside(path: string, folder: string): Promise<boolean> {
  const [target, base] = await Promise.all([realpath(path).catch(() => path), realpath(folder).catch(() => folder)]);
  const rel = relative(base, target);
  return rel !== '' && rel !== '..' && !rel.startsWith('..' + sep) && !isAbsolute(rel);
}
