/**
 * Overlays (OpenAPI Overlay Specification 1.0, and 1.1's copy and concatenation): applied to the spec as written, in
 * the order given, before the Swagger 2.0 upgrade and the bundling of external $refs; what they change reaches the
 * model and the generated C#; a broken overlay is one line naming the file, the line and the action, and writes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT_CODES, generateClient, generateTools, prepare, runCli, type PreparedApi } from '../src/index.js';
import { EXAMPLE_SPEC, REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

const dir = scratchDir('overlay');
const file = async (name: string, content: string): Promise<string> => {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
};

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const HEADER = 'overlay: 1.0.0\ninfo:\n  title: Fixes\n  version: 1.0.0\n';
const models = (api: PreparedApi): string => generateClient(api, { namespace: 'Pets.Client' }).find((f) => f.path === 'Models.g.cs')?.content ?? '';
const toolsOf = (api: PreparedApi): string => generateTools(api, { namespace: 'Pets', clientNamespace: 'Pets.Client' }).content;

/** A spec with a query parameter the server does not need but the spec requires. */
const THINGS = {
  openapi: '3.0.3', info: { title: 'Things', version: '1' },
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [
          { name: 'accountId', in: 'query', required: true, schema: { type: 'string' } },
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
          { name: 'debug', in: 'query', schema: { type: 'boolean' } },
        ],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { ids: { type: 'string' } } } } } } },
      },
    },
  },
};

test('update: a response property the spec types as a string, typed as an array of strings, changes the model and the generated C# type', async () => {
  const overlay = await file('tags.yaml', `${HEADER}actions:
  - target: $.components.schemas.Pet.properties.tag
    description: The server sends a list of tags
    update:
      type: array
      items:
        type: string
`);
  const plain = await prepare(EXAMPLE_SPEC);
  const fixed = await prepare(EXAMPLE_SPEC, { overlays: [overlay] });
  const tag = (api: PreparedApi) => api.model.types.get('/components/schemas/Pet')?.properties.find((p) => p.jsonName === 'tag')?.type;
  assert.deepEqual(tag(plain), { kind: 'primitive', type: 'string', nullable: false });
  assert.equal(tag(fixed)?.kind, 'array');
  assert.match(models(plain), /public string\? Tag \{ get; init; \}/);
  assert.match(models(fixed), /public IReadOnlyList<string>\? Tag \{ get; init; \}/);
  // Only Pet changed: NewPet's tag is still a string.
  assert.equal(models(fixed).match(/public string\? Tag \{ get; init; \}/g)?.length, models(plain).match(/public string\? Tag \{ get; init; \}/g)!.length - 1);
  assert.deepEqual(fixed.spec.overlays, [{ display: overlay, location: overlay }]);
  assert.deepEqual(fixed.warnings, []);
});

test('remove: a required entry removed makes a parameter, and a body property, optional in the tool', async () => {
  const spec = await file('things.json', JSON.stringify(THINGS));
  const overlay = await file('optional.yaml', `${HEADER}actions:
  - target: $.paths['/things'].get.parameters[?@.name == 'accountId'].required
    description: The server takes the account from the credential
    remove: true
  - target: $.paths['/things'].get.parameters[?@.name == 'debug']
    remove: true
`);
  const plain = await prepare(spec);
  const fixed = await prepare(spec, { overlays: [overlay] });
  const parameters = (api: PreparedApi) => api.model.operations[0]?.parameters.map((p) => [p.name, p.required]);
  assert.deepEqual(parameters(plain), [['accountId', true], ['limit', false], ['debug', false]]);
  assert.deepEqual(parameters(fixed), [['accountId', false], ['limit', false]]);
  assert.match(toolsOf(plain), /string accountId,/);
  assert.match(toolsOf(fixed), /string\? accountId = null,/);
  assert.doesNotMatch(toolsOf(fixed), /debug/);

  const body = await file('species.yaml', `${HEADER}actions:
  - target: $.components.schemas.NewPet.required[?@ == 'species']
    remove: true
`);
  const newPet = (api: PreparedApi) => api.model.types.get('/components/schemas/NewPet')?.properties.map((p) => [p.jsonName, p.required]);
  assert.deepEqual(newPet(await prepare(EXAMPLE_SPEC, { overlays: [body] })), [['name', true], ['species', false], ['tag', false], ['ownerId', false]]);
});

