import { pointerToken } from '../errors.js';
import type { RefResolver } from '../load/refs.js';
import { SchemaTypes } from './schemas.js';
import { isObject, text } from './schema-nodes.js';
import type { BodyKind, RequestBody, ResponseKind, SuccessResponse, TypeRef } from './types.js';

const BYTES: TypeRef = { kind: 'primitive', type: 'bytes', nullable: false };
const STRING: TypeRef = { kind: 'primitive', type: 'string', nullable: false };

interface Media { mediaType: string; schema: unknown; schemaAt: string; kind: BodyKind }

/** The media type to use from a `content` map: JSON first, then forms, text, binary. */
function pickMedia(refs: RefResolver, content: unknown, at: string): Media | undefined {
  if (!isObject(content)) return undefined;
  const entries = Object.entries(content).map(([mediaType, media]) => {
    const schema = isObject(media) ? media.schema : undefined;
    const schemaAt = `${at}/content/${pointerToken(mediaType)}/schema`;
    return { mediaType, schema, schemaAt, kind: mediaKind(mediaType, refs.follow(schema, schemaAt).value) };
  });
  const rank: Record<BodyKind, number> = { json: 0, form: 1, multipart: 2, text: 3, binary: 4 };
  return entries.sort((a, b) => rank[a.kind] - rank[b.kind])[0];
}

/**
 * How a body of this media type is written or read. A schema of `format: binary` makes any media type
 * binary (`*\/*`, and JSON too: some specs say so for files): such bodies are never JSON.
 */
function mediaKind(mediaType: string, schema: unknown): BodyKind {
  const type = mediaType.toLowerCase().split(';')[0]?.trim() ?? '';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type.startsWith('multipart/')) return 'multipart';
  if (isObject(schema) && schema.type === 'string' && schema.format === 'binary') return 'binary';
  if (type === 'application/json' || type.endsWith('+json') || type === '*/*' || type === 'application/*' || type.includes('/json')) return 'json';
  if (type.startsWith('text/') || type === 'application/xml' || type.endsWith('+xml')) return 'text';
  return 'binary';
}

export function requestBody(refs: RefResolver, schemas: SchemaTypes, raw: unknown, rawAt: string, operationAt: string): RequestBody | undefined {
  if (raw === undefined) return undefined;
  const { value, pointer: at } = refs.follow(raw, rawAt);
  if (!isObject(value)) return undefined;
  const media = pickMedia(refs, value.content, at);
  if (!media) return undefined;
  const origin = { kind: 'requestBody', operation: operationAt } as const;
  const type = media.kind === 'text' ? STRING
    : media.kind === 'binary' ? BYTES
    : media.schema === undefined ? ({ kind: 'any', nullable: false } as const)
    : schemas.typeOf(media.schema, media.schemaAt, origin);
  const description = text(value.description);
  return { kind: media.kind, mediaType: media.mediaType, type, required: value.required === true, ...(description !== undefined && { description }) };
}

/** The first 2xx response (or `default` when there is none) decides the success value. */
export function successResponse(refs: RefResolver, schemas: SchemaTypes, raw: unknown, at: string, operationAt: string): SuccessResponse {
  const responses = isObject(raw) ? raw : {};
  const codes = Object.keys(responses);
  const status = codes.filter((code) => /^2(\d\d|XX)$/i.test(code)).sort()[0] ?? (codes.includes('default') ? 'default' : undefined);
  if (status === undefined) return { kind: 'none', status: '200' };
  const { value, pointer: responseAt } = refs.follow(responses[status], `${at}/${status}`);
  const headers = declaredHeaders(isObject(value) ? value.headers : undefined);
  const media = isObject(value) ? pickMedia(refs, value.content, responseAt) : undefined;
  if (!media || status === '204') return { kind: 'none', status, ...headers };
  const kind: ResponseKind = media.kind === 'text' ? 'text' : media.kind === 'binary' ? 'binary' : 'json';
  const mediaType = media.mediaType;
  if (kind === 'text') return { kind, status, type: STRING, mediaType, ...headers };
  if (kind === 'binary') return { kind, status, type: BYTES, mediaType, ...headers };
  const type = media.schema === undefined ? ({ kind: 'any', nullable: true } as const) : schemas.typeOf(media.schema, media.schemaAt, { kind: 'response', operation: operationAt });
  return { kind, status, type, mediaType, ...headers };
}

/** Headers that describe the body itself, or that every answer has: never worth showing as the answer's own. */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'connection', 'date', 'set-cookie']);

/** The header names a response declares (OpenAPI `headers`), those worth passing on, at most 20, as the spec writes them. */
function declaredHeaders(raw: unknown): { headers?: readonly string[] } {
  if (!isObject(raw)) return {};
  const seen = new Set<string>();
  const names = Object.keys(raw)
    .filter((name) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/.test(name) && !BODY_HEADERS.has(name.toLowerCase()) && !seen.has(name.toLowerCase()) && seen.add(name.toLowerCase()))
    .slice(0, 20);
  return names.length > 0 ? { headers: names } : {};
}
