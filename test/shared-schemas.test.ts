/**
 * Input schemas written once: an API whose tools share large argument schemas, and whose schemas come to more than
 * McpTools.g.cs holds itself, gets McpInputSchemas.g.json beside it (each shared schema by name, each tool's schema
 * with markers for them), embedded in the assembly. What tools/list publishes is what the generator's input schemas
 * are, tool for tool; a small API keeps every schema in McpTools.g.cs, with no file beside it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { planNames, prepare, runCli } from '../src/index.js';
import { inputSchema, DEFINED_LENGTH } from '../src/emit/tools/input-schema.js';
import { INLINE_SCHEMAS_LIMIT } from '../src/emit/tools/tools.js';
import { connect, dotnetBuild, readMcpEntry } from '../examples/harness.js';
import { EXAMPLE_SPEC } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

/** 150 operations on 50 resources, each resource's body a record of 40 described properties (a few KB of schema). */
function largeSpec(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (let r = 0; r < 50; r++) {
    const name = `Thing${r}`;
    schemas[name] = {
      type: 'object', required: ['title'],
      properties: {
        title: { type: 'string', minLength: 1 },
        ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field${i}`, { type: i % 3 === 0 ? 'integer' : 'string', description: `Field ${i} of ${name}, described at some length so that the schema is large.`, ...(i % 5 === 0 && { enum: ['a', 'b', 'c'] }) }])),
      },
    };
    const body = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } };
    const ok = { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } } };
    paths[`/things${r}`] = { post: { operationId: `create${name}`, requestBody: body, responses: ok } };
    paths[`/things${r}/{id}`] = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      put: { operationId: `replace${name}`, requestBody: body, responses: ok },
      patch: { operationId: `patch${name}`, requestBody: { ...body, description: 'The fields to change.' }, responses: ok },
    };
  }
  // And 60 searches of 30 filters each, every one described its own way: schemas too many for McpTools.g.cs even so.
  for (let s = 0; s < 60; s++) {
    const filters = Array.from({ length: 30 }, (_, i) => ({ name: `filter${i}`, in: 'query', description: `Filter ${i} of search ${s}: only the items whose attribute ${i} starts with this text.`, schema: { type: 'string', maxLength: 40 } }));
    paths[`/searches/s${s}`] = { get: { operationId: `search${s}`, parameters: filters, responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } } } } };
  }
  return { openapi: '3.0.3', info: { title: 'Things', version: '1' }, servers: [{ url: 'http://127.0.0.1:9/' }], paths, components: { schemas } };
}

describe('input schemas written once (McpInputSchemas.g.json)', { timeout: 10 * 60_000 }, () => {
  let work = '';
  let client: Client;
  let spec = '';

  before(async () => {
    work = scratchDir('shared-schemas');
    spec = join(work, 'things.json');
    await writeFile(spec, JSON.stringify(largeSpec()));
    assert.equal(await runCli(['init', '--openapi-url', spec, '--server-name', 'Things', '--output-dir', join(work, 'things')], { out: () => {}, err: () => {} }), 0);
    const build = await dotnetBuild(join(work, 'things'));
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    client = await connect((await readMcpEntry(join(work, 'things'))).entry, { THINGS_BASE_URL: 'http://127.0.0.1:9/' });
  });

  after(async () => {
    await client?.close();
  });

  test('the shared schemas are written once, by their type\'s name; each tool\'s schema is beside them, referring to them', async () => {
    const tools = await readFile(join(work, 'things/McpTools.g.cs'), 'utf8');
    const shared = JSON.parse(await readFile(join(work, 'things/McpInputSchemas.g.json'), 'utf8')) as { $defs: Record<string, unknown>; tools: Record<string, unknown> };
    assert.equal(Object.keys(shared.$defs).filter((name) => /^Thing\d+$/.test(name)).length, 50);
    assert.equal(Object.keys(shared.tools).length, 210);
    assert.match(tools, /\[InputSchema\("""#\/tools\/create_things_0"""\)\]/);
    assert.deepEqual((shared.tools.create_things_0 as { properties: unknown }).properties, { body: { description: 'Request body (application/json).', $ref: '#/$defs/Thing0' } });
    assert.ok(DEFINED_LENGTH < 4000 && INLINE_SCHEMAS_LIMIT < JSON.stringify(shared.tools).length);
  });

  test('tools/list publishes every tool\'s schema in full, as the generator made it', async () => {
    const api = await prepare(spec);
    const plan = planNames(api.model, 'Things.Client');
    const expected = new Map(api.model.operations.map((op) => [plan.operations.get(op.id)!.toolName, inputSchema(api.model, plan, op)]));
    const listed = [];
    // tools/list comes in pages.
    for (let cursor: string | undefined, page = 0; page === 0 || cursor !== undefined; page++) {
      const answer = await client.listTools(cursor === undefined ? {} : { cursor });
      listed.push(...answer.tools);
      cursor = answer.nextCursor;
    }
    assert.equal(listed.length, 210);
    for (const tool of listed) assert.deepEqual(tool.inputSchema, expected.get(tool.name), tool.name);
  });

  test('arguments are checked against the full schema: a body field outside its enum is refused before anything is sent', async () => {
    const result = await client.callTool({ name: 'create_things_3', arguments: { body: { title: 'x', field0: 'not a number', field5: 'z' } } }) as { content: { text: string }[]; isError?: boolean };
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /'body\.field0' must be an integer; 'body\.field5' must be one of "a", "b", "c"/);
  });

  test('a small API keeps its schemas in McpTools.g.cs, with nothing beside it', async () => {
    assert.equal(await runCli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', join(work, 'petstore')], { out: () => {}, err: () => {} }), 0);
    assert.equal(existsSync(join(work, 'petstore/McpInputSchemas.g.json')), false);
    assert.match(await readFile(join(work, 'petstore/McpTools.g.cs'), 'utf8'), /\[InputSchema\("""\{"type":"object"/);
  });
});