test('update merges recursively: objects merged, primitives replaced, arrays appended to; an array target gets the update as one entry', async () => {
  const spec = await file('merge.json', JSON.stringify(THINGS));
  const overlay = await file('merge.yaml', `${HEADER}actions:
  - target: $.paths['/things'].get
    update:
      summary: List the things
      tags: [things]
      responses:
        '200':
          description: The things
  - target: $.paths['/things'].get
    update:
      tags: [more]
  - target: $.paths['/things'].get.parameters
    update:
      name: cursor
      in: query
      schema: { type: string }
  - target: $.paths['/things'].get.parameters[?@.name == 'limit'].schema
    update: { maximum: 50 }
`);
  const api = await prepare(spec, { overlays: [overlay] });
  const get = (api.spec.root.paths as Record<string, Record<string, Record<string, unknown>>>)['/things']?.get;
  assert.equal(get?.summary, 'List the things');
  assert.deepEqual(get?.tags, ['things', 'more']);
  assert.deepEqual((get?.responses as Record<string, Record<string, unknown>>)['200']?.description, 'The things');
  assert.ok((get?.responses as Record<string, Record<string, unknown>>)['200']?.content, 'the merge replaced the response instead of merging into it');
  assert.deepEqual(api.model.operations[0]?.parameters.map((p) => p.name), ['accountId', 'limit', 'debug', 'cursor']);
  assert.equal(api.model.operations[0]?.parameters[1]?.type.constraints?.maximum, 50);
});

test('several overlays apply in the order given, each to the result of the one before', async () => {
  const add = await file('add.yaml', `${HEADER}actions:
  - target: $.paths
    update:
      /extra:
        get:
          operationId: getExtra
          summary: Added
          responses:
            '200': { description: ok }
`);
  const retitle = await file('retitle.yaml', `${HEADER}actions:
  - target: $.paths['/extra'].get
    update: { summary: Retitled }
  - target: $.info
    update: { title: Second }
`);
  const first = await file('first.yaml', `${HEADER}actions:\n  - target: $.info\n    update: { title: First }\n`);
  const inOrder = await prepare(EXAMPLE_SPEC, { overlays: [add, retitle, first] });
  assert.equal(inOrder.model.operations.find((o) => o.operationId === 'getExtra')?.summary, 'Retitled');
  assert.equal(inOrder.model.title, 'First');
  assert.deepEqual(inOrder.warnings, []);

  const reversed = await prepare(EXAMPLE_SPEC, { overlays: [first, retitle, add] });
  assert.equal(reversed.model.operations.find((o) => o.operationId === 'getExtra')?.summary, 'Added');
  assert.equal(reversed.model.title, 'Second');
  assert.deepEqual(reversed.warnings.map((w) => `${w.location}: ${w.message}`), [
    `${retitle}:6:13: actions[0].target: "$.paths['/extra'].get" selects nothing in ${EXAMPLE_SPEC}: the action changes nothing`,
  ]);
});

test('overlays apply to the document as written: a Swagger 2.0 spec\'s definitions, before the upgrade; a $ref an overlay adds is bundled', async () => {
  const overlay = await file('swagger.yaml', `${HEADER}actions:
  - target: $.definitions.Order.properties
    update:
      note: { type: string, description: Added to the Swagger 2.0 document }
  - target: $.paths['/orders'].get
    update:
      parameters:
        - name: page
          in: query
          type: integer
`);
  const api = await prepare(join(REPO, 'test/fixtures/swagger2.json'), { overlays: [overlay] });
  assert.equal(api.spec.originalVersion, '2.0');
  assert.ok(api.model.types.get('/components/schemas/Order')?.properties.some((p) => p.jsonName === 'note'));
  assert.deepEqual(api.model.operations[0]?.parameters.map((p) => [p.name, p.type.kind === 'primitive' ? p.type.type : p.type.kind]), [['status', 'string'], ['page', 'long']]);

  await file('owner.yaml', 'type: object\nproperties:\n  nickname: { type: string }\n');
  const external = await file('external.yaml', `${HEADER}actions:
  - target: $.components.schemas.Pet.properties
    update:
      keeper: { $ref: 'owner.yaml' }
`);
  const spec = await file('petstore.yaml', await readFile(EXAMPLE_SPEC, 'utf8'));
  const bundled = await prepare(spec, { overlays: [external] });
  assert.match(models(bundled), /public string\? Nickname \{ get; init; \}/);
});

