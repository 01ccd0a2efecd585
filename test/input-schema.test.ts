/**
 * The input schema a tool publishes carries every constraint the spec states, wherever it stands (behind
 * `$ref` and `allOf` wrappers, on array items, in unions), and defaults as the spec gives them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { scratchDir } from './support/scratch.js';
import { planNames, prepare, type PreparedApi } from '../src/index.js';
import { inputSchema } from '../src/emit/tools/input-schema.js';
import { outputSchema } from '../src/emit/tools/output-schema.js';
import { schemaProblems } from './support/schema-rules.js';
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
    slot: { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^[a-z0-9-]+$' }] },
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

test('types that each refer to several others are inlined only as deep as a bounded schema allows, every level shown whole', async () => {
  // T0 → two T1 → four T2 …: inlined 12 levels deep this would be 2^13 objects.
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < 20; i++) {
    const next = { $ref: `#/components/schemas/T${i + 1}` };
    schemas[`T${i}`] = { type: 'object', properties: { name: { type: 'string', description: `Level ${i}.` }, left: next, right: next } };
  }
  schemas.T20 = { type: 'object', properties: { name: { type: 'string' } } };
  const spec = { openapi: '3.0.3', info: { title: 'Tree', version: '1' }, paths: { '/trees': { post: { requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/T0' } } } }, responses: { 204: { description: 'OK' } } } } }, components: { schemas } };
  const dir = scratchDir('input-schema');
  await writeFile(join(dir, 'tree.json'), JSON.stringify(spec));
  const api = await prepare(join(dir, 'tree.json'));
  const schema = schemaOf(api, '/trees') as { properties: { body: Record<string, unknown> } };
  const json = JSON.stringify(schema);
  assert.ok(json.length < 200_000, `${json.length} characters`);
  // The deepest level shown: every object at that depth is plain, every object above it has its properties.
  const depths = (node: Record<string, unknown>, depth: number, plain: Set<number>, whole: Set<number>): void => {
    const properties = node.properties as Record<string, Record<string, unknown>> | undefined;
    if (!properties) return void plain.add(depth);
    whole.add(depth);
    for (const side of ['left', 'right']) if (properties[side]) depths(properties[side], depth + 1, plain, whole);
  };
  const plain = new Set<number>();
  const whole = new Set<number>();
  depths(schema.properties.body, 0, plain, whole);
  assert.equal(plain.size, 1, `plain objects at depths ${[...plain].join()}`);
  assert.equal(Math.max(...whole) + 1, [...plain][0]);
  assert.ok(whole.size >= 5 && whole.size < 12, `levels shown: ${whole.size}`);
  // The deepest that fits in 1,000 nodes: objects plain at depth 8 make 3 × 2^8 - 2 = 766 nodes, at depth 9 1,534.
  assert.equal([...plain][0], 8);
});

test('arrays and maps are inlined at every depth, unions and objects down to the deepest level that fits', async () => {
  // Each level holds the next four ways: as array items, as a union's variant, as map values (and a name).
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < 20; i++) {
    const next = { $ref: `#/components/schemas/T${i + 1}` };
    schemas[`T${i}`] = { type: 'object', properties: { name: { type: 'string' }, list: { type: 'array', items: next }, choice: { oneOf: [next, { type: 'string' }] }, byKey: { type: 'object', additionalProperties: next } } };
  }
  schemas.T20 = { type: 'object', properties: { name: { type: 'string' } } };
  const spec = { openapi: '3.0.3', info: { title: 'Tree', version: '1' }, paths: { '/trees': { post: { requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/T0' } } } }, responses: { 204: { description: 'OK' } } } } }, components: { schemas } };
  const dir = scratchDir('input-schema');
  await writeFile(join(dir, 'mixed.json'), JSON.stringify(spec));
  const body = (schemaOf(await prepare(join(dir, 'mixed.json')), '/trees') as { properties: { body: Record<string, unknown> } }).properties.body;
  type Node = { properties?: Record<string, Node>; items?: Node; additionalProperties?: Node | boolean; oneOf?: Node[] };
  const count = (node: Node): number =>
    1 + Object.values(node.properties ?? {}).reduce((n, p) => n + count(p), 0) + (node.items ? count(node.items) : 0)
    + (typeof node.additionalProperties === 'object' ? count(node.additionalProperties) : 0) + (node.oneOf ?? []).reduce((n, v) => n + count(v), 0);
  // Every schema node counts (properties, items, map values, variants); one more level of objects would pass 1,000.
  assert.equal(count(body as Node), 969);
});

test('a string item of a query array must not be empty: `tags=` is read as no value', async () => {
  const spec = {
    openapi: '3.0.3', info: { title: 'Q', version: '1' },
    paths: { '/diary': { get: { parameters: [
      { name: 'types', in: 'query', required: true, schema: { type: 'array', items: { type: 'string' } } },
      { name: 'loose', in: 'query', allowEmptyValue: true, schema: { type: 'array', items: { type: 'string' } } },
    ], responses: { 204: { description: 'OK' } } } } },
  };
  const dir = scratchDir('input-schema');
  await writeFile(join(dir, 'diary.json'), JSON.stringify(spec));
  const schema = schemaOf(await prepare(join(dir, 'diary.json')), '/diary') as { properties: Record<string, { items: Record<string, unknown> }> };
  assert.deepEqual(schema.properties.types?.items, { type: 'string', minLength: 1 });
  assert.deepEqual(schema.properties.loose?.items, { type: 'string' });
});

test('every schema is one a strict client accepts: an enum lists each value once, an array has items, draft-07 and 2020-12 both validate it', async () => {
  const spec = {
    openapi: '3.0.3', info: { title: 'Hooks', version: '1' },
    paths: { '/webhook_endpoints': { post: {
      parameters: [{ name: 'ids', in: 'query', schema: { type: 'array' } }],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['url'], properties: {
        url: { type: 'string' },
        // As Stripe's spec has it: one version listed twice.
        api_version: { type: 'string', enum: ['2019-12-03', '2020-03-02', '2019-12-03', '2020-08-27'] },
        sizes: { type: 'array', items: { type: 'integer', enum: [1, 2, 2, 3] } },
        loose: { type: 'array' },
      } } } } },
      responses: { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } } } },
    } } },
  };
  const dir = scratchDir('input-schema');
  await writeFile(join(dir, 'hooks.json'), JSON.stringify(spec));
  const api = await prepare(join(dir, 'hooks.json'));
  const schema = schemaOf(api, '/webhook_endpoints') as { properties: { ids: Record<string, unknown>; body: { properties: Record<string, Record<string, unknown>> } } };
  assert.deepEqual(schema.properties.body.properties.api_version?.enum, ['2019-12-03', '2020-03-02', '2020-08-27']);
  assert.deepEqual((schema.properties.body.properties.sizes?.items as { enum: unknown[] }).enum, [1, 2, 3]);
  assert.ok(schema.properties.ids.items, 'an array parameter without items gets items');
  assert.ok(schema.properties.body.properties.loose?.items, 'an array property without items gets items');
  const op = api.model.operations[0]!;
  const plan = planNames(api.model);
  assert.deepEqual(schemaProblems(plan.operations.get(op.id)?.toolName ?? '', { inputSchema: schema, outputSchema: outputSchema(api.model, op)?.schema }), []);
});

test('a byte string with numeric bounds is the number the API means (older Swashbuckle writes a C# byte so)', async () => {
  const spec = {
    openapi: '3.0.1', info: { title: 'Hotel', version: '1' },
    paths: { '/availability': { get: {
      parameters: [
        { name: 'adults', in: 'query', required: true, description: 'Number of adults per room', schema: { type: 'string', format: 'byte', minimum: 1, maximum: 255 } },
        { name: 'photo', in: 'query', schema: { type: 'string', format: 'byte' } },
      ],
      responses: { 204: { description: 'OK' } },
    } } },
  };
  const dir = scratchDir('input-schema');
  await writeFile(join(dir, 'hotel.json'), JSON.stringify(spec));
  const api = await prepare(join(dir, 'hotel.json'));
  const schema = schemaOf(api, '/availability') as { properties: Record<string, Record<string, unknown>> };
  assert.deepEqual(schema.properties.adults, { description: 'Number of adults per room.', type: 'integer', format: 'int32', minimum: 1, maximum: 255 });
  assert.equal(schema.properties.photo?.contentEncoding, 'base64', 'a byte string without bounds stays base64');
  assert.deepEqual(api.model.operations[0]?.parameters.find((p) => p.name === 'adults')?.type, { kind: 'primitive', type: 'int', nullable: false, constraints: { minimum: 1, maximum: 255 } });
});
