import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DISCOVERY_GOLDEN_DIR, discoveryGoldenFiles, goldenFilesOnDisk, goldenProject } from './support/golden.js';

test('the generated example project matches the golden files (npm run golden:update refreshes them)', async () => {
  const generated = (await goldenProject()).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const onDisk = await goldenFilesOnDisk();
  assert.deepEqual(generated.map((f) => f.path), onDisk.map((f) => f.path));
  for (const file of generated) {
    const golden = onDisk.find((f) => f.path === file.path);
    assert.equal(file.content, golden?.content, `${file.path} differs from its golden file`);
  }
  assert.deepEqual(generated.map((f) => f.path), [
    'Client/ApiClient.g.cs', 'Client/ApiErrorMessages.g.cs', 'Client/ApiRequest.g.cs', 'Client/ApiRequestBodies.g.cs', 'Client/ApiRequestSend.g.cs',
    'Client/ApiRuntime.g.cs', 'Client/Models.g.cs', 'McpArgumentErrors.cs', 'McpToolSupport.cs', 'McpTools.g.cs', 'Petstore.csproj', 'Program.cs', 'README.md', 'mcp.json',
  ]);
});

test('the discovery-mode project matches its golden files: the same client and tools, a host with the discovery tools and the index', async () => {
  const generated = await discoveryGoldenFiles();
  const onDisk = await goldenFilesOnDisk(DISCOVERY_GOLDEN_DIR);
  assert.deepEqual(generated.map((f) => f.path).sort(), onDisk.map((f) => f.path));
  for (const file of generated) assert.equal(file.content, onDisk.find((f) => f.path === file.path)?.content, `${file.path} differs from its golden file`);
  // Everything else, the client and McpTools.g.cs included, is byte for byte the operations-mode project's.
  assert.deepEqual(onDisk.map((f) => f.path), ['McpDiscovery.cs', 'McpSearch.cs', 'McpSearchIndex.g.json', 'Petstore.csproj', 'Program.cs', 'README.md']);
});

test('generating twice gives identical bytes', async () => {
  const first = await goldenProject();
  const second = await goldenProject();
  assert.deepEqual(second, first);
});

test('generated files use LF line endings only and end with a newline', async () => {
  for (const file of await goldenProject()) {
    assert.ok(!file.content.includes('\r'), `${file.path} has CR characters`);
    assert.ok(file.content.endsWith('\n'), `${file.path} does not end with a newline`);
  }
});