test('Overlay 1.1: copy, an array update concatenated with an array, a primitive target replaced', async () => {
  const spec = await file('copy.json', JSON.stringify(THINGS));
  const overlay = await file('copy.yaml', `overlay: 1.1.0
info: { title: Copies, version: '1', description: Overlay 1.1 }
actions:
  - target: $.paths
    update: { /other-things: {} }
  - target: $.paths['/other-things']
    copy: $.paths['/things']
  - target: $.paths['/other-things'].get.operationId
    update: listOtherThings
  - target: $.paths['/things'].get.parameters
    update:
      - { name: a, in: query, schema: { type: string } }
      - { name: b, in: query, schema: { type: string } }
`);
  const api = await prepare(spec, { overlays: [overlay] });
  assert.deepEqual(api.model.operations.map((o) => [o.operationId, o.parameters.length]), [['listThings', 5], ['listOtherThings', 3]]);
});

test('a descendant query goes as deep as a spec nests, up to 1,000 levels; past that it is an error naming the action', async () => {
  const nested = (depth: number): Record<string, unknown> => {
    let schema: Record<string, unknown> = { type: 'string', 'x-deepest': true };
    for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { inner: schema } };
    return { ...THINGS, components: { schemas: { Deep: schema } } };
  };
  const overlay = await file('deep.yaml', `${HEADER}actions:\n  - target: $..[?@['x-deepest'] == true]\n    update: { description: found }\n`);
  const deep = await prepare(await file('deep.json', JSON.stringify(nested(200))), { overlays: [overlay] });
  assert.deepEqual(deep.warnings, []);
  const tooDeep = await file('too-deep.json', JSON.stringify(nested(1000)));
  await assert.rejects(prepare(tooDeep, { overlays: [overlay] }), {
    name: 'GeneratorError',
    message: `${overlay}:6:13: actions[0].target: "$..[?@['x-deepest'] == true]" cannot be evaluated on ${tooDeep}: recursion limit reached`,
  });
});

test('an overlay key "__proto__" is a property like any other, and changes no prototype', async () => {
  const spec = await file('proto.json', JSON.stringify(THINGS));
  const overlay = await file('proto.json.overlay', '{"overlay": "1.0.0", "info": {"title": "t", "version": "1"}, "actions": [{"target": "$.info", "update": {"__proto__": {"polluted": true}, "x-note": "kept"}}]}');
  const api = await prepare(spec, { overlays: [overlay] });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const info = api.spec.root.info as Record<string, unknown>;
  assert.equal(info['x-note'], 'kept');
  assert.equal(Object.getPrototypeOf(info), Object.prototype);
});

interface ErrorCase { name: string; overlay: [string, string]; message: string }
const ERRORS: ErrorCase[] = [
  {
    name: 'an invalid JSONPath, with the line and the action',
    overlay: ['path.yaml', `${HEADER}actions:\n  - target: $.info\n    update: { x-a: 1 }\n  - target: $.info\n    update: { x-b: 1 }\n  - target: "$.paths["\n    remove: true\n`],
    message: '{file}:10:13: actions[2].target: invalid JSONPath "$.paths[": unclosed bracketed selection (at character 9)',
  },
  {
    name: 'an unknown JSONPath function, in JSON',
    overlay: ['function.json', '{\n  "overlay": "1.0.0",\n  "info": { "title": "t", "version": "1" },\n  "actions": [\n    { "target": "$.info", "update": { "x-a": 1 } },\n    { "target": "$.paths[?lenght(@) > 1]", "remove": true }\n  ]\n}\n'],
    message: '{file}:6:17: actions[1].target: invalid JSONPath "$.paths[?lenght(@) > 1]": no such function \'lenght\' (at character 10)',
  },
  { name: 'no overlay field', overlay: ['none.json', '{"info": {"title": "t", "version": "1"}, "actions": []}'], message: '{file}#/overlay: not an Overlay document: `overlay` is missing' },
  { name: 'no actions', overlay: ['noactions.yaml', HEADER], message: '{file}#/actions: not an Overlay document: `actions` is missing' },
  { name: 'an OpenAPI document given as an overlay', overlay: ['openapi.yaml', 'openapi: 3.0.3\ninfo: { title: t, version: "1" }\npaths: {}\n'], message: '{file}#/overlay: not an Overlay document but an OpenAPI document (give that with --openapi-url): `overlay` is missing' },
  { name: 'an unsupported version', overlay: ['version.yaml', 'overlay: 2.0.0\ninfo: { title: t, version: "1" }\nactions: []\n'], message: '{file}:1:10: overlay: unsupported Overlay version "2.0.0": 1.0.x and 1.1.x are supported' },
  { name: 'a misspelt field', overlay: ['field.yaml', `${HEADER}actions:\n  - target: $.info\n    updates: { x-a: 1 }\n`], message: '{file}:7:14: actions[0].updates: is not a field of this object (the fields are target, description, update, remove, and extensions x-…)' },
  { name: 'an action that does nothing', overlay: ['nothing.yaml', `${HEADER}actions:\n  - target: $.info\n    remove: false\n`], message: '{file}:6:5: actions[0]: does nothing: give update or remove: true' },
  {
    name: 'an update that cannot merge',
    overlay: ['conflict.yaml', `${HEADER}actions:\n  - target: $.info\n    update: { x-a: 1 }\n  - target: $.components.schemas.Pet\n    update:\n      required:\n        name: true\n`],
    message: "{file}:11:9: actions[1].update.required: cannot merge an object into an array (at $['components']['schemas']['Pet']['required']): remove it in an earlier action, then add it",
  },
  { name: 'removing the whole document', overlay: ['root.yaml', `${HEADER}actions:\n  - target: $\n    remove: true\n`], message: '{file}:6:13: actions[0].target: "$" selects the whole document, which cannot be removed' },
  { name: 'a missing file', overlay: ['', ''], message: '{file}: cannot read the overlay: no such file' },
];

