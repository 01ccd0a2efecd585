import { test } from 'node:test';
import assert from 'node:assert/strict';
import { signature } from '../src/emit/code/signature.js';
import type { ApiModel, Operation, SuccessResponse } from '../src/model/types.js';

const BYTES = { kind: 'primitive', type: 'bytes', nullable: false } as const;
const FILE = '{ status: number; contentType: string; fileName?: string; length: number; base64?: string; note?: string }';
const op = (success: SuccessResponse): Operation => ({ id: '/paths/~1spec/get', method: 'get', path: '/spec', requestPath: '/spec', pathQuery: [], tags: [], deprecated: false, parameters: [], success });
const model = { types: new Map() } as unknown as ApiModel;
const answer = (success: SuccessResponse): string => signature(model, op(success), 'get_spec', { type: 'object', properties: {} }).replace(/^get_spec\(args\?: \{\}\): Promise<(.*)>$/, '$1');

test('code-mode signatures: a file is its descriptor; a file of a text type is its text, or the descriptor when its bytes are not UTF-8', () => {
  assert.equal(answer({ kind: 'binary', status: '200', type: BYTES, mediaType: 'application/octet-stream' }), FILE);
  assert.equal(answer({ kind: 'binary', status: '200', type: BYTES, mediaType: 'image/png' }), FILE);
  for (const mediaType of ['text/x-yaml', 'text/csv; charset=utf-8', 'application/yaml', 'application/xml', 'application/atom+xml']) {
    assert.equal(answer({ kind: 'binary', status: '200', type: BYTES, mediaType }), `string | ${FILE}`, mediaType);
  }
  assert.equal(answer({ kind: 'text', status: '200', type: { kind: 'primitive', type: 'string', nullable: false }, mediaType: 'text/plain' }), 'string');
});
