/**
 * `init --launch dnx`: the project packs, with `dotnet pack`, as a NuGet MCP server the way the .NET mcpserver
 * template makes one (a tool package of type McpServer carrying `.mcp/server.json`, valid against the MCP
 * Registry's schema), and `dnx` starts it from a local folder, offline, for the MCP client to list and call.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { callText, connect, readMcpEntry } from '../examples/harness.js';
import { REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';
import { aptInstall } from './support/debian.js';
import { SHARED_KEYS, SHARED_SPEC, startSharedApi, type SharedApi } from './support/shared-api.js';

/** A title with what MSBuild and XML would read as code: it must reach the package as text. */
const TITLE = 'Shared $(MSBuildProjectDirectory) @(Compile) %24 <items> & "more"';

/** dnx: on PATH, or beside the dotnet executable (where the SDK installs it). */
function dnxCommand(): string {
  if (spawnSync('dnx', ['--help'], { stdio: 'ignore' }).status === 0) return 'dnx';
  const dotnet = spawnSync('sh', ['-c', 'command -v dotnet'], { encoding: 'utf8' }).stdout.trim();
  const beside = join(dirname(realpathSync(dotnet)), 'dnx');
  assert.ok(existsSync(beside), `no dnx on PATH or at ${beside}`);
  return beside;
}

/** One file of a .nupkg (a zip). */
function unzipped(nupkg: string, path: string): string {
  if (spawnSync('unzip', ['-v'], { stdio: 'ignore' }).status !== 0) aptInstall('unzip');
  const result = spawnSync('unzip', ['-p', nupkg, path], { encoding: 'utf8' });
  assert.equal(result.status, 0, `unzip -p ${nupkg} ${path}: ${result.stderr}`);
  return result.stdout;
}

describe('a NuGet MCP server package started by dnx', () => {
  const work = scratchDir('nuget');
  const project = join(work, 'shared');
  const nupkg = join(project, 'nupkg', 'Shared.1.0.0.nupkg');
  let api: SharedApi;
  let client: Client | undefined;

  before(async () => {
    api = await startSharedApi();
    const spec = join(work, 'shared.yaml');
    await writeFile(spec, (await readFile(SHARED_SPEC, 'utf8')).replace('title: Shared items', `title: '${TITLE}'`));
    let out = '';
    assert.equal(await runCli(['init', '--openapi-url', spec, '--server-name', 'Shared', '--output-dir', project, '--launch', 'dnx'], { out: (t) => void (out += t), err: () => {} }), 0);
    assert.match(out, /Pack it: dotnet pack -c Release -o ".*\/nupkg"/);
    // The command the project's README gives, in the project folder.
    await promisify(execFile)('dotnet', ['pack', '-c', 'Release', '-o', 'nupkg', '-nologo', '-v:q', '-clp:NoSummary', '-warnaserror'], { cwd: project, maxBuffer: 64 * 1024 * 1024 });
  });

  after(async () => {
    await client?.close();
    await api?.close();
  });

  test('the package is a .NET tool of type McpServer, described as the spec says, carrying its README', () => {
    const nuspec = unzipped(nupkg, 'Shared.nuspec');
    assert.match(nuspec, /<packageType name="DotnetTool" \/>/);
    assert.match(nuspec, /<packageType name="McpServer" \/>/);
    assert.match(nuspec, /<readme>README.md<\/readme>/);
    const description = /<description>(.*)<\/description>/.exec(nuspec)?.[1]?.replace(/&(lt|gt|quot|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&' })[e] ?? '');
    assert.equal(description, `MCP server for ${TITLE}`);
    assert.match(unzipped(nupkg, 'README.md'), /dnx Shared@1\.0\.0 --yes/);
  });

  test('the package names no folder of the machine that built it (packed deterministically, source paths mapped)', () => {
    const listing = spawnSync('unzip', ['-Z1', nupkg], { encoding: 'utf8' }).stdout.split('\n').filter((name) => name !== '' && !name.endsWith('/'));
    assert.ok(listing.some((name) => name.endsWith('/Shared.dll')), listing.join(', '));
    for (const name of listing) {
      const bytes = spawnSync('unzip', ['-p', nupkg, name], { maxBuffer: 256 * 1024 * 1024 }).stdout as Buffer;
      assert.ok(!bytes.toString('latin1').includes(project), `${name} holds the builder's path ${project}`);
    }
  });

  test('.mcp/server.json validates against the MCP Registry schema and lists the settings, credentials as secrets', async () => {
    const schema = JSON.parse(await readFile(join(REPO, 'test/fixtures/mcp-registry/server.schema.json'), 'utf8')) as object;
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    const server = JSON.parse(unzipped(nupkg, '.mcp/server.json')) as { name: string; version: string; packages: { registryType: string; identifier: string; version: string; runtimeHint: string; transport: { type: string }; environmentVariables: { name: string; isSecret?: boolean }[] }[] };
    assert.ok(validate(server), ajv.errorsText(validate.errors));
    assert.equal(server.version, '1.0.0');
    const [pkg] = server.packages;
    assert.deepEqual({ ...pkg, environmentVariables: undefined }, { registryType: 'nuget', registryBaseUrl: 'https://api.nuget.org', identifier: 'Shared', version: '1.0.0', runtimeHint: 'dnx', transport: { type: 'stdio' }, environmentVariables: undefined });
    assert.deepEqual(pkg?.environmentVariables.map((v) => `${v.name}${v.isSecret ? ' (secret)' : ''}`), ['SHARED_BASE_URL', 'SHARED_TIMEOUT_SECONDS', 'SHARED_MAX_RESULT_LENGTH', 'SHARED_HEADERS (secret)', 'SHARED_USER_AGENT', 'SHARED_USER_KEY (secret)']);
  });

  test('mcp.json starts it with dnx; from the folder, offline, the client lists and calls its tools', async (t) => {
    const { entry } = await readMcpEntry(project);
    assert.deepEqual(entry, { command: 'dnx', args: ['Shared@1.0.0', '--yes'], env: { SHARED_USER_KEY: '<shared-user-key>' } });
    const started = Date.now();
    // --source: the local folder is the only feed; a NuGet cache of its own: nothing comes from elsewhere.
    client = await connect({ command: dnxCommand(), args: [...entry.args, '--source', join(project, 'nupkg')] }, {
      NUGET_PACKAGES: join(work, 'nuget-cache'), SHARED_BASE_URL: api.url, SHARED_USER_KEY: SHARED_KEYS.alice,
    });
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    t.diagnostic(`dnx (first start, empty cache) to tools/list: ${Date.now() - started} ms`);
    assert.deepEqual(tools, ['get_health', 'get_item']);
    const answer = JSON.parse(await callText(client, 'get_item', { id: 7 })) as { id: number; owner: string };
    assert.deepEqual([answer.id, answer.owner], [7, 'alice']);
    assert.deepEqual(api.keys, [SHARED_KEYS.alice]);
  });

  test('--package is for stdio servers: with --transport http it is a usage error', async () => {
    let err = '';
    const code = await runCli(['init', '--openapi-url', SHARED_SPEC, '--server-name', 'Shared', '--output-dir', join(work, 'http'), '--transport', 'http', '--package'], { out: () => {}, err: (t) => void (err += t) });
    assert.equal(code, 2);
    assert.match(err, /^error: --package: a NuGet MCP server is started by its client over stdio/);
    assert.ok(!existsSync(join(work, 'http')));
  });
});