for (const { name, overlay: [fileName, content], message } of ERRORS) {
  test(`a broken overlay is one line with the file and where, exit 3, and nothing is written: ${name}`, async () => {
    const overlay = fileName === '' ? join(dir, 'missing.yaml') : await file(fileName, content);
    const output = join(scratchDir('overlay-out'), 'McpTools.g.cs');
    const result = await cli(['tools', '--openapi-url', EXAMPLE_SPEC, '--overlay', overlay, '--output-file', output, '--namespace', 'P', '--server-name', 'P', '--ext-namespace', 'P.Client']);
    assert.equal(result.code, EXIT_CODES.spec);
    assert.equal(result.err, `error: ${message.replace('{file}', overlay)}\n`);
    assert.equal(result.out, '');
    assert.ok(!existsSync(output), 'a file was written');
  });
}

test('a target that selects nothing is a warning and the rest applies; an extends that names another document is a warning', async () => {
  const overlay = await file('warn.yaml', `${HEADER}extends: ./other.yaml
actions:
  - target: $.paths['/nowhere'].get
    update: { summary: x }
  - target: $.paths['/pets'].get
    update: { summary: Still applied }
`);
  const result = await cli(['report', '--openapi-url', EXAMPLE_SPEC, '--overlay', overlay, '--json']);
  assert.equal(result.code, 0, result.err);
  assert.equal(result.err, [
    `warning: ${overlay}:5:10: extends: names "./other.yaml", and it is applied to ${EXAMPLE_SPEC}`,
    `warning: ${overlay}:7:13: actions[0].target: "$.paths['/nowhere'].get" selects nothing in ${EXAMPLE_SPEC}: the action changes nothing`,
    '',
  ].join('\n'));
  const spec = await file('petstore-here.yaml', await readFile(EXAMPLE_SPEC, 'utf8'));
  const matching = await file('extends.yaml', `${HEADER}extends: petstore-here.yaml\nactions:\n  - target: $.info\n    update: { x-a: 1 }\n`);
  assert.equal((await cli(['report', '--openapi-url', spec, '--overlay', matching])).err, '');
});

