import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TOOL_DESCRIPTION, toolDescription, trimDescription, valueDescription } from '../src/emit/shared/describe.js';
import type { Operation, TypeRef } from '../src/model/types.js';

const op = (extra: Partial<Operation>): Operation => ({ id: '/paths/~1x/get', method: 'get', path: '/x', requestPath: '/x', pathQuery: [], tags: [], deprecated: false, parameters: [], success: { kind: 'none', status: '204' }, ...extra });

test('tool descriptions: the summary, plus the description where it adds information', () => {
  assert.equal(toolDescription(op({ summary: 'List pets' })), 'List pets');
  assert.equal(toolDescription(op({ summary: 'List pets', description: 'Returns all pets.' })), 'List pets\n\nReturns all pets.');
  assert.equal(toolDescription(op({ summary: 'List pets', description: 'List pets.' })), 'List pets.');
  assert.equal(toolDescription(op({ summary: 'List pets', description: 'List pets, newest first.' })), 'List pets, newest first.');
  assert.equal(toolDescription(op({ description: 'Only a description.' })), 'Only a description.');
  assert.equal(toolDescription(op({})), 'GET /x');
  assert.equal(toolDescription(op({ summary: 'Old', deprecated: true })), 'Deprecated. Old');
  assert.equal(toolDescription(op({ summary: 'S', mcp: { description: 'From x-mcp.' } })), 'From x-mcp.');
});

test(`descriptions are cut to ${MAX_TOOL_DESCRIPTION} characters without splitting a word or a code span`, () => {
  const long = toolDescription(op({ summary: 'Search', description: 'word '.repeat(400) }));
  assert.ok(long.length <= MAX_TOOL_DESCRIPTION, String(long.length));
  assert.match(long, /word…$/);
  assert.equal(trimDescription('alpha beta gamma', 12), 'alpha beta…');
  assert.equal(trimDescription('see `some code here` and more', 20), 'see…');
  assert.equal(trimDescription('short', 20), 'short');
});

const withEnum = (values: unknown[]): TypeRef => ({ kind: 'primitive', type: 'string', nullable: false, constraints: { enum: values } });

test('parameter and property descriptions list allowed values (unless the schema does) and the default', () => {
  assert.equal(valueDescription({ description: 'Sort order', defaultValue: '+name' }, withEnum(['+name', '-name', ''])), 'Sort order. Allowed values: +name, -name, "". Default: +name.');
  assert.equal(valueDescription({}, withEnum([1, 2, 3])), 'Allowed values: 1, 2, 3.');
  assert.equal(valueDescription({ description: 'Sort order' }, withEnum(['a', 'b']), undefined, true), 'Sort order.', 'the input schema lists them as enum');
  assert.equal(valueDescription({}, undefined, 'Query parameter q'), 'Query parameter q.');
  assert.equal(valueDescription({}, undefined), undefined);
  const many = valueDescription({}, withEnum(Array.from({ length: 160 }, (_, i) => `v${i}`)), undefined, true) ?? '';
  assert.match(many, /v49, … \(160 in all\)\.$/, 'too many values for the schema: the description lists the first 50');
});
