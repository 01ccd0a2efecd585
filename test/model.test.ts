import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { prepare, planNames, type PreparedApi } from '../src/index.js';
import { REPO } from './support/golden.js';
import { valueDescription } from '../src/emit/shared/describe.js';
import { scratchDir } from './support/scratch.js';
import { inputSchema } from '../src/emit/tools/input-schema.js';

const dir = scratchDir('model');
let n = 0;
async function spec(document: Record<string, unknown>): Promise<PreparedApi> {
  const file = join(dir, `s${n++}.json`);
  await writeFile(file, JSON.stringify({ openapi: '3.0.3', info: { title: 'T', version: '1' }, paths: {}, ...document }));
  return prepare(file);
}

test('servers: none, variables substituted, relative resolved for a URL spec; for a file spec its path kept, other schemes not a base URL', async () => {
  assert.equal((await spec({})).model.serverUrl, undefined);
  assert.equal((await spec({ servers: [{ url: 'https://{region}.example.com/{base}', variables: { region: { default: 'eu' }, base: { default: 'v2' } } }] })).model.serverUrl, 'https://eu.example.com/v2');
  const relative = (await spec({ servers: [{ url: '/api/v3/' }] })).model;
  assert.deepEqual([relative.serverUrl, relative.serverPath, relative.unusableServerUrl], [undefined, '/api/v3', undefined]);
  const root = (await spec({ servers: [{ url: '/' }] })).model;
  assert.deepEqual([root.serverUrl, root.serverPath, root.unusableServerUrl], [undefined, undefined, '/']);
  const unresolved = (await spec({ servers: [{ url: '/{version}' }] })).model;
  assert.deepEqual([unresolved.serverPath, unresolved.unusableServerUrl], [undefined, '/{version}']);
  // Swagger 2.0's basePath without host (tsoa's shape) is the same path.
  const swagger = join(dir, 'swagger-base-path.json');
  await writeFile(swagger, JSON.stringify({ swagger: '2.0', info: { title: 'T', version: '1' }, basePath: '/api/v2', paths: {} }));
  assert.deepEqual([(await prepare(swagger)).model.serverUrl, (await prepare(swagger)).model.serverPath], [undefined, '/api/v2']);
  const script = (await spec({ servers: [{ url: 'javascript:alert(1)' }] })).model;
  assert.deepEqual([script.serverUrl, script.unusableServerUrl], [undefined, 'javascript:alert(1)']);
  const text = JSON.stringify({ openapi: '3.0.3', info: { title: 'T', version: '1' }, servers: [{ url: '/api/v3' }], paths: {} });
  const server = createServer((_, response) => response.end(text));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/specs/openapi.json`;
    assert.equal((await prepare(url)).model.serverUrl, `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3`);
  } finally {
    server.close();
  }
});

test('Swagger 2.0 is upgraded: host and basePath, body and formData parameters, file uploads', async () => {
  const api = await prepare(join(REPO, 'test/fixtures/swagger2.json'));
  assert.equal(api.model.serverUrl, 'http://127.0.0.1:5082/store');
  const [list, create, receipt] = api.model.operations;
  assert.equal(list?.parameters[0]?.type.constraints?.enum?.join(), 'open,closed');
  assert.equal(create?.body?.kind, 'json');
  assert.equal(receipt?.body?.kind, 'multipart');
  const receiptType = receipt?.body?.type;
  assert.equal(receiptType?.kind, 'object');
  const fields = receiptType?.kind === 'object' ? api.model.types.get(receiptType.id)?.properties : [];
  assert.deepEqual(fields?.map((p) => [p.jsonName, p.type.kind === 'primitive' ? p.type.type : p.type.kind, p.required]), [['file', 'file', true], ['comment', 'string', false]]);
});

test('schemas: allOf merged, unions as JSON, 3.1 null types, maps, readOnly not required, recursion', async () => {
  const api = await prepare(join(REPO, 'test/fixtures/kitchen-sink.yaml'));
  const plan = planNames(api.model, 'Sink.Client');
  const item = api.model.types.get('/components/schemas/Item');
  assert.ok(item);
  const props = Object.fromEntries(item.properties.map((p) => [p.jsonName, p]));
  assert.deepEqual(Object.keys(props), ['id', 'created', 'name', 'price', 'quantity', 'tags', 'meta', 'kind', 'note', 'uuid', 'dimensions', 'owner', 'level']);
  assert.equal(props.id?.required, false, 'readOnly id is not required in requests');
  assert.equal(props.id?.readOnly, true);
  assert.equal(props.name?.required, true);
  assert.deepEqual(props.note?.type, { kind: 'primitive', type: 'string', nullable: true });
  assert.equal(props.meta?.type.kind, 'map');
  assert.equal(props.owner?.facts.description, 'A $ref with a sibling description.');
  assert.deepEqual(props.level?.type.constraints?.enum, [1, 2, 3]);
  const names = (id: string | undefined): string | undefined => (id ? plan.types.get(id)?.name : undefined);
  const dimensions = props.dimensions?.type;
  assert.equal(names(dimensions?.kind === 'object' ? dimensions.id : undefined), 'ItemDimensions');
  const shapes = api.model.operations.find((op) => op.path === '/shapes');
  assert.equal(shapes?.body?.type.kind, 'any');
  const node = api.model.types.get('/components/schemas/Node');
  assert.deepEqual(node?.properties.map((p) => p.type.kind === 'array' ? `array of ${p.type.items.kind === 'object' ? p.type.items.id : '?'}` : p.type.kind === 'object' ? p.type.id : p.type.kind), ['primitive', 'array of /components/schemas/Node', '/components/schemas/Node']);
  assert.deepEqual(['Task', 'HttpClient', 'System', 'Result'].map((name) => plan.types.get(`/components/schemas/${name}`)?.name), ['TaskModel', 'HttpClientModel', 'SystemModel', 'Result']);
});

test('only the component schemas the operations reference become types, in document order', async () => {
  const object = (properties: Record<string, unknown>): Record<string, unknown> => ({ type: 'object', properties });
  const api = await spec({
    paths: {
      '/orders/{id}': {
        parameters: [{ $ref: '#/components/parameters/Id' }],
        get: { responses: { 200: { $ref: '#/components/responses/Order' } } },
      },
    },
    components: {
      parameters: { Id: { name: 'id', in: 'path', required: true, schema: { $ref: '#/components/schemas/OrderId' } } },
      responses: { Order: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } } },
      schemas: {
        WebhookPayload: object({ order: { $ref: '#/components/schemas/Order' } }),
        Line: object({ sku: { type: 'string' } }),
        Order: object({ lines: { type: 'array', items: { $ref: '#/components/schemas/Line' } }, id: { $ref: '#/components/schemas/OrderId' } }),
        OrderId: object({ value: { type: 'string' } }),
        Unused: object({ again: { $ref: '#/components/schemas/Unused' } }),
      },
    },
  });
  assert.deepEqual([...api.model.types.keys()], ['/components/schemas/Line', '/components/schemas/Order', '/components/schemas/OrderId']);
});

test('a record that contains itself through a $ref is its own type; required names the spec does not describe are any JSON, with a warning', async () => {
  const api = await spec({
    paths: {
      '/status': { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Report' } } } }, responses: { 204: { description: 'ok' } } } },
    },
    components: {
      schemas: {
        Report: { type: 'object', properties: { info: { $ref: '#/components/schemas/Info' } } },
        Info: { type: 'object', required: ['id', 'total', 'kind'], properties: { id: { type: 'string' }, sub: { type: 'array', items: { $ref: '#/components/schemas/Info' } } } },
      },
    },
  });
  const info = api.model.types.get('/components/schemas/Info');
  const sub = info?.properties.find((p) => p.jsonName === 'sub')?.type;
  assert.deepEqual(sub?.kind === 'array' ? sub.items : sub, { kind: 'object', id: '/components/schemas/Info', nullable: false });
  assert.deepEqual(info?.properties.map((p) => [p.jsonName, p.type.kind, p.required]), [['id', 'primitive', true], ['sub', 'array', false], ['total', 'any', true], ['kind', 'any', true]]);
  assert.equal(info?.properties.find((p) => p.jsonName === 'total')?.facts.description, 'Required by the API; the spec does not describe it.');
  assert.deepEqual(api.warnings.map((w) => `${w.location.replace(/^.*#/, '#')}: ${w.message}`), [
    '#/components/schemas/Info/required: required properties "total", "kind" are not described: sent as any JSON value',
  ]);
});

