/**
 * The server's icon from the spec: `info.x-logo.url` (the Redoc extension APIs.guru and many specs carry), when it
 * is an image a client may show: an `https:` URL, or a `data:` URI of a PNG, JPEG, SVG or WebP image.
 */
import type { Diagnostic } from '../errors.js';
import type { ServerIcon } from './types.js';

/** A data: URI of an image a client may show (its media type the first group). */
export const DATA_IMAGE = /^data:(image\/(?:png|jpeg|jpg|svg\+xml|webp))[;,]/i;
const EXTENSIONS: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', svg: 'image/svg+xml', webp: 'image/webp' };

/** Longest icon URL kept (a data URI of a small image fits; a larger image belongs behind an https URL). */
export const MAX_ICON_LENGTH = 32 * 1024;

export function iconOf(info: Record<string, unknown>, display: string, warnings: Diagnostic[]): ServerIcon | undefined {
  const logo = info['x-logo'];
  if (logo === undefined || logo === null || typeof logo !== 'object' || Array.isArray(logo)) return undefined;
  const url = (logo as Record<string, unknown>).url;
  if (typeof url !== 'string' || url.trim() === '') return undefined;
  const src = url.trim();
  const data = DATA_IMAGE.exec(src);
  const https = /^https:\/\/[^/?#\s]+[^\s]*$/i.test(src);
  if ((!https && !data) || src.length > MAX_ICON_LENGTH) {
    warnings.push({ location: `${display}#/info/x-logo/url`, message: `the logo is not an https: URL or a data: URI of an image (of at most ${MAX_ICON_LENGTH} characters): the server has no icon` });
    return undefined;
  }
  const extension = /\.([a-z]+)(?:[?#]|$)/i.exec(https ? new URL(src).pathname : '')?.[1]?.toLowerCase();
  const mimeType = data ? data[1]!.toLowerCase().replace('image/jpg', 'image/jpeg') : extension !== undefined ? EXTENSIONS[extension] : undefined;
  return { src, ...(mimeType !== undefined && { mimeType }) };
}
