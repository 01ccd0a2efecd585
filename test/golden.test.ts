import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GOLDEN_VARIANTS, goldenFilesOnDisk, goldenProject, variantGoldenFiles, type GoldenVariant } from './support/golden.js';

test('the generated example project matches the golden files (npm run golden:update refreshes them)', async () => {
  const generated = (await goldenProject()).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const onDisk = await goldenFilesOnDisk();
  assert.deepEqual(generated.map((f) => f.path), onDisk.map((f) => f.path));
  for (const file of generated) {
    const golden = onDisk.find((f) => f.path === file.path);
    assert.equal(file.content, golden?.content, `${file.path} differs from its golden file`);
  }
  assert.deepEqual(generated.map((f) => f.path), [
    'Client/ApiClient.g.cs', 'Client/ApiErrorMessages.g.cs', 'Client/ApiLongRunning.g.cs', 'Client/ApiRequest.g.cs', 'Client/ApiRequestBodies.g.cs', 'Client/ApiRequestSend.g.cs',
    'Client/ApiResponseRead.g.cs', 'Client/ApiRuntime.g.cs', 'Client/Models.g.cs', 'Generated/Petstore.Generated.csproj', 'Generated/Petstore.Generated.csproj.user', 'Mcp/McpArgumentErrors.cs', 'Mcp/McpAudit.cs', 'Mcp/McpCaller.cs', 'Mcp/McpHostSetup.cs',
    'Mcp/McpSettings.g.cs', 'Mcp/McpTelemetry.cs', 'Mcp/McpTelemetrySetup.cs', 'Mcp/McpToolCatalog.cs', 'Mcp/McpToolSupport.cs', 'McpTools.g.cs', 'Petstore.csproj', 'Program.cs', 'README.md', 'mcp.json', 'openapi-mcp.json',
  ]);
});

/**
 * What differs from the default project in each variant; everything else, the client and McpTools.g.cs included, is byte for
 * byte the same, and only discovery and code mode leave a file out: McpToolCatalog.cs, which serves operations mode's tools.
 */
const VARIANT_FILES: Record<GoldenVariant, string[]> = {
  discovery: ['Generated/Petstore.Generated.csproj', 'Mcp/McpDiscovery.cs', 'Mcp/McpSearch.cs', 'Mcp/McpSearchQuery.cs', 'McpDiscoveryText.g.cs', 'McpSearchIndex.g.json', 'Program.cs', 'README.md', 'openapi-mcp.json'],
  code: [
    'Generated/Petstore.Generated.csproj', 'Mcp/McpCode.cs', 'Mcp/McpDiscovery.cs', 'Mcp/McpScriptAdmission.cs', 'Mcp/McpScriptMemory.cs', 'Mcp/McpScriptPool.cs', 'Mcp/McpScriptProcess.cs', 'Mcp/McpScriptRunner.cs',
    'Mcp/McpScriptSandbox.cs', 'Mcp/McpSearch.cs', 'Mcp/McpSearchQuery.cs', 'Mcp/McpSettings.g.cs', 'McpDiscoveryText.g.cs', 'McpSearchIndex.g.json', 'McpSignatures.g.json',
    'Program.cs', 'README.md', 'openapi-mcp.json',
  ],
  http: ['.dockerignore', 'Dockerfile', 'Generated/Petstore.Generated.csproj', 'Mcp/McpHostSetup.cs', 'Mcp/McpHttpAccess.cs', 'Mcp/McpHttpLimits.cs', 'Mcp/McpHttpProxies.cs', 'Mcp/McpSettings.g.cs', 'Mcp/McpSharedState.cs', 'Mcp/McpTelemetrySetup.cs', 'Petstore.csproj', 'Program.cs', 'README.md', 'kubernetes.yaml', 'mcp.json'],
  package: ['.mcp/server.json', 'Petstore.csproj', 'README.md', 'mcp.json'],
  resources: ['Generated/Petstore.Generated.csproj', 'Mcp/McpResourceSupport.cs', 'McpResources.g.cs', 'Program.cs', 'openapi-mcp.json'],
};

for (const variant of Object.keys(GOLDEN_VARIANTS) as GoldenVariant[]) {
  test(`the ${variant} project (${JSON.stringify(GOLDEN_VARIANTS[variant].options)}) matches its golden files, which are what differs from the default project`, async () => {
    const generated = await variantGoldenFiles(variant);
    const onDisk = await goldenFilesOnDisk(GOLDEN_VARIANTS[variant].dir);
    assert.deepEqual(generated.map((f) => f.path).sort(), onDisk.map((f) => f.path));
    for (const file of generated) assert.equal(file.content, onDisk.find((f) => f.path === file.path)?.content, `${file.path} differs from its golden file`);
    assert.deepEqual(onDisk.map((f) => f.path), VARIANT_FILES[variant]);
    const paths = (await goldenProject(GOLDEN_VARIANTS[variant].options)).map((f) => f.path);
    assert.deepEqual((await goldenProject()).map((f) => f.path).filter((path) => !paths.includes(path)), variant === 'discovery' || variant === 'code' ? ['Mcp/McpToolCatalog.cs'] : []);
  });
}

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
