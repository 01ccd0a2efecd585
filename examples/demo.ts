/**
 * `npm run demo`: generate an MCP server for the bundled Petstore spec, build it, start the
 * bundled Petstore API on 127.0.0.1, connect a real MCP client, list the tools and call a few.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../src/cli.js';
import { startPetstoreApi } from './petstore-api.js';
import { callText, connect, dotnetBuild, readMcpEntry } from './harness.js';

const spec = fileURLToPath(new URL('../../examples/petstore.yaml', import.meta.url));
const directory = await mkdtemp(join(tmpdir(), 'petstore-mcp-'));
const say = (text: string): void => void process.stdout.write(text + '\n');

say(`$ openapi-mcp-dotnet init --openapi-url examples/petstore.yaml --server-name Petstore --output-dir ${directory}`);
if ((await runCli(['init', '--openapi-url', spec, '--server-name', 'Petstore', '--output-dir', directory])) !== 0) process.exit(1);

say(`\n$ dotnet build ${directory} -warnaserror`);
const build = await dotnetBuild(directory);
if (!build.ok) {
  say(build.output);
  process.exit(1);
}
say(`Build succeeded with ${build.warnings} warnings.`);

const api = await startPetstoreApi();
say(`\nPetstore API listening on ${api.url} (a free port, not the spec's 127.0.0.1:5080)`);
say(`The MCP client starts the server with PETSTORE_BASE_URL=${api.url}`);
const { entry } = await readMcpEntry(directory);
const client = await connect(entry, { PETSTORE_BASE_URL: api.url });
try {
  const { tools } = await client.listTools();
  say(`\ntools/list: ${tools.length} tools`);
  for (const tool of tools) say(`  ${tool.name.padEnd(16)} ${(tool.description ?? '').split('\n')[0]}`);

  const calls: [string, Record<string, unknown>][] = [
    ['list_pets', { species: 'dog' }],
    ['create_pet', { body: { name: 'Nala', species: 'cat', tag: 'demo' } }],
    ['get_pet', { petId: 4 }],
    ['update_pet', { petId: 4, body: { tag: 'adopted' } }],
    ['delete_pet', { petId: 4 }],
    ['get_pet', { petId: 4 }],
    ['create_pet', { body: { name: 'Nemo', species: 'fish' } }],
  ];
  for (const [name, args] of calls) {
    say(`\ntools/call ${name} ${JSON.stringify(args)}`);
    say(`  → ${await callText(client, name, args)}`);
  }
} finally {
  await client.close();
  await api.close();
  await rm(directory, { recursive: true, force: true });
}
