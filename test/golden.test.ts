import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goldenFilesOnDisk, goldenProject } from './support/golden.js';

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
