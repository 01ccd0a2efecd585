/**
 * YAML anchors, aliases and merge keys (`<<: *common`, YAML 1.1): a document written with them generates exactly
 * what its expanded form generates, Swagger 2.0 and OpenAPI 3.x alike, and a merge-key bomb stays bounded by the
 * alias limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepare, generateClient, generateTools } from '../src/index.js';
import { runCli } from '../src/cli.js';
import { scratchDir } from './support/scratch.js';

/** Shared error responses, merged into each operation's responses; a shared parameter list item by alias. */
const SWAGGER2 = `swagger: '2.0'
info: {title: Items, version: 1.0.0}
host: api.example.com
basePath: /v1
x-common:
  errors: &errors
    '404': {description: Not found, schema: {$ref: '#/definitions/Problem'}}
    '500': {description: Server error, schema: {$ref: '#/definitions/Problem'}}
  page: &page {name: page, in: query, type: integer, minimum: 1}
paths:
  /items:
    get:
      operationId: listItems
      summary: List items
      parameters: [*page]
      responses:
        '200': {description: The items, schema: {type: array, items: {$ref: '#/definitions/Item'}}}
        <<: *errors
  /items/{id}:
    get:
      operationId: getItem
      summary: Get an item
      parameters: [{name: id, in: path, required: true, type: string}]
      responses:
        <<: *errors
        '200': {description: The item, schema: {$ref: '#/definitions/Item'}}
        '404': {description: No such item, schema: {$ref: '#/definitions/Problem'}}
definitions:
  Base: &base
    type: object
    properties:
      id: {type: string}
  Item:
    <<: *base
    required: [id]
  Problem: {type: object, properties: {title: {type: string}}}
`;

/** The same document with every alias and merge key written out (an explicit key wins over a merged one). */
const SWAGGER2_EXPANDED = `swagger: '2.0'
info: {title: Items, version: 1.0.0}
host: api.example.com
basePath: /v1
x-common:
  errors:
    '404': {description: Not found, schema: {$ref: '#/definitions/Problem'}}
    '500': {description: Server error, schema: {$ref: '#/definitions/Problem'}}
  page: {name: page, in: query, type: integer, minimum: 1}
paths:
  /items:
    get:
      operationId: listItems
      summary: List items
      parameters: [{name: page, in: query, type: integer, minimum: 1}]
      responses:
        '200': {description: The items, schema: {type: array, items: {$ref: '#/definitions/Item'}}}
        '404': {description: Not found, schema: {$ref: '#/definitions/Problem'}}
        '500': {description: Server error, schema: {$ref: '#/definitions/Problem'}}
  /items/{id}:
    get:
      operationId: getItem
      summary: Get an item
      parameters: [{name: id, in: path, required: true, type: string}]
      responses:
        '200': {description: The item, schema: {$ref: '#/definitions/Item'}}
        '404': {description: No such item, schema: {$ref: '#/definitions/Problem'}}
        '500': {description: Server error, schema: {$ref: '#/definitions/Problem'}}
definitions:
  Base:
    type: object
    properties:
      id: {type: string}
  Item:
    type: object
    properties:
      id: {type: string}
    required: [id]
  Problem: {type: object, properties: {title: {type: string}}}
`;

/** The 3.0 form: shared responses and a schema base merged in. */
const OPENAPI3 = `openapi: 3.0.3
info: {title: Items, version: 1.0.0}
servers: [{url: 'https://api.example.com/v1'}]
x-common:
  errors: &errors
    '404': {description: Not found}
  json: &json
    application/json:
      schema: {$ref: '#/components/schemas/Item'}
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        '200': {description: The item, content: *json}
        <<: *errors
    put:
      operationId: putItem
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      requestBody: {required: true, content: *json}
      responses:
        <<: [*errors, {'409': {description: Conflict}}]
        '200': {description: Saved, content: *json}
components:
  schemas:
    Base: &base {type: object, properties: {id: {type: string}, name: {type: string, maxLength: 20}}}
    Item: {<<: *base, required: [name]}
`;