test('inline schemas are named after where they sit; operation ones after the tool', async () => {
  const api = await spec({
    paths: {
      '/pets': {
        post: {
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } } },
          responses: { 201: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' }, tags: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } } } } } } } } } },
        },
      },
    },
  });
  const plan = planNames(api.model);
  assert.deepEqual([...plan.types.values()].map((t) => t.name), ['CreatePetRequest', 'CreatePetResponse', 'CreatePetResponseTagItem']);
});

test('parameters: path-level merged with operation-level overrides; Accept/Content-Type/Authorization headers ignored', async () => {
  const api = await spec({
    paths: {
      '/pets/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }, { name: 'verbose', in: 'query', schema: { type: 'boolean' } }],
        get: {
          parameters: [
            { name: 'verbose', in: 'query', required: true, description: 'Overridden.', schema: { type: 'boolean' } },
            { name: 'Accept', in: 'header', schema: { type: 'string' } },
            { name: 'authorization', in: 'header', schema: { type: 'string' } },
            { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
          ],
          responses: { 200: { description: 'ok' } },
        },
      },
    },
  });
  const op = api.model.operations[0];
  assert.deepEqual(op?.parameters.map((p) => `${p.location}:${p.name}:${p.required}:${p.facts.description ?? ''}`), ['path:id:true:', 'query:verbose:true:Overridden.', 'header:X-Trace:false:']);
});

