/**
 * The input schema a tool publishes carries every constraint the spec states, wherever it stands (behind
 * `$ref` and `allOf` wrappers, on array items, in unions), and defaults as the spec gives them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { planNames, prepare, type PreparedApi } from '../src/index.js';
import { inputSchema } from '../src/emit/input-schema.js';
import { REPO } from './support/golden.js';

const sink = await prepare(join(REPO, 'test/fixtures/kitchen-sink.yaml'));
const plan = planNames(sink.model);
const schemaOf = (api: PreparedApi, path: string): Record<string, unknown> => {
  const op = api.model.operations.find((o) => o.path === path);
  assert.ok(op, path);
  return inputSchema(api.model, planNames(api.model), op);
};

test('every constraint: formats, lengths, pattern, ranges (3.0 exclusive bounds), multipleOf, item counts, enums on items and behind allOf, unions', () => {
  const schema = schemaOf(sink, '/events/{day}') as { properties: Record<string, Record<string, unknown>>; required: string[] };
  assert.deepEqual(schema.required, ['day', 'body']);
  assert.deepEqual(Object.keys(schema.properties), ['day', 'body', 'tags', 'limit', 'sort', 'ref'], 'no X-Amz-Date (signed), no X-Api-Key (the credential sends it), no ghost (not in the path)');
  assert.deepEqual(schema.properties.day, { description: 'Path parameter day.', type: 'string', format: 'date', minLength: 1 });
  assert.deepEqual(schema.properties.tags, {
    description: 'Query parameter tags.', type: 'array', items: { type: 'string', enum: ['red', 'green', 'blue'] }, minItems: 1, maxItems: 3, uniqueItems: true,
  });
  assert.deepEqual(schema.properties.limit, {
    description: 'Query parameter limit. Default: 20.', type: 'integer', format: 'int32', maximum: 100, exclusiveMinimum: 0, multipleOf: 5, default: 20,
  });
  assert.deepEqual(schema.properties.sort, { description: 'Query parameter sort.', type: 'string', enum: ['asc', 'desc'] }, 'a default outside the enum is left out');
  assert.deepEqual(schema.properties.ref, { description: 'A reference.', type: 'string', pattern: '^ref-[0-9]+$', minLength: 1 });
  const body = schema.properties.body as { properties: Record<string, unknown>; required: string[]; minProperties: number };
  assert.deepEqual(body.required, ['title', 'when']);
  assert.equal(body.minProperties, 2);
  assert.deepEqual(body.properties, {
    title: { type: 'string', pattern: '^[A-Z]', minLength: 3, maxLength: 20 },
    when: { type: 'string', format: 'date-time' },
    id: { type: 'string', format: 'uuid' },
    contact: { type: 'string', format: 'email' },
    link: { type: 'string', format: 'uri' },
    level: { description: 'The level, behind an allOf wrapper.', type: 'string', enum: ['low', 'high'] },
    size: { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['small', 'large'] }] },
    price: { type: 'number', minimum: 0, exclusiveMaximum: 1000 },
    code: { type: 'string', contentEncoding: 'base64' },
  });
});

test('optional arguments publish no null and no default of their own; nullable properties allow null in type and enum', () => {
  const schema = schemaOf(sink, '/items') as { properties: Record<string, Record<string, unknown>> };
  for (const [name, property] of Object.entries(schema.properties)) {
    assert.ok(!('default' in property && property.default === null), `${name} publishes default: null`);
    assert.ok(!(Array.isArray(property.type) && property.type.includes('null')), `${name} publishes null`);
  }
  const item = sink.model.types.get('/components/schemas/Item');
  const note = item?.properties.find((p) => p.jsonName === 'note');
  assert.equal(note?.type.nullable, true);
});

test('a path parameter the template lacks is left out with a warning that says where', () => {
  assert.ok(sink.warnings.some((w) => w.location.endsWith('kitchen-sink.yaml#/paths/~1events~1{day}/post') && w.message === 'path parameter "ghost" is not in the path /events/{day}: it is left out'), JSON.stringify(sink.warnings));
  assert.ok(plan.operations.size > 0);
});
