/** The OAuth scopes an operation's security requirement lists, as the model reads them (what `--auth oauth` enforces per tool). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepare } from '../src/index.js';
import { scratchDir } from './support/scratch.js';

test('scopes: alternatives of OAuth 2.0 and OpenID Connect scopes, the document\'s requirement by default, none when an alternative needs none', async () => {
  const spec = {
    openapi: '3.0.3',
    info: { title: 'Scopes', version: '1' },
    security: [{ oauth: ['read'] }],
    components: {
      securitySchemes: {
        oauth: { type: 'oauth2', flows: { authorizationCode: { authorizationUrl: 'https://a.example/auth', tokenUrl: 'https://a.example/token', scopes: { read: 'r', write: 'w' } } } },
        oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://a.example/.well-known/openid-configuration' },
        key: { type: 'apiKey', in: 'header', name: 'X-Key' },
      },
    },
    paths: {
      '/default': { get: { responses: { 200: { description: 'ok' } } } },
      '/both': { put: { security: [{ oauth: ['write', 'read', 'write'], oidc: ['profile'] }, { oidc: ['admin'] }], responses: { 200: { description: 'ok' } } } },
      '/anonymous': { get: { security: [{ oauth: ['read'] }, {}], responses: { 200: { description: 'ok' } } } },
      '/key': { get: { security: [{ key: [] }, { oauth: ['read'] }], responses: { 200: { description: 'ok' } } } },
      '/none': { get: { security: [], responses: { 200: { description: 'ok' } } } },
      '/odd': { get: { security: [{ oauth: ['a"b', 'ok', 7] }], responses: { 200: { description: 'ok' } } } },
    },
  };
  const file = join(scratchDir('scopes'), 'scopes.json');
  await writeFile(file, JSON.stringify(spec));
  const { model } = await prepare(file);
  const scopes = Object.fromEntries(model.operations.map((op) => [op.path, op.scopes]));
  assert.deepEqual(scopes, {
    '/default': [['read']],
    '/both': [['write', 'read', 'profile'], ['admin']],
    '/anonymous': undefined,
    '/key': undefined,
    '/none': undefined,
    '/odd': [['ok']],
  });
});
