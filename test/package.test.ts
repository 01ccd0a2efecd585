/**
 * The package as users get it: `npm pack`, installed into a prefix of its own without development
 * dependencies, run from a folder with no checkout around it, exactly as `npx openapi-mcp-dotnet` runs
 * it from the registry.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { appendFile, chmod, cp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from '../examples/harness.js';
import { detectFramework } from '../src/dotnet.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_SPEC, GOLDEN_DIR, GOLDEN_GENERATOR, REPO, goldenFilesOnDisk } from './support/golden.js';
import { generatorCommand } from '../src/emit/project/regenerate.js';
import { scratchDir } from './support/scratch.js';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const LIFECYCLE_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare', 'prepack', 'postpack'];

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  if (result.error) throw result.error;
  return result;
}

describe('the packed package', () => {
  const work = scratchDir('pack');
  const unpacked = join(work, 'unpacked');
  const prefix = join(work, 'prefix');
  let installed = '';
  let packageJson: { version: string; scripts?: Record<string, string> };

  before(async () => {
    const pack = run('npm', ['pack', '--json', '--pack-destination', work], REPO);
    assert.equal(pack.status, 0, pack.stderr);
    const [packed] = JSON.parse(pack.stdout) as { filename: string }[];
    const tarball = join(work, packed?.filename ?? '');
    await mkdir(unpacked);
    assert.equal(run('tar', ['-xzf', tarball, '-C', unpacked], work).status, 0);
    packageJson = JSON.parse(await readFile(join(unpacked, 'package/package.json'), 'utf8'));
    const install = run('npm', ['install', '--global', '--prefix', prefix, '--omit=dev', '--no-audit', '--no-fund', tarball], work);
    assert.equal(install.status, 0, install.stderr);
    installed = join(prefix, 'lib/node_modules/openapi-mcp-dotnet');
  });

  test('ships the license, no lifecycle script, and source maps that carry their sources', async () => {
    const root = join(unpacked, 'package');
    assert.match(await readFile(join(root, 'LICENSE'), 'utf8'), /^MIT License/);
    assert.deepEqual(Object.keys(packageJson.scripts ?? {}).filter((s) => LIFECYCLE_SCRIPTS.includes(s)), []);
    const maps = (await readdir(join(root, 'dist/src'), { recursive: true })).filter((f) => f.endsWith('.js.map'));
    assert.ok(maps.length > 20, `${maps.length} source maps`);
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(await readFile(join(root, 'dist/src', map), 'utf8')) as { sources: string[]; sourcesContent?: unknown[] };
      assert.equal(sourcesContent?.length, sources.length, `${map} has no sourcesContent`);
    }
    assert.ok(!existsSync(join(root, 'dist/test')) && !existsSync(join(root, 'src/cli.ts')), 'tests or TypeScript sources are shipped');
  });

  test('the installed command line loads its bundle with the code cache the build made, which this Node accepts', () => {
    const check = 'import("./bin/load-cli.js").then(({ loadCli }) => { const { cli, script } = loadCli(); '
      + 'process.stdout.write(JSON.stringify({ runCli: typeof cli.runCli, rejected: script.cachedDataRejected ?? "no cache" })); })';
    const result = run(process.execPath, ['--input-type=module', '-e', check], installed);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { runCli: 'function', rejected: false });
  });

  test('the installed command line bundles external $refs (its $ref bundler loaded on demand) and prints nothing but its summary', async () => {
    const dir = join(work, 'external-refs');
    await mkdir(dir);
    await writeFile(join(dir, 'pet.json'), JSON.stringify({ type: 'object', properties: { nickname: { type: 'string' } } }));
    await writeFile(join(dir, 'api.json'), JSON.stringify({
      openapi: '3.0.3', info: { title: 'Pets', version: '1' },
      paths: { '/pets': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: 'pet.json' } } } } } } } },
    }));
    const result = run(join(prefix, 'bin/openapi-mcp-dotnet'), ['client', '-u', 'api.json', '-o', 'out', '-n', 'Pets.Client'], dir);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, '');
    assert.match(await readFile(join(dir, 'out', 'Models.g.cs'), 'utf8'), /\[JsonPropertyName\("nickname"\)\]/);
  });

  test('installs without development dependencies', () => {
    for (const dev of ['typescript', 'esbuild', '@modelcontextprotocol/sdk']) {
      assert.ok(!existsSync(join(installed, 'node_modules', dev)), `${dev} was installed`);
    }
  });

  test('--version and init work from a folder with no checkout around it', async () => {
    const elsewhere = join(work, 'elsewhere');
    await mkdir(elsewhere);
    await cp(EXAMPLE_SPEC, join(elsewhere, 'petstore.yaml'));
    const bin = join(prefix, 'bin/openapi-mcp-dotnet');
    const version = run(bin, ['--version'], elsewhere);
    assert.equal(version.stdout, `${packageJson.version}\n`, version.stderr);

    const init = run(bin, ['init', '--openapi-url', 'petstore.yaml', '--server-name', 'Petstore', '--output-dir', 'PetstoreMcp', '--framework', 'net10.0'], elsewhere);
    assert.equal(init.status, 0, init.stderr);
    // The golden files are what init writes for the example, in /srv/petstore-mcp, with the generator installed on Debian:
    // here Generated/Petstore.Generated.csproj.user names the node that ran it and the script of the package as installed.
    const projectDir = join(elsewhere, 'PetstoreMcp');
    const generator = generatorCommand({ node: process.execPath, script: join(installed, 'bin/openapi-mcp-dotnet.js') });
    assert.match(await readFile(join(projectDir, 'Generated/Petstore.Generated.csproj.user'), 'utf8'), new RegExp(`>${escapeRegExp(generator)}</OpenApiMcpGenerator>`));
    for (const golden of await goldenFilesOnDisk()) {
      const written = await readFile(join(projectDir, golden.path), 'utf8');
      assert.equal(written.split(projectDir).join('/srv/petstore-mcp').split(generator).join(generatorCommand(GOLDEN_GENERATOR)), golden.content, `${golden.path} differs from ${join(GOLDEN_DIR, golden.path)}`);
    }
  });

  test('dotnet build regenerates the client and tools, with the generator that wrote the project and its overlays, when the spec or an overlay changed; it skips that step when not, and never runs npx', async () => {
    const folder = join(work, 'regenerated');
    await mkdir(folder);
    const spec = join(folder, 'petstore.yaml');
    await cp(EXAMPLE_SPEC, spec);
    const overlay = join(folder, 'titles.overlay.yaml');
    const titled = (title: string): string => `overlay: 1.0.0\ninfo: { title: Titles, version: 1.0.0 }\nactions:\n  - target: $.paths['/pets'].get\n    update: { summary: ${title} }\n`;
    await writeFile(overlay, titled('Every pet'));
    const bin = join(prefix, 'bin/openapi-mcp-dotnet');
    const init = run(bin, ['init', '--openapi-url', 'petstore.yaml', '--overlay', 'titles.overlay.yaml', '--server-name', 'Petstore', '--output-dir', 'PetstoreMcp'], folder);
    assert.equal(init.status, 0, init.stderr);
    const project = join(folder, 'PetstoreMcp');
    const tools = join(project, 'McpTools.g.cs');
    assert.match(await readFile(tools, 'utf8'), /Name = "list_pets", Title = "Every pet"/);
    assert.deepEqual(JSON.parse(await readFile(join(project, 'openapi-mcp.json'), 'utf8')).overlays, ['../titles.overlay.yaml']);

    // npx and npm, first on the PATH, leave a mark and fail; npm could not reach a registry anyway. The build runs the
    // generator Generated/Petstore.Generated.csproj.user names: this node and the installed package's script, as init ran.
    const fakes = join(work, 'no-npx');
    const marks = join(work, 'npx-ran');
    await mkdir(fakes);
    for (const name of ['npx', 'npm']) {
      await writeFile(join(fakes, name), `#!/bin/sh\necho "${name} $*" >> '${marks}'\nexit 1\n`);
      await chmod(join(fakes, name), 0o755);
    }
    const env = { ...process.env, PATH: `${fakes}:${process.env.PATH ?? ''}`, npm_config_offline: 'true', npm_config_registry: 'http://127.0.0.1:9/' };
    const dotnetBuild = (...extra: string[]): SpawnSyncReturns<string> => {
      const result = spawnSync('dotnet', ['build', project, '-nologo', '-v:n', '-warnaserror', ...extra], { cwd: folder, encoding: 'utf8', timeout: 300_000, env });
      if (result.error) throw result.error;
      return result;
    };
    const build = (...extra: string[]): SpawnSyncReturns<string> => {
      const result = dotnetBuild(...extra);
      assert.equal(result.status, 0, result.stdout.slice(-4000));
      return result;
    };
    const generator = generatorCommand({ node: process.execPath, script: join(installed, 'bin/openapi-mcp-dotnet.js') });
    const skipped = /Skipping target "OpenApiMcpRegenerate" because all output files are up-to-date/;
    assert.match(build().stdout, skipped, 'a fresh project regenerated');

    // An edit of the user's own code, and a file of their own added, compile the host alone: the generated project's
    // assembly is left as it was. The user's code sees the generated code's internal classes.
    const generatedDll = join(project, 'Generated/bin/Debug', detectFramework(), 'Petstore.Generated.dll');
    const hostDll = join(project, 'bin/Debug', detectFramework(), 'Petstore.dll');
    const [generatedBuilt, hostBuilt] = [(await stat(generatedDll)).mtimeMs, (await stat(hostDll)).mtimeMs];
    await appendFile(join(project, 'Program.cs'), '// an edit of the user\'s\n');
    await writeFile(join(project, 'UserNote.cs'), 'namespace Petstore;\n\ninternal static class UserNote\n{\n    internal const string Settings = nameof(McpSettings);\n}\n');
    build();
    assert.ok((await stat(hostDll)).mtimeMs > hostBuilt, 'the host was not compiled again');
    assert.equal((await stat(generatedDll)).mtimeMs, generatedBuilt, 'an edit of the host compiled the generated project again');

    await writeFile(spec, (await readFile(spec, 'utf8')).replace(/^paths:\n/m, 'paths:\n  /owners:\n    get:\n      operationId: listOwners\n      summary: List the owners\n      responses:\n        "200":\n          description: The owners\n          content:\n            application/json:\n              schema: { type: array, items: { type: string } }\n'));
    const regenerated = build();
    assert.doesNotMatch(regenerated.stdout, skipped);
    assert.ok((await stat(generatedDll)).mtimeMs > generatedBuilt, 'the regenerated code was not compiled');
    assert.ok(regenerated.stdout.includes(`${generator} regenerate`), `the build did not run ${generator}:\n${regenerated.stdout.slice(-4000)}`);
    const dll = join(project, 'bin/Debug', detectFramework(), 'Petstore.dll');
    const client = await connect({ command: 'dotnet', args: [dll] }, {});
    try {
      const listed = (await client.listTools()).tools;
      assert.ok(listed.some((t) => t.name === 'list_owners'), 'the new operation is not a tool');
      assert.equal(listed.find((t) => t.name === 'list_pets')?.title, 'Every pet', 'the overlay was not applied again');
    } finally {
      await client.close();
    }

    // An overlay is an input as the spec is: changing it regenerates.
    assert.match(build().stdout, skipped, 'an unchanged spec regenerated');
    await writeFile(overlay, titled('All the pets'));
    assert.doesNotMatch(build().stdout, skipped, 'a changed overlay did not regenerate');
    assert.match(await readFile(tools, 'utf8'), /Name = "list_pets", Title = "All the pets"/);

    const written = (await stat(tools)).mtimeMs;
    await writeFile(spec, (await readFile(spec, 'utf8')).replace('List the owners', 'List every owner'));
    assert.doesNotMatch(build('-p:OpenApiMcpRegenerate=false').stdout, /OpenApiMcpRegenerate:/);
    assert.equal((await stat(tools)).mtimeMs, written, 'McpTools.g.cs was written again');

    // Without Generated/Petstore.Generated.csproj.user (a clone on another machine) no generator is set: the build compiles what is there.
    const userFile = join(project, 'Generated/Petstore.Generated.csproj.user');
    const user = await readFile(userFile, 'utf8');
    await rm(userFile);
    assert.doesNotMatch(build().stdout, /OpenApiMcpRegenerate:/);
    assert.equal((await stat(tools)).mtimeMs, written, 'McpTools.g.cs was written without a generator');
    await writeFile(userFile, user);

    // A spec the generator refuses fails the build with the generator's own one-line error, and rewrites nothing.
    await writeFile(spec, 'openapi: 3.0.3\npaths: [\n');
    const failed = dotnetBuild();
    assert.notEqual(failed.status, 0);
    assert.match(failed.stdout, /error : .* regenerate failed \(exit code 3\): error: .*petstore\.yaml:\d+:\d+: /);
    assert.equal((await stat(tools)).mtimeMs, written, 'McpTools.g.cs was written by a failed run');
    assert.ok(!existsSync(marks), `npx or npm ran: ${existsSync(marks) ? await readFile(marks, 'utf8') : ''}`);
  });

  test('before it is built, the command says so in one line instead of a stack trace', async () => {
    const unbuilt = join(work, 'unbuilt');
    await cp(join(REPO, 'bin'), join(unbuilt, 'bin'), { recursive: true });
    await cp(join(REPO, 'package.json'), join(unbuilt, 'package.json'));
    const result = run(process.execPath, [join(unbuilt, 'bin/openapi-mcp-dotnet.js'), '--help'], unbuilt);
    assert.equal(result.status, 1);
    assert.equal(result.stderr, `error: openapi-mcp-dotnet is not built in ${unbuilt}/: run \`npm ci && npm run build\` there first\n`);
  });
});