test('responses: the first 2xx, default when there is none, 204 and text and binary kinds', async () => {
  const ok = (content: Record<string, unknown>) => ({ description: 'ok', content });
  const api = await spec({
    paths: {
      '/a': { get: { responses: { 202: ok({ 'application/json': { schema: { type: 'string' } } }), 200: ok({ 'application/json': { schema: { type: 'integer' } } }) } } },
      '/b': { get: { responses: { default: ok({ 'application/json': { schema: { type: 'boolean' } } }) } } },
      '/c': { get: { responses: { 204: { description: 'none' } } } },
      '/d': { get: { responses: { 200: ok({ 'text/csv': { schema: { type: 'string' } } }) } } },
      '/e': { get: { responses: { 200: ok({ 'application/pdf': { schema: { type: 'string', format: 'binary' } } }) } } },
    },
  });
  assert.deepEqual(api.model.operations.map((op) => `${op.success.status}:${op.success.kind}:${op.success.type?.kind === 'primitive' ? op.success.type.type : '-'}`), [
    '200:json:long', 'default:json:bool', '204:none:-', '200:text:string', '200:binary:bytes',
  ]);
});

test('external $refs: files under the spec folder are bundled; others need --allow-external-refs', async () => {
  const root = scratchDir('ext');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(root, 'api', 'schemas'), { recursive: true });
  await mkdir(join(root, 'shared'), { recursive: true });
  await writeFile(join(root, 'api', 'schemas', 'pet.yaml'), 'type: object\nrequired: [name]\nproperties:\n  name: { type: string }\n  owner: { $ref: "../../shared/owner.json" }\n');
  await writeFile(join(root, 'shared', 'owner.json'), JSON.stringify({ type: 'object', properties: { email: { type: 'string' } } }));
  const document = {
    openapi: '3.0.3', info: { title: 'T', version: '1' },
    paths: { '/pets': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: 'schemas/pet.yaml' } } } } } } } },
  };
  const file = join(root, 'api', 'openapi.json');
  await writeFile(file, JSON.stringify(document));
  await assert.rejects(prepare(file), /^GeneratorError: schemas\/pet\.yaml#\/properties\/owner: cannot resolve the external \$ref "\.\.\/\.\.\/shared\/owner\.json": .*shared\/owner\.json is outside the spec's folder \(--allow-external-refs allows more\)$/);
  const api = await prepare(file, { allowExternalRefs: true });
  const response = api.model.operations[0]?.success.type;
  assert.equal(response?.kind, 'object');
  const pet = response?.kind === 'object' ? api.model.types.get(response.id) : undefined;
  assert.deepEqual(pet?.properties.map((p) => p.jsonName), ['name', 'owner']);
  await writeFile(join(root, 'api', 'schemas', 'pet.yaml'), 'type: object\nproperties:\n  name: { type: string }\n');
  const inside = await prepare(file);
  assert.equal(inside.model.operations[0]?.success.type?.kind, 'object');
});

