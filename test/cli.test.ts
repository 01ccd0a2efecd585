import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile, mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, EXIT_CODES } from '../src/index.js';
import { EXAMPLE_SPEC } from './support/golden.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const tmp = await mkdtemp(join(tmpdir(), 'omd-cli-'));
const file = async (name: string, content: string): Promise<string> => {
  const path = join(tmp, name);
  await writeFile(path, content);
  return path;
};
const toolsArgs = (spec: string, output = join(tmp, 'out', 'McpTools.g.cs')): string[] =>
  ['tools', '--openapi-url', spec, '--output-file', output, '--namespace', 'Demo', '--server-name', 'Demo', '--ext-namespace', 'Demo.Client'];

await mkdir(join(tmp, 'out'));

interface Case { name: string; args: () => Promise<string[]>; code: number; message: RegExp }
const cases: Case[] = [
  { name: 'missing file', args: async () => toolsArgs(join(tmp, 'nope.yaml')), code: EXIT_CODES.spec, message: /nope\.yaml: cannot read the OpenAPI document: no such file/ },
  { name: 'directory instead of a file', args: async () => toolsArgs(tmp), code: EXIT_CODES.spec, message: /is a directory/ },
  { name: 'empty file', args: async () => toolsArgs(await file('empty.json', '  \n')), code: EXIT_CODES.spec, message: /empty\.json: the OpenAPI document is empty/ },
  { name: 'invalid JSON, with line and column', args: async () => toolsArgs(await file('bad.json', '{\n  "openapi": "3.0.0",\n  "info": }\n')), code: EXIT_CODES.spec, message: /bad\.json:3:\d+: invalid JSON/ },
  { name: 'invalid YAML, with line and column', args: async () => toolsArgs(await file('bad.yaml', 'openapi: 3.0.0\ninfo:\n  title: [unclosed\n')), code: EXIT_CODES.spec, message: /bad\.yaml:\d+:\d+: invalid YAML/ },
  { name: 'not OpenAPI', args: async () => toolsArgs(await file('other.json', '{"name": "package"}')), code: EXIT_CODES.spec, message: /other\.json#: not an OpenAPI document/ },
  { name: 'unsupported version', args: async () => toolsArgs(await file('v4.json', '{"openapi": "4.0.0", "paths": {}}')), code: EXIT_CODES.spec, message: /v4\.json#\/openapi: unsupported OpenAPI version "4\.0\.0"/ },
  { name: 'invalid namespace', args: async () => ['tools', '--openapi-url', EXAMPLE_SPEC, '--output-file', join(tmp, 'out', 'x.cs'), '--namespace', 'my-api', '--server-name', 'x', '--ext-namespace', 'A.B'], code: EXIT_CODES.usage, message: /--namespace "my-api" is not a valid C# namespace/ },
  { name: 'empty server name', args: async () => ['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', ' ', '--output-dir', join(tmp, 'p')], code: EXIT_CODES.usage, message: /--server-name must not be empty/ },
  { name: 'unknown option', args: async () => [...toolsArgs(EXAMPLE_SPEC), '--colour'], code: EXIT_CODES.usage, message: /unknown option '--colour'/ },
  { name: 'missing required option', args: async () => ['client', '-u', EXAMPLE_SPEC, '-o', tmp], code: EXIT_CODES.usage, message: /required option '-n, --namespace <namespace>' not specified/ },
  { name: 'tags that match no operation', args: async () => [...toolsArgs(EXAMPLE_SPEC), '--tags', 'stores'], code: EXIT_CODES.usage, message: /--tags stores matches no operation; the spec's tags are: pets, owners/ },
  { name: 'output folder that does not exist', args: async () => toolsArgs(EXAMPLE_SPEC, join(tmp, 'missing', 'McpTools.g.cs')), code: EXIT_CODES.output, message: /McpTools\.g\.cs: cannot write: the directory .*missing does not exist/ },
];

for (const c of cases) {
  test(`bad input: ${c.name} → exit ${c.code} and a one-line message`, async () => {
    const result = await cli(await c.args());
    assert.equal(result.code, c.code, result.err);
    assert.match(result.err, c.message);
    assert.equal(result.err.trim().split('\n').filter((l) => !l.startsWith('(run with')).length, 1, result.err);
  });
}

test('a failed run leaves an existing output file untouched', async () => {
  const output = join(tmp, 'out', 'Keep.g.cs');
  await writeFile(output, 'precious');
  const result = await cli(toolsArgs(await file('broken.json', '{"openapi": "3.0.0", '), output));
  assert.equal(result.code, EXIT_CODES.spec);
  assert.equal(await readFile(output, 'utf8'), 'precious');
  assert.deepEqual((await readdir(join(tmp, 'out'))).filter((f) => f.endsWith('.tmp')), []);
});

test('tools writes the file and reports the tool count; --tags selects case-insensitively', async () => {
  const output = join(tmp, 'out', 'McpTools.g.cs');
  const all = await cli(toolsArgs(EXAMPLE_SPEC, output));
  assert.equal(all.code, 0, all.err);
  assert.match(all.out, /Wrote 7 tools/);
  const owners = await cli([...toolsArgs(EXAMPLE_SPEC, output), '--tags', ' OWNERS , nothing']);
  assert.equal(owners.code, 0, owners.err);
  assert.match(owners.out, /Wrote 2 tools/);
  const content = await readFile(output, 'utf8');
  assert.deepEqual([...content.matchAll(/Name = "([a-z_]+)"/g)].map((m) => m[1]), ['list_owners', 'list_owner_pets']);
});

test('the default command is tools, as in SPEC 4.1', async () => {
  const output = join(tmp, 'out', 'Default.g.cs');
  const result = await cli(toolsArgs(EXAMPLE_SPEC, output).slice(1));
  assert.equal(result.code, 0, result.err);
  assert.match(await readFile(output, 'utf8'), /\[McpServerToolType\]\npublic static partial class McpTools/);
});

test('client writes the three client files; --help lists the commands', async () => {
  const dir = join(tmp, 'client');
  const result = await cli(['client', '-u', EXAMPLE_SPEC, '-o', dir, '-n', 'Petstore.Client']);
  assert.equal(result.code, 0, result.err);
  assert.deepEqual((await readdir(dir)).sort(), ['ApiClient.g.cs', 'ApiRuntime.g.cs', 'Models.g.cs']);
  const help = await cli(['--help']);
  assert.equal(help.code, 0);
  for (const command of ['client', 'tools', 'host', 'init']) assert.match(help.out, new RegExp(`\\n  ${command} `));
});
