import { after, test } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { open } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli, EXIT_CODES } from '../src/index.js';
import { EXAMPLE_SPEC, REPO } from './support/golden.js';
import { generatorCommand } from '../src/emit/project/regenerate.js';
import { existsSync } from 'node:fs';
import { scratchDir } from './support/scratch.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const tmp = scratchDir('cli');
const file = async (name: string, content: string): Promise<string> => {
  const path = join(tmp, name);
  await writeFile(path, content);
  return path;
};
const toolsArgs = (spec: string, output = join(tmp, 'out', 'McpTools.g.cs')): string[] =>
  ['tools', '--openapi-url', spec, '--output-file', output, '--namespace', 'Demo', '--server-name', 'Demo', '--ext-namespace', 'Demo.Client'];

await mkdir(join(tmp, 'out'));

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function sparse(name: string, bytes: number): Promise<string> {
  const path = join(tmp, name);
  const handle = await open(path, 'w');
  await handle.truncate(bytes);
  await handle.close();
  return path;
}

/** Serves the example spec (as JSON and YAML) on 127.0.0.1 for the URL cases. */
const exampleText = await readFile(EXAMPLE_SPEC, 'utf8');
const httpServer = createServer((request, response) => {
  if (request.url === '/petstore.yaml') {
    response.writeHead(200, { 'content-type': 'application/yaml' });
    response.end(exampleText);
  } else {
    response.writeHead(404);
    response.end('not here');
  }
});
await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
const specServer = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
after(() => new Promise<void>((resolve) => httpServer.close(() => resolve())));

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
  { name: 'a value outside the choices', args: async () => ['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'x', '--output-dir', join(tmp, 'p'), '--launch', 'docker'], code: EXIT_CODES.usage, message: /^error: option '--launch <form>' argument 'docker' is invalid\. .*\(run with --help for usage\)$/m },
  { name: 'an unknown client', args: async () => ['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'x', '--output-dir', join(tmp, 'p'), '--client', 'vscode,vim'], code: EXIT_CODES.usage, message: /^error: --client "vim" is not a known client; the clients are claude-desktop, claude-code, vscode, cursor$/m },
  { name: 'missing required option', args: async () => ['client', '-u', EXAMPLE_SPEC, '-o', tmp], code: EXIT_CODES.usage, message: /required option '-n, --namespace <namespace>' not specified/ },
  { name: 'tags that match no operation', args: async () => [...toolsArgs(EXAMPLE_SPEC), '--tags', 'stores'], code: EXIT_CODES.usage, message: /--tags stores matches no operation; the spec's tags are: pets, owners/ },
  { name: 'dangling $ref', args: async () => toolsArgs(await file('dangling.json', JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/a': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Missing' } } } } } } } } }))), code: EXIT_CODES.spec, message: /dangling\.json#\/paths\/~1a\/get\/responses\/200\/content\/application~1json\/schema\/\$ref: \$ref "#\/components\/schemas\/Missing" points to nothing/ },
  { name: 'external $ref to a file that cannot be read', args: async () => toolsArgs(await file('external.json', JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/a': { $ref: 'paths/missing.json' } } }))), code: EXIT_CODES.spec, message: /external\.json#\/paths\/~1a: cannot resolve the external \$ref "paths\/missing\.json": cannot read .*missing\.json: no such file$/m },
  { name: 'external $ref, in a referenced file, to a file that cannot be read', args: async () => {
    await mkdir(join(tmp, 'nested'), { recursive: true });
    await writeFile(join(tmp, 'nested', 'models.json'), JSON.stringify({ Pet: { type: 'object', properties: { owner: { $ref: 'owner.json#/Owner' } } } }));
    return toolsArgs(await file('nested/spec.json', JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/a': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: 'models.json#/Pet' } } } } } } } } })));
  }, code: EXIT_CODES.spec, message: /^error: models\.json#\/Pet\/properties\/owner: cannot resolve the external \$ref "owner\.json#\/Owner": cannot read .*owner\.json: no such file$/m },
  { name: 'external $ref outside the spec folder', args: async () => toolsArgs(await file('escape.json', JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/a': { $ref: '../../etc/passwd' } } }))), code: EXIT_CODES.spec, message: /escape\.json#\/paths\/~1a: external \$ref "\.\.\/\.\.\/etc\/passwd" leaves the spec's folder/ },
  { name: 'unreachable URL', args: async () => toolsArgs(`http://127.0.0.1:${await closedPort()}/openapi.json`), code: EXIT_CODES.spec, message: /http:\/\/127\.0\.0\.1:\d+\/openapi\.json: cannot download the OpenAPI document: .*ECONNREFUSED/ },
  { name: 'HTTP error from the URL', args: async () => toolsArgs(`${specServer}/missing.json`), code: EXIT_CODES.spec, message: /missing\.json: cannot download the OpenAPI document: HTTP 404 Not Found/ },
  { name: 'spec over the size limit', args: async () => toolsArgs(await sparse('huge.json', 201 * 1024 * 1024)), code: EXIT_CODES.spec, message: /huge\.json: the OpenAPI document is 201 MB, over the 200 MB limit/ },
  { name: 'output path below a file', args: async () => toolsArgs(EXAMPLE_SPEC, join(await file('plain.txt', 'x'), 'McpTools.g.cs')), code: EXIT_CODES.output, message: /plain\.txt\/McpTools\.g\.cs: cannot write: the parent is not a directory/ },
  { name: 'output folder that does not exist', args: async () => toolsArgs(EXAMPLE_SPEC, join(tmp, 'missing', 'McpTools.g.cs')), code: EXIT_CODES.output, message: /McpTools\.g\.cs: cannot write: the directory .*missing does not exist/ },
];

for (const c of cases) {
  test(`bad input: ${c.name} → exit ${c.code} and a one-line message`, async () => {
    const result = await cli(await c.args());
    assert.equal(result.code, c.code, result.err);
    assert.match(result.err, c.message);
    assert.equal(result.err.trim().split('\n').length, 1, result.err);
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

test('the spec can be a file:// URL or an http:// URL (YAML)', async () => {
  for (const source of [pathToFileURL(EXAMPLE_SPEC).href, `${specServer}/petstore.yaml`]) {
    const output = join(tmp, 'out', 'FromUrl.g.cs');
    const result = await cli(toolsArgs(source, output));
    assert.equal(result.code, 0, result.err);
    assert.match(await readFile(output, 'utf8'), /Name = "list_owner_pets"/);
  }
});

test('the default command is tools, as in SPEC 4.1', async () => {
  const output = join(tmp, 'out', 'Default.g.cs');
  const result = await cli(toolsArgs(EXAMPLE_SPEC, output).slice(1));
  assert.equal(result.code, 0, result.err);
  assert.match(await readFile(output, 'utf8'), /\[McpServerToolType\]\npublic static partial class McpTools/);
});

test('client writes the client files (models, client, runtime); --help lists the commands', async () => {
  const dir = join(tmp, 'client');
  const result = await cli(['client', '-u', EXAMPLE_SPEC, '-o', dir, '-n', 'Petstore.Client']);
  assert.equal(result.code, 0, result.err);
  assert.deepEqual((await readdir(dir)).sort(), ['ApiClient.g.cs', 'ApiErrorMessages.g.cs', 'ApiLongRunning.g.cs', 'ApiRequest.g.cs', 'ApiRequestBodies.g.cs', 'ApiRequestSend.g.cs', 'ApiResponseRead.g.cs', 'ApiRuntime.g.cs', 'Models.g.cs']);
  const help = await cli(['--help']);
  assert.equal(help.code, 0);
  for (const command of ['client', 'tools', 'host', 'init']) assert.match(help.out, new RegExp(`\\n  ${command} `));
  const version = await cli(['--version']);
  assert.equal(version.code, 0);
  assert.equal(version.out, `${JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')).version}\n`);
});

test('--check compares instead of writing: exit 0 when up to date, 5 with the stale files', async () => {
  const dir = join(tmp, 'check');
  assert.equal((await cli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', dir, '--framework', 'net10.0'])).code, 0);
  const fresh = await cli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', dir, '--framework', 'net10.0', '--check']);
  assert.equal(fresh.code, 0, fresh.err);
  assert.match(fresh.out, /^Up to date: 25 files/);
  await writeFile(join(dir, 'McpTools.g.cs'), 'edited');
  const stale = await cli(['tools', '--openapi-url', EXAMPLE_SPEC, '--output-file', join(dir, 'McpTools.g.cs'), '--namespace', 'Petstore', '--server-name', 'Petstore', '--ext-namespace', 'Petstore.Client', '--check']);
  assert.equal(stale.code, EXIT_CODES.stale);
  assert.match(stale.err, /^error: 1 generated file\(s\) out of date: .*McpTools\.g\.cs\n$/);
  assert.equal(await readFile(join(dir, 'McpTools.g.cs'), 'utf8'), 'edited');
  const client = await cli(['client', '-u', EXAMPLE_SPEC, '-o', join(dir, 'Client'), '-n', 'Petstore.Client', '--check']);
  assert.equal(client.code, 0, client.err);
});

test('init prints each client file as written, at its absolute path; the README mentions env only where there is one', async () => {
  const dir = join(tmp, 'summary');
  const result = await cli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', dir, '--framework', 'net10.0', '--client', 'vscode']);
  assert.equal(result.code, 0, result.err);
  for (const path of ['mcp.json', '.vscode/mcp.json']) {
    const written = (await readFile(join(dir, path), 'utf8')).trimEnd();
    assert.ok(result.out.includes(`, in ${join(dir, path)}:\n${written}\n`), `${path} is not shown as written:\n${result.out}`);
  }
  assert.match(result.out, /"servers": \{\n\s+"petstore": \{\n\s+"type": "stdio"/);
  const readme = await readFile(join(dir, 'README.md'), 'utf8');
  assert.doesNotMatch(readme, /add your values to `env`/);
  assert.match(readme, /to pass settings, add an `"env": \{ "PETSTORE_BASE_URL": "…" \}` block to it/);
});

test('--client adds the server to existing client files and keeps everything else; a file that is not JSON is refused and kept', async () => {
  const dir = join(tmp, 'merge');
  await mkdir(join(dir, '.vscode'), { recursive: true });
  const vscode = `{
  // servers of mine
  "inputs": [{ "id": "token", "type": "promptString" }],
  "servers": {
    "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" }
  }
}
`;
  await writeFile(join(dir, '.vscode/mcp.json'), vscode);
  const result = await cli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', dir, '--framework', 'net10.0', '--client', 'vscode,cursor', '--client', 'claude-code']);
  assert.equal(result.code, 0, result.err);
  const merged = await readFile(join(dir, '.vscode/mcp.json'), 'utf8');
  assert.ok(merged.startsWith(vscode.slice(0, vscode.indexOf('"github"'))), merged);
  assert.ok(merged.includes('"github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" }'), merged);
  const parsed = (await import('jsonc-parser')).parse(merged) as { servers: Record<string, { type?: string; command?: string }>; inputs: unknown[] };
  assert.deepEqual(Object.keys(parsed.servers), ['github', 'petstore']);
  assert.equal(parsed.servers.petstore?.type, 'stdio');
  assert.equal(parsed.inputs.length, 1);
  for (const path of ['.cursor/mcp.json', '.mcp.json']) assert.ok(result.out.includes(`, in ${join(dir, path)}:`), path);

  await writeFile(join(dir, '.cursor/mcp.json'), '{ "mcpServers": { ');
  const refused = await cli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', dir, '--framework', 'net10.0', '--client', 'cursor']);
  assert.equal(refused.code, EXIT_CODES.output);
  assert.match(refused.err, /^error: .*\.cursor\/mcp\.json:1:\d+: cannot add the server to this file: it is not valid JSON .*; fix or remove it\n$/);
  assert.equal(await readFile(join(dir, '.cursor/mcp.json'), 'utf8'), '{ "mcpServers": { ');
});

test('regenerate writes the client and tools again from the recorded spec and options, and nothing else; without a record it is a usage error', async () => {
  const dir = scratchDir('regenerate');
  const spec = join(dir, 'petstore.yaml');
  await writeFile(spec, await readFile(EXAMPLE_SPEC, 'utf8'));
  const project = join(dir, 'PetstoreMcp');
  assert.equal((await cli(['init', '--openapi-url', spec, '--server-name', 'Petstore', '--output-dir', project, '--tags', 'pets', '--framework', 'net10.0'])).code, 0);
  assert.deepEqual(JSON.parse(await readFile(join(project, 'openapi-mcp.json'), 'utf8')), { generator: 'openapi-mcp-dotnet@0.1.0', spec: '../petstore.yaml', serverName: 'Petstore', options: { tags: ['pets'] } });
  const program = join(project, 'Program.cs');
  await writeFile(program, '// kept\n');
  await writeFile(spec, (await readFile(spec, 'utf8')).replace('summary: List pets', 'summary: List every pet'));
  const result = await cli(['regenerate', '--project-dir', project]);
  assert.equal(result.code, 0, result.err);
  assert.match(result.out, /^Regenerated \d+ tools for /);
  const tools = await readFile(join(project, 'McpTools.g.cs'), 'utf8');
  assert.match(tools, /Name = "list_pets", Title = "List every pet"/);
  assert.equal(await readFile(program, 'utf8'), '// kept\n');
  assert.equal((await cli(['regenerate', '--project-dir', project, '--check'])).code, 0);

  const missing = await cli(['regenerate', '--project-dir', dir]);
  assert.equal(missing.code, EXIT_CODES.usage);
  assert.equal(missing.err, `error: ${join(dir, 'openapi-mcp.json')}: no openapi-mcp.json here: regenerate works in a project written by init\n`);
  await writeFile(join(project, 'openapi-mcp.json'), '{"spec": "../petstore.yaml", "serverName": "Petstore", "options": {"mode": "all"}}');
  const bad = await cli(['regenerate', '--project-dir', project]);
  assert.equal(bad.code, EXIT_CODES.usage);
  assert.equal(bad.err, `error: ${join(project, 'openapi-mcp.json')}#/options/mode: must be one of operations, discovery, code\n`);
});

test('init names the generator that runs it in Generated/<Name>.Generated.csproj.user, never npx; --generator puts a command of the user\'s in the generated project instead; init --check leaves the machine-local file out', async () => {
  const dir = scratchDir('generator');
  const project = join(dir, 'PetstoreMcp');
  const args = ['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', project, '--framework', 'net10.0'];
  assert.equal((await cli(args)).code, 0);
  const script = join(REPO, 'bin/openapi-mcp-dotnet.js');
  const user = await readFile(join(project, 'Generated/Petstore.Generated.csproj.user'), 'utf8');
  assert.ok(user.includes(`<OpenApiMcpGenerator Condition="'$(OpenApiMcpGenerator)' == ''">${generatorCommand({ node: process.execPath, script })}</OpenApiMcpGenerator>`), user);
  assert.doesNotMatch(await readFile(join(project, 'Petstore.csproj'), 'utf8'), /npx|OpenApiMcpGenerator|OpenApiMcpRegenerate/);
  const csproj = await readFile(join(project, 'Generated/Petstore.Generated.csproj'), 'utf8');
  assert.doesNotMatch(csproj, /npx|<OpenApiMcpGenerator /);
  assert.match(csproj, /Condition="'\$\(OpenApiMcpRegenerate\)' == 'true' and '\$\(OpenApiMcpGenerator\)' != ''"/);

  // Another machine's generator (or none) is no staleness of the generated code.
  await writeFile(join(project, 'Generated/Petstore.Generated.csproj.user'), '<Project />\n');
  assert.equal((await cli([...args, '--check'])).code, 0);

  const chosen = join(dir, 'ChosenMcp');
  assert.equal((await cli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', chosen, '--framework', 'net10.0', '--generator', 'npx --yes openapi-mcp-dotnet@0.1.0'])).code, 0);
  assert.match(await readFile(join(chosen, 'Generated/Petstore.Generated.csproj'), 'utf8'), /<OpenApiMcpGenerator Condition="'\$\(OpenApiMcpGenerator\)' == ''">npx --yes openapi-mcp-dotnet@0\.1\.0<\/OpenApiMcpGenerator>/);
  assert.ok(!existsSync(join(chosen, 'Generated/Petstore.Generated.csproj.user')));
  const empty = await cli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', join(dir, 'EmptyMcp'), '--generator', ' ']);
  assert.equal(empty.code, EXIT_CODES.usage);
  assert.equal(empty.err, 'error: --generator must not be empty (--no-regenerate leaves regeneration out)\n');
  assert.equal((await cli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', join(dir, 'NoneMcp'), '--framework', 'net10.0', '--no-regenerate'])).code, 0);
  assert.ok(!existsSync(join(dir, 'NoneMcp', 'Generated/Petstore.Generated.csproj.user')) && !existsSync(join(dir, 'NoneMcp', 'openapi-mcp.json')));
});

test('the generator command quotes a path for the shell MSBuild runs it with only when it must', () => {
  assert.equal(generatorCommand({ node: '/usr/bin/node', script: '/opt/omd/bin/openapi-mcp-dotnet.js' }, 'linux'), '/usr/bin/node /opt/omd/bin/openapi-mcp-dotnet.js');
  assert.equal(generatorCommand({ node: '/home/me/.nvm/node', script: "/home/me/it's here/$HOME/bin/openapi-mcp-dotnet.js" }, 'darwin'), `/home/me/.nvm/node '/home/me/it'\\''s here/$HOME/bin/openapi-mcp-dotnet.js'`);
  assert.equal(generatorCommand({ node: 'C:\\Program Files\\nodejs\\node.exe', script: 'C:\\tools\\100%\\bin\\openapi-mcp-dotnet.js' }, 'win32'), '"C:\\Program Files\\nodejs\\node.exe" "C:\\tools\\100%%\\bin\\openapi-mcp-dotnet.js"');
});
