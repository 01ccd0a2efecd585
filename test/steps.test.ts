/**
 * The step-by-step flow of SPEC 1.5 as docs/commands.md shows it: `client`, `tools` and `host` into one folder give a
 * project that builds without warnings and serves the tools, with credentials wired from the spec.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../src/index.js';
import { callText, connect, dotnetBuild } from '../examples/harness.js';
import { startAuthApi, SECRETS } from './fixtures/auth-api.js';
import { REPO } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

test('client + tools + host build and serve like init', async () => {
  const dir = scratchDir('steps');
  const spec = join(REPO, 'test/fixtures/auth.yaml');
  const io = { out: () => {}, err: (t: string) => void process.stderr.write(t) };
  try {
    assert.equal(await runCli(['client', '-u', spec, '-o', join(dir, 'Client'), '-n', 'Library.Client'], io), 0);
    assert.equal(await runCli(['tools', '--openapi-url', spec, '--output-file', join(dir, 'McpTools.g.cs'), '--namespace', 'Library', '--server-name', 'Library', '--ext-namespace', 'Library.Client', '--tags', ''], io), 0);
    assert.equal(await runCli(['host', '--output-dir', dir, '--server-name', 'Library', '--namespace', 'Library', '--ext-namespace', 'Library.Client', '--openapi-url', spec], io), 0);
    assert.deepEqual((await readdir(dir)).sort(), ['Client', 'Generated', 'Library.csproj', 'Mcp', 'McpTools.g.cs', 'Program.cs']);
    const build = await dotnetBuild(dir);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    const api = await startAuthApi();
    const client = await connect({ command: 'dotnet', args: ['run', '--project', dir] }, { LIBRARY_BASE_URL: api.url, LIBRARY_API_KEY: SECRETS.apiKey });
    try {
      assert.equal((await client.listTools()).tools.length, 10);
      assert.equal(await callText(client, 'get_header'), '{"ok":true,"via":"header"}');
      assert.equal(await callText(client, 'get_basic'), 'Error: GET /basic was not sent: it needs credentials: set LIBRARY_BASIC_AUTH_USERNAME and LIBRARY_BASIC_AUTH_PASSWORD');
    } finally {
      await client.close();
      await api.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