const OPENAPI3_EXPANDED = `openapi: 3.0.3
info: {title: Items, version: 1.0.0}
servers: [{url: 'https://api.example.com/v1'}]
x-common:
  errors:
    '404': {description: Not found}
  json:
    application/json:
      schema: {$ref: '#/components/schemas/Item'}
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        '200': {description: The item, content: {application/json: {schema: {$ref: '#/components/schemas/Item'}}}}
        '404': {description: Not found}
    put:
      operationId: putItem
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      requestBody: {required: true, content: {application/json: {schema: {$ref: '#/components/schemas/Item'}}}}
      responses:
        '200': {description: Saved, content: {application/json: {schema: {$ref: '#/components/schemas/Item'}}}}
        '404': {description: Not found}
        '409': {description: Conflict}
components:
  schemas:
    Base: {type: object, properties: {id: {type: string}, name: {type: string, maxLength: 20}}}
    Item: {type: object, properties: {id: {type: string}, name: {type: string, maxLength: 20}}, required: [name]}
`;

/** The client's files and McpTools.g.cs, as text, for a spec. */
async function generated(path: string): Promise<Record<string, string>> {
  const api = await prepare(path);
  const files: Record<string, string> = {};
  for (const file of generateClient(api, { namespace: 'Items.Client' })) files[`Client/${file.path}`] = file.content;
  files['McpTools.g.cs'] = generateTools(api, { namespace: 'Items', clientNamespace: 'Items.Client' }).content;
  return files;
}

for (const [version, written, expanded] of [['Swagger 2.0', SWAGGER2, SWAGGER2_EXPANDED], ['OpenAPI 3.0', OPENAPI3, OPENAPI3_EXPANDED]] as const) {
  test(`${version} YAML with anchors, aliases and merge keys generates exactly what its expanded form generates`, async () => {
    const dir = scratchDir('yaml-merge');
    await writeFile(join(dir, 'merged.yaml'), written);
    await writeFile(join(dir, 'expanded.yaml'), expanded);
    const [fromMerged, fromExpanded] = [await generated(join(dir, 'merged.yaml')), await generated(join(dir, 'expanded.yaml'))];
    assert.deepEqual(Object.keys(fromMerged), Object.keys(fromExpanded));
    for (const [path, content] of Object.entries(fromExpanded)) assert.equal(fromMerged[path], content, `${path} differs`);
    // What the merges brought in is there: the merged error responses and base properties.
    assert.match(fromMerged['Client/Models.g.cs'] ?? '', /public sealed partial record Item\b/);
    assert.doesNotMatch(Object.values(fromMerged).join('\n'), /<</);
  });
}

test('a merge-key bomb is refused by the alias limit, in one line', async () => {
  const dir = scratchDir('yaml-merge');
  const bomb = ['openapi: 3.0.3', 'info: {title: t, version: "1"}', 'x-bomb:', '  m0: &m0 {a: 1}'];
  // Each level merges the one below and holds it twice more: 3^n nodes from a few hundred bytes.
  for (let i = 1; i <= 30; i++) bomb.push(`  m${i}: &m${i} {<<: *m${i - 1}, p: *m${i - 1}, q: *m${i - 1}}`);
  bomb.push('paths: {}');
  await writeFile(join(dir, 'bomb.yaml'), bomb.join('\n') + '\n');
  let err = '';
  const started = performance.now();
  const code = await runCli(['tools', '--openapi-url', join(dir, 'bomb.yaml'), '--output-file', join(dir, 'McpTools.g.cs'), '--namespace', 'B', '--server-name', 'B', '--ext-namespace', 'B.Client'], { out: () => {}, err: (t) => void (err += t) });
  assert.equal(code, 3);
  assert.match(err, /^error: .*bomb\.yaml: invalid YAML: its aliases expand past 100,000 uses \(refused as a resource exhaustion attack\)\n$/);
  assert.ok(performance.now() - started < 5000, `refused after ${(performance.now() - started).toFixed(0)} ms`);
});
