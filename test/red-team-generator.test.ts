/**
 * The generator against hostile specs, written by the test: symbolic links out of the spec's folder,
 * devices and FIFOs, endless and dripping downloads, YAML alias bombs, schemas thousands of levels deep or
 * containing themselves, a full disk and a read-only folder, requirements that cannot all be sent, and more
 * tools than clients can use. Every case ends in one line on stderr, never a hang, a stack trace or a lost file.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT_CODES, prepare, runCli } from '../src/index.js';
import { EXAMPLE_SPEC } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

const tmp = scratchDir('red-gen');

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const tools = (spec: string, output = join(tmp, 'McpTools.g.cs')): string[] =>
  ['tools', '--openapi-url', spec, '--output-file', output, '--namespace', 'Red', '--server-name', 'Red', '--ext-namespace', 'Red.Client'];

const oneLine = (text: string): void => assert.equal(text.trim().split('\n').length, 1, text);

const doc = (extra: Record<string, unknown>): string => JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, ...extra });

const servers: Server[] = [];
after(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => { s.closeAllConnections(); s.close(() => resolve()); }))));

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('a symbolic link in the spec\'s folder does not read a file outside it, also when reached through another file', async () => {
  const outside = join(tmp, 'outside');
  const folder = join(tmp, 'linked');
  await mkdir(outside);
  await mkdir(folder);
  await writeFile(join(outside, 'secret.yaml'), 'Secret: { type: string, description: TOP-SECRET-TEXT }\n');
  await symlink(join(outside, 'secret.yaml'), join(folder, 'notes.yaml'));
  await writeFile(join(folder, 'models.yaml'), 'Pet: { type: object, properties: { note: { $ref: "notes.yaml#/Secret" } } }\n');
  const schema = (ref: string): unknown => ({ responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } } } });
  for (const ref of ['notes.yaml#/Secret', 'models.yaml#/Pet']) {
    const spec = join(folder, `spec-${ref.split('.')[0]}.json`);
    await writeFile(spec, doc({ paths: { '/a': { get: schema(ref) } } }));
    const result = await cli(tools(spec, join(tmp, 'Linked.g.cs')));
    assert.equal(result.code, EXIT_CODES.spec, result.err);
    assert.match(result.err, /cannot resolve the external \$ref "notes\.yaml#\/Secret": .*notes\.yaml is outside the spec's folder \(--allow-external-refs allows more\)\n$/);
    oneLine(result.err);
    assert.ok(!result.err.includes('TOP-SECRET-TEXT'));
  }
});

test('devices and FIFOs are not specs, nor what a $ref names: one line, at once', async () => {
  const zero = await cli(tools('/dev/zero'));
  assert.equal(zero.code, EXIT_CODES.spec);
  assert.equal(zero.err, 'error: /dev/zero: is not a regular file (a device, FIFO or socket cannot be a spec)\n');
  const folder = join(tmp, 'fifo');
  await mkdir(folder);
  execFileSync('mkfifo', [join(folder, 'pipe.yaml')]);
  const spec = join(folder, 'spec.json');
  await writeFile(spec, doc({ paths: { '/a': { $ref: 'pipe.yaml' } } }));
  const started = performance.now();
  const fifo = await cli(tools(spec));
  assert.equal(fifo.code, EXIT_CODES.spec);
  assert.match(fifo.err, /cannot resolve the external \$ref "pipe\.yaml": cannot read .*pipe\.yaml: is not a regular file/);
  oneLine(fifo.err);
  assert.ok(performance.now() - started < 10_000);
});

test('a URL spec is read with a byte cap as it arrives, and within a time limit', async () => {
  const chunk = Buffer.alloc(1 << 20, 0x20);
  const base = await serve((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    if (request.url === '/endless.json') {
      const pump = (): void => { while (!response.destroyed && response.write(chunk)) { /* fill the pipe */ } };
      response.on('drain', pump);
      pump();
    } else {
      response.write('{');
      const timer = setInterval(() => response.write(' '), 500);
      response.on('close', () => clearInterval(timer));
    }
  });
  const endless = await cli(tools(`${base}/endless.json`));
  assert.equal(endless.code, EXIT_CODES.spec);
  assert.equal(endless.err, `error: ${base}/endless.json: the OpenAPI document is over the 200 MB limit\n`);
  const started = performance.now();
  await assert.rejects(prepare(`${base}/drip.json`, { fetchTimeoutMs: 1500 }), /drip\.json: cannot download the OpenAPI document: no complete answer within 1\.5 s$/);
  assert.ok(performance.now() - started < 5000);
});