test('a document is searched for external $refs only when its text may have one: a $ref key with a string value not starting with #', async () => {
  const { mayHaveExternalRefs } = await import('../src/load/external-refs.js');
  for (const text of ['"$ref": "schemas/pet.yaml"', '{"$ref":"{name}.json"}', '"$ref"\n : \'other.json#/Pet\'', '$ref: ./pet.yaml', '  - $ref: "pet.yaml#/Pet"', '{$ref: pet.yaml}', 'owner:\n  $ref:\n    ../owner.yaml']) {
    assert.equal(mayHaveExternalRefs(text), true, text);
  }
  // OData paths end in $ref (MS Graph has thousands): a key that ends so, whose value is a path item, is no reference.
  for (const text of ['"$ref": "#/components/schemas/Pet"', '$ref: \'#/Pet\'', '"/groups/{group-id}/members/$ref":{"get":{}}', '/groups/{id}/owners/$ref:\n  post:', '"description": "see $ref"', '{"$ref": {"type": "object"}}']) {
    assert.equal(mayHaveExternalRefs(text), false, text);
  }
});

test('the server icon: info.x-logo when it is an https URL or a data URI of an image, else a warning and none', async () => {
  const dir = scratchDir('model-icon');
  const iconOf = async (logo: unknown): Promise<{ icon: unknown; warnings: string[] }> => {
    await writeFile(join(dir, 'logo.json'), JSON.stringify({ openapi: '3.0.3', info: { title: 'L', version: '1', 'x-logo': logo }, paths: {} }));
    const api = await prepare(join(dir, 'logo.json'));
    return { icon: api.model.icon, warnings: api.warnings.map((w) => `${w.location.replace(/^.*#/, '#')} ${w.message}`) };
  };
  assert.deepEqual(await iconOf({ url: 'https://api.example/logo.svg?v=2', backgroundColor: '#fff' }), { icon: { src: 'https://api.example/logo.svg?v=2', mimeType: 'image/svg+xml' }, warnings: [] });
  assert.deepEqual(await iconOf({ url: 'https://api.example/logo' }), { icon: { src: 'https://api.example/logo' }, warnings: [] });
  assert.deepEqual(await iconOf({ url: 'data:image/png;base64,iVBORw0KGgo=' }), { icon: { src: 'data:image/png;base64,iVBORw0KGgo=', mimeType: 'image/png' }, warnings: [] });
  for (const url of ['http://api.example/logo.png', '/logo.png', 'javascript:alert(1)', 'data:text/html,<script>', `data:image/png;base64,${'A'.repeat(40_000)}`]) {
    const { icon, warnings } = await iconOf({ url });
    assert.equal(icon, undefined, url);
    assert.match(warnings.join('\n'), /^#\/info\/x-logo\/url the logo is not an https: URL or a data: URI of an image/, url);
  }
  assert.deepEqual(await iconOf('not an object'), { icon: undefined, warnings: [] });
});

test('api-version is the document\'s where it says one: its default or only value, a dated info.version, its examples; else the model gives it', async () => {
  const versionOf = async (info: string, parameter: Record<string, unknown>): Promise<unknown> => {
    const api = await spec({ info: { title: 'T', version: info }, paths: { '/things': { get: { parameters: [{ name: 'api-version', in: 'query', required: true, ...parameter }], responses: { 200: { description: 'ok' } } } } } });
    return api.model.operations[0]?.parameters[0]?.client;
  };
  assert.deepEqual(await versionOf('1.0.0', { schema: { type: 'string', default: '2023-01-01' } }), { value: '2023-01-01', fixed: true });
  assert.deepEqual(await versionOf('1.0.0', { schema: { type: 'string', enum: ['7.1'] } }), { value: '7.1', fixed: true });
  assert.deepEqual(await versionOf('2024-05-01-preview', { schema: { type: 'string' } }), { value: '2024-05-01-preview', fixed: true });
  assert.deepEqual(await versionOf('1.0.0', { schema: { type: 'string' }, examples: { a: { value: '2019-02-01' }, b: { value: '2019-02-01' }, c: { value: '2018-01-01' } } }), { value: '2019-02-01', fixed: true });
  // A semantic info.version says the document's version, not the API's: the model still gives this one.
  assert.equal(await versionOf('1.0.0', { schema: { type: 'string' } }), undefined);
  assert.deepEqual(await versionOf('1.0', { schema: { type: 'string' }, 'x-ms-parameter-location': 'client' }), { value: '1.0', fixed: true });
  assert.deepEqual(await versionOf('2019-08-01.10.0', { schema: { type: 'string' } }), { value: '2019-08-01.10.0', fixed: true });
  // What does not read as a version is not sent on every call: a timestamp in the examples, a date in words.
  assert.equal(await versionOf('Wed Oct 15 2025 13:50:41 GMT+0000', { schema: { type: 'string' }, 'x-ms-parameter-location': 'client', examples: { a: { value: '2025-10-15T13:50:41.539Z' } } }), undefined);
  assert.equal(await versionOf('1.0.0', { schema: { type: 'string' }, example: '2025-10-15T13:50:41.539Z' }), undefined);
});

test('client parameters, pages and long-running operations from the x-ms extensions; an ARM subscriptionId is the client\'s by its name', async () => {
  const subscription = { name: 'subscriptionId', in: 'path', required: true, schema: { type: 'string' }, 'x-ms-parameter-location': 'method' };
  const api = await spec({
    paths: {
      '/subscriptions/{subscriptionId}/things': {
        get: { operationId: 'Things_List', parameters: [subscription, { name: 'endpoint', in: 'header', schema: { type: 'string' }, 'x-ms-parameter-location': 'client' }], 'x-ms-pageable': { nextLinkName: 'nextLink', operationName: 'Things_ListNext' }, responses: { 200: { description: 'ok' } } },
        put: { operationId: 'Things_Create', parameters: [subscription], 'x-ms-long-running-operation': true, 'x-ms-long-running-operation-options': { 'final-state-via': 'Azure-Async-Operation' }, responses: { 201: { description: 'ok' } } },
      },
      '/subscriptions/{subscriptionId}/things/next': { get: { operationId: 'Things_ListNext', parameters: [subscription], 'x-ms-pageable': { nextLinkName: null }, responses: { 200: { description: 'ok' } } } },
    },
  });
  const [list, create, next] = api.model.operations;
  assert.deepEqual(list?.parameters.map((p) => [p.name, p.client]), [['subscriptionId', { fixed: false }], ['endpoint', { fixed: false }]]);
  assert.deepEqual(list?.paging, { nextLinkName: 'nextLink', nextOperation: next?.id });
  assert.deepEqual(create?.longRunning, { finalStateVia: 'azure-async-operation' });
  assert.equal(next?.paging, undefined);
  const plan = planNames(api.model);
  assert.deepEqual([...plan.clientParameters.values()].map((p) => [p.property, p.setting]), [['SubscriptionId', 'SUBSCRIPTION_ID'], ['Endpoint', 'ENDPOINT']]);
});

test('x-ms-paths join the paths (a path told apart by its query; one already in paths keeps its own); x-ms-client-name names arguments and C# properties, the wire keeps the document\'s names', async () => {
  const job = { type: 'object', properties: { state: { type: 'string', 'x-ms-client-name': 'jobState' } } };
  const mode = { name: 'mode', in: 'query', type: 'string', enum: ['soft', 'hard'], description: 'How to cancel', 'x-ms-enum': { name: 'CancelMode', modelAsString: true, values: [{ value: 'soft', name: 'Soft', description: 'Let the running step finish.' }, { value: 'hard', name: 'Hard', description: 'Stop at once;\n  the step is lost.' }] } };
  const api = await spec({
    openapi: undefined, swagger: '2.0', info: { title: 'Jobs', version: '2024-01-01' },
    paths: { '/jobs/{id}': { get: { operationId: 'Jobs_Get', parameters: [{ name: 'id', in: 'path', required: true, type: 'string' }], responses: { 200: { description: 'ok', schema: { $ref: '#/definitions/Job' } } } } } },
    'x-ms-paths': {
      '/jobs/{id}?op=cancel': { post: { operationId: 'Jobs_Cancel', parameters: [{ name: 'id', in: 'path', required: true, type: 'string' }, { name: 'x-ms-client-request-id', in: 'header', type: 'string', 'x-ms-client-name': 'requestId' }, mode], responses: { 200: { description: 'ok', schema: { $ref: '#/definitions/Job' } } } } },
      '/jobs/{id}': { delete: { operationId: 'Jobs_Delete', responses: { 204: { description: 'gone' } } } },
    },
    definitions: { Job: job },
  });
  assert.deepEqual(api.model.operations.map((op) => `${op.method.toUpperCase()} ${op.path}`), ['GET /jobs/{id}', 'POST /jobs/{id}?op=cancel']);
  const cancel = api.model.operations[1]!;
  assert.deepEqual(cancel.parameters.map((p) => [p.name, p.clientName]), [['id', undefined], ['x-ms-client-request-id', 'requestId'], ['mode', undefined]]);
  const plan = planNames(api.model);
  assert.deepEqual(plan.operations.get(cancel.id)?.parameters, ['id', 'requestId', 'mode']);
  // x-ms-enum's values say what each means: the argument's description tells the model (the schema lists the values).
  const modeParameter = cancel.parameters[2]!;
  assert.equal(valueDescription(modeParameter.facts, modeParameter.type, undefined, true), 'How to cancel. soft: Let the running step finish; hard: Stop at once; the step is lost.');
  const jobType = [...api.model.types.entries()].find(([, type]) => type.origin.kind === 'component' && type.origin.name === 'Job');
  assert.ok(jobType);
  assert.deepEqual([jobType[1].properties.map((p) => p.jsonName), plan.types.get(jobType[0])?.properties], [['state'], ['JobState']]);
});

test("a required `apiVersion` whose value the document states (Application Insights' shape) is set by the client as api-version is; an optional one stays an argument", async () => {
  const versionParameter = (more: Record<string, unknown>): Record<string, unknown> => ({
    name: 'apiVersion', in: 'query', description: 'Client API version.', 'x-ms-parameter-location': 'method', schema: { type: 'string' },
    examples: { metrics: { value: '2018-04-20' }, events: { value: '2018-04-20' } }, ...more,
  });
  const document = (more: Record<string, unknown>): Record<string, unknown> => ({
    info: { title: 'Application Insights Data Plane', version: '2018-04-20' },
    paths: { '/apps/{appId}/metrics/{metricId}': { get: { operationId: 'Metrics_Get', parameters: [{ name: 'appId', in: 'path', required: true, schema: { type: 'string' } }, { name: 'metricId', in: 'path', required: true, schema: { type: 'string' } }, versionParameter(more)], responses: { 200: { description: 'ok' } } } } },
  });
  const required = await spec(document({ required: true }));
  const op = required.model.operations[0]!;
  assert.deepEqual(op.parameters.find((p) => p.name === 'apiVersion')?.client, { value: '2018-04-20', fixed: true });
  assert.deepEqual(Object.keys(inputSchema(required.model, planNames(required.model), op).properties ?? {}), ['appId', 'metricId']);
  const optional = await spec(document({}));
  assert.equal(optional.model.operations[0]!.parameters.find((p) => p.name === 'apiVersion')?.client, undefined);
});