test('--overlay on report, tools and init (repeatable); init records the overlays relative to the project and regenerate applies them again', async () => {
  const work = scratchDir('overlay-cli');
  const spec = join(work, 'petstore.yaml');
  await writeFile(spec, await readFile(EXAMPLE_SPEC, 'utf8'));
  const noCreate = join(work, 'no-create.yaml');
  await writeFile(noCreate, `${HEADER}actions:\n  - target: $.paths['/pets'].post\n    remove: true\n`);
  const retitle = join(work, 'fixes', 'retitle.yaml');
  await mkdir(join(work, 'fixes'));
  await writeFile(retitle, `${HEADER}actions:\n  - target: $.paths['/pets'].get\n    update: { summary: Every pet }\n`);

  const report = await cli(['report', '--openapi-url', spec, '--overlay', noCreate, '--overlay', retitle, '--json']);
  assert.equal(report.code, 0, report.err);
  const tools = (JSON.parse(report.out) as { tools: { name: string }[] }).tools.map((t) => t.name);
  assert.ok(!tools.includes('create_pet') && tools.includes('list_pets'), tools.join());
  assert.match((await cli(['report', '--openapi-url', spec])).out, /^Petstore 1\.0\.0: 7 tools/);
  assert.match((await cli(['report', '--openapi-url', spec, '--overlay', noCreate])).out, /^Petstore 1\.0\.0: 6 tools/);

  const output = join(work, 'McpTools.g.cs');
  const written = await cli(['tools', '--openapi-url', spec, '--overlay', noCreate, '--overlay', retitle, '--output-file', output, '--namespace', 'P', '--server-name', 'P', '--ext-namespace', 'P.Client']);
  assert.equal(written.code, 0, written.err);
  assert.equal(written.out, `Wrote 6 tools to ${output}\n`);
  assert.match(await readFile(output, 'utf8'), /Name = "list_pets", Title = "Every pet"/);

  const project = join(work, 'PetstoreMcp');
  const init = await cli(['init', '--openapi-url', spec, '--overlay', noCreate, '--overlay', retitle, '--server-name', 'Petstore', '--output-dir', project, '--framework', 'net10.0']);
  assert.equal(init.code, 0, init.err);
  assert.match(init.out, /^Created Petstore \(6 tools for Petstore\)/);
  assert.deepEqual(JSON.parse(await readFile(join(project, 'openapi-mcp.json'), 'utf8')), {
    generator: 'openapi-mcp-dotnet@0.1.0', spec: '../petstore.yaml', overlays: ['../no-create.yaml', '../fixes/retitle.yaml'], serverName: 'Petstore', options: {},
  });
  // The generated project, one folder down, reads them from there.
  const csproj = await readFile(join(project, 'Generated/Petstore.Generated.csproj'), 'utf8');
  assert.match(csproj, /<OpenApiMcpSpec>\.\.\/\.\.\/petstore\.yaml<\/OpenApiMcpSpec>/);
  assert.match(csproj, /<OpenApiMcpOverlays>\.\.\/\.\.\/no-create\.yaml;\.\.\/\.\.\/fixes\/retitle\.yaml<\/OpenApiMcpOverlays>/);
  assert.match(csproj, /Inputs="\$\(OpenApiMcpSpec\);\$\(OpenApiMcpOverlays\);\.\.\/openapi-mcp\.json"/);

  // regenerate reads the overlays from the record, wherever it runs from.
  await writeFile(retitle, `${HEADER}actions:\n  - target: $.paths['/pets'].get\n    update: { summary: All the pets }\n`);
  const regenerated = await cli(['regenerate', '--project-dir', project]);
  assert.equal(regenerated.code, 0, regenerated.err);
  assert.match(regenerated.out, /^Regenerated 6 tools for Petstore/);
  const mcpTools = await readFile(join(project, 'McpTools.g.cs'), 'utf8');
  assert.match(mcpTools, /Name = "list_pets", Title = "All the pets"/);
  assert.doesNotMatch(mcpTools, /create_pet/);
  assert.equal((await cli(['regenerate', '--project-dir', project, '--check'])).code, 0);
  assert.equal((await cli(['init', '--openapi-url', spec, '--overlay', noCreate, '--overlay', retitle, '--server-name', 'Petstore', '--output-dir', project, '--framework', 'net10.0', '--check'])).code, 0);

  // A recorded overlay that is gone, or a record whose overlays are not a list of paths, is an error.
  await writeFile(join(project, 'openapi-mcp.json'), JSON.stringify({ spec: '../petstore.yaml', overlays: ['../gone.yaml'], serverName: 'Petstore', options: {} }));
  const gone = await cli(['regenerate', '--project-dir', project]);
  assert.equal(gone.code, EXIT_CODES.spec);
  assert.equal(gone.err, `error: ${join(work, 'gone.yaml')}: cannot read the overlay: no such file\n`);
  await writeFile(join(project, 'openapi-mcp.json'), JSON.stringify({ spec: '../petstore.yaml', overlays: '../fixes/retitle.yaml', serverName: 'Petstore', options: {} }));
  const bad = await cli(['regenerate', '--project-dir', project]);
  assert.equal(bad.code, EXIT_CODES.usage);
  assert.equal(bad.err, `error: ${join(project, 'openapi-mcp.json')}#/overlays: must be a list of the overlays' paths\n`);
});
