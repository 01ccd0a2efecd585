/**
 * `--resources` on a shared HTTP server (`--transport http --forward-auth X-Api-Token`): each caller's read goes to
 * the API with that caller's own key, as their tool calls do, and the key the API echoes back is redacted from the
 * resource. test/fixtures/shared.yaml, built once, one server on 127.0.0.1, two callers with the SDK's HTTP client.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { dotnetBuild } from '../examples/harness.js';
import { connectHttp, startReplica, type Replica } from './support/replicas.js';
import { FORWARD_HEADER, SHARED_KEYS, sharedInitArgs, sharedReplicaEnv, startSharedApi, type SharedApi } from './support/shared-api.js';
import { scratchDir } from './support/scratch.js';

/** The text of a read's one content. */
async function read(client: Client, uri: string): Promise<Record<string, unknown>> {
  const { contents } = await client.readResource({ uri });
  assert.equal(contents.length, 1);
  const [content] = contents;
  assert.ok(content !== undefined && 'text' in content, JSON.stringify(content));
  return JSON.parse(content.text) as Record<string, unknown>;
}

describe('resources on a shared HTTP server (--forward-auth)', () => {
  let api: SharedApi;
  let server: Replica;
  const clients: Client[] = [];

  before(async () => {
    const work = scratchDir('resources-http');
    assert.equal(await runCli([...sharedInitArgs(work), '--resources'], { out: () => {}, err: () => {} }), 0);
    const build = await dotnetBuild(work);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    api = await startSharedApi();
    server = await startReplica('resources', join(work, 'bin/Debug', detectFramework(), 'Shared.dll'), sharedReplicaEnv('resources', api.url, 'Warning'));
  });

  after(async () => {
    for (const client of clients) await client.close();
    server?.process.kill('SIGTERM');
    await api?.close();
  });

  const connect = async (headers: Record<string, string>): Promise<Client> => {
    const client = await connectHttp(server.url, headers);
    clients.push(client);
    return client;
  };

  test('the templates and resources of shared.yaml', async () => {
    const client = await connect({});
    assert.deepEqual((await client.listResourceTemplates()).resourceTemplates.map((t) => [t.name, t.uriTemplate]), [['get_item', 'shared://items/{id}{?delayMs}']]);
    assert.deepEqual((await client.listResources()).resources.map((r) => [r.name, r.uri]), [['get_health', 'shared://health']]);
  });

  test('each caller\'s read carries that caller\'s own key, and the key the API echoes is redacted', async () => {
    const alice = await connect({ [FORWARD_HEADER]: SHARED_KEYS.alice });
    const bob = await connect({ [FORWARD_HEADER]: SHARED_KEYS.bob });
    const before = api.keys.length;
    const [a, b] = await Promise.all([read(alice, 'shared://items/5?delayMs=50'), read(bob, 'shared://items/6')]);
    assert.deepEqual(a, { id: 5, owner: 'alice', key: '[redacted]' });
    assert.deepEqual(b, { id: 6, owner: 'bob', key: '[redacted]' });
    assert.deepEqual(api.keys.slice(before).sort(), [SHARED_KEYS.alice, SHARED_KEYS.bob].sort());
  });

  test('a caller without a key: an MCP error that says which header to send, and nothing reaches the API', async () => {
    const anonymous = await connect({});
    const before = api.byReplica.get('resources');
    const error = await anonymous.readResource({ uri: 'shared://items/1' }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof McpError, String(error));
    assert.match(error.message, new RegExp(FORWARD_HEADER));
    assert.equal(api.byReplica.get('resources'), before);
    assert.ok(!server.log().includes(SHARED_KEYS.alice) && !server.log().includes(SHARED_KEYS.bob));
  });
});