test('YAML aliases: one schema (one record) per aliased node; an alias bomb is refused in one line', async (t) => {
  const tree = ['openapi: 3.0.3', 'info: {title: t, version: "1"}', 'x-defs:', '  a0: &a0 {type: object, properties: {name: {type: string}}}'];
  for (let i = 1; i <= 8; i++) tree.push(`  a${i}: &a${i} {type: object, properties: {left: *a${i - 1}, right: *a${i - 1}}}`);
  tree.push('paths:', '  /x: {post: {requestBody: {content: {application/json: {schema: *a8}}}, responses: {"200": {description: ok}}}}');
  await writeFile(join(tmp, 'tree.yaml'), tree.join('\n') + '\n');
  const client = await cli(['client', '-u', join(tmp, 'tree.yaml'), '-o', join(tmp, 'tree'), '-n', 'Tree.Client']);
  assert.equal(client.code, 0, client.err);
  assert.equal((await readFile(join(tmp, 'tree', 'Models.g.cs'), 'utf8')).match(/partial record/g)?.length, 9);

  const bomb = ['openapi: 3.0.3', 'info: {title: t, version: "1"}', 'x-bomb:', '  b0: &b0 {type: string}'];
  for (let i = 1; i <= 24; i++) bomb.push(`  b${i}: &b${i} {allOf: [*b${i - 1}, *b${i - 1}]}`);
  bomb.push('paths:', '  /x: {get: {parameters: [{name: q, in: query, schema: *b24}], responses: {"200": {description: ok}}}}');
  await writeFile(join(tmp, 'bomb.yaml'), bomb.join('\n') + '\n');
  const started = performance.now();
  const refused = await cli(tools(join(tmp, 'bomb.yaml')));
  assert.equal(refused.code, EXIT_CODES.spec);
  assert.match(refused.err, /^error: .*bomb\.yaml: invalid YAML: its aliases expand past 100,000 uses \(refused as a resource exhaustion attack\)\n$/);
  assert.ok(performance.now() - started < 5000);
  t.diagnostic(`alias bomb refused in ${(performance.now() - started).toFixed(0)} ms`);
});

test('a schema 3,000 levels deep skips its operation with a warning; schemas containing themselves generate', async () => {
  let deep = '{"type":"object","properties":{}}';
  for (let i = 0; i < 3000; i++) deep = `{"type":"object","properties":{"a":${deep}}}`;
  const body = (schema: string): string => `{"requestBody":{"content":{"application/json":{"schema":${schema}}}},"responses":{"200":{"description":"ok"}}}`;
  const self = '{"type":"object","properties":{"list":{"$ref":"#/components/schemas/A"},"map":{"$ref":"#/components/schemas/M"},"all":{"$ref":"#/components/schemas/L"},"node":{"$ref":"#/components/schemas/N"}}}';
  const components = '{"schemas":{"A":{"type":"array","items":{"$ref":"#/components/schemas/A"}},"M":{"type":"object","additionalProperties":{"$ref":"#/components/schemas/M"}},"L":{"allOf":[{"$ref":"#/components/schemas/L"}]},"N":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/N"}}}}}';
  const spec = join(tmp, 'deep.json');
  await writeFile(spec, `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/deep":{"post":${body(deep)}},"/self":{"post":${body(self)}}},"components":${components}}`);
  const result = await cli(['client', '-u', spec, '-o', join(tmp, 'deep'), '-n', 'Deep.Client']);
  assert.equal(result.code, 0, result.err);
  oneLine(result.err);
  assert.match(result.err, /^warning: .*deep\.json#\/paths\/~1deep\/post\/requestBody\/.*: skipped POST \/deep: the schema is nested more than 200 levels deep\n$/);
  const models = await readFile(join(tmp, 'deep', 'Models.g.cs'), 'utf8');
  assert.match(models, /public sealed partial record N\b[\s\S]*public N\? Next \{ get; init; \}/);
});

test('a full disk or a read-only folder: the real cause, and nothing half-written left behind', async () => {
  const full = join(tmp, 'full');
  const readOnly = join(tmp, 'read-only');
  await mkdir(full);
  await mkdir(readOnly);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', full]);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro', 'tmpfs', readOnly]);
  try {
    const disk = await cli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'P', '--output-dir', join(full, 'p'), '--framework', 'net10.0']);
    assert.equal(disk.code, EXIT_CODES.output);
    assert.match(disk.err, /^error: .*full\/p\/.*\.cs: cannot write: no space left on device\n$/);
    assert.deepEqual(await readdir(full), []);
    const ro = await cli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'P', '--output-dir', join(readOnly, 'p'), '--framework', 'net10.0']);
    assert.equal(ro.code, EXIT_CODES.output);
    assert.equal(ro.err, `error: ${join(readOnly, 'p')}: cannot write: read-only file system\n`);
  } finally {
    spawnSync('umount', [full]);
    spawnSync('umount', [readOnly]);
  }
});

test('warnings: two schemes for one Authorization header, a server named by its path alone, more tools than clients use', async () => {
  const paths = Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`/items${i}`, { get: { responses: { 200: { description: 'ok' } } } }]));
  const spec = join(tmp, 'warnings.json');
  await writeFile(spec, doc({
    servers: [{ url: '/api/v2' }],
    components: { securitySchemes: { token: { type: 'http', scheme: 'bearer' }, login: { type: 'http', scheme: 'basic' } } },
    security: [{ token: [], login: [] }],
    paths,
  }));
  const result = await cli(tools(spec));
  assert.equal(result.code, 0, result.err);
  assert.deepEqual(result.err.trim().split('\n'), [
    `warning: ${spec}#/paths/~1items0/get/security: the security requirement {token, login} needs token and login, which all send the Authorization header: only login (the last listed) is sent`,
    `warning: ${spec}#/servers/0/url: the server is named by its path alone (/api/v2): the server will need RED_BASE_URL, the API's origin, to which it adds the path`,
    'warning: 130 tools is past the 128 VS Code accepts, and more than assistants choose among well: use --mode discovery (three tools that search, describe and call the operations), or select a part with --tags, --include or --exclude (the report command lists the tags)',
  ]);
});
