/**
 * Operations mode lists its tools from their attributes and makes each tool on its first call (McpToolCatalog.cs):
 * end to end over stdio, a generated server answers exactly as the same tools served the way it did before, every
 * tool made by the SDK at start (test/support/eager-host.ts): initialize, every tools/list page byte for byte (pages
 * cut by count and by bytes, output schemas, a tool written by hand beside the generated ones), and calls: answers,
 * API errors, argument errors, unknown tools, in two protocol versions. The API has schemas named as the protocol's
 * types (Tool, ToolAnnotations), which the server's own files use. One `dotnet build` for both hosts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { environmentVariables } from '../src/names/environment.js';
import { startPetstoreApi, type PetstoreApi } from '../examples/petstore-api.js';
import { connect } from '../examples/harness.js';
import { startRaw, writeEagerHost, type RawServer } from './support/eager-host.js';
import { EXAMPLE_SPEC } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

/** Synthetic operations beside the example's; those whose number starts with 1 take 90 more field names, so that some pages are cut by bytes. */
const EXTRA_OPERATIONS = 600;

/** The example API with EXTRA_OPERATIONS more operations (which its server does not have: 404). */
async function bigPetstore(): Promise<unknown> {
  const spec = parse(await readFile(EXAMPLE_SPEC, 'utf8')) as { info: Record<string, unknown>; paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
  // The reference host's serverInfo has no icon: the comparison is of the tools.
  delete spec.info['x-logo'];
  // Named as the protocol's own types, which the server's files use.
  spec.components.schemas.Tool = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } };
  spec.components.schemas.ToolAnnotations = { type: 'object', properties: { note: { type: 'string' } } };
  for (let i = 0; i < EXTRA_OPERATIONS; i++) {
    const more = String(i).startsWith('1') ? Array.from({ length: 90 }, (_, k) => `field_${k}_with_a_longer_name`) : [];
    spec.paths[`/gadgets${i}/{id}`] = {
      get: {
        operationId: `getGadget${i}`,
        summary: `Get gadget ${i}`,
        description: `Gadget ${i}.`,
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          { name: 'fields', in: 'query', schema: { type: 'array', items: { type: 'string', enum: ['name', 'size', 'color', ...more] } } },
        ],
        responses: { 200: { description: 'OK', content: { 'application/json': { schema: { $ref: `#/components/schemas/${i % 2 === 0 ? 'Tool' : 'ToolAnnotations'}` } } } } },
      },
    };
  }
  return spec;
}

/** A tool written by hand beside the generated ones, in another part of McpTools, without an [InputSchema]. */
const HAND_WRITTEN = `#nullable enable
using System.ComponentModel;
using System.Linq;
using ModelContextProtocol.Server;

namespace Lazy;

public static partial class McpTools
{
    [McpServerTool(Name = "repeat_note"), Description("Repeats a note (written by hand).")]
    public static string RepeatNote([Description("The note.")] string note, int times = 2) => string.Concat(Enumerable.Repeat(note, times));
}
`;

const CALLS: [string, Record<string, unknown>][] = [
  ['list_pets', { species: 'cat', limit: 10 }],
  ['get_pet', { petId: 1 }],
  ['get_pet', { petId: 1 }],
  ['get_pet', { petId: 99999 }],
  ['get_pet', { petId: 'one' }],
  ['get_pet', {}],
  ['list_pets', { limit: 500 }],
  ['create_pet', { body: { name: 'Rex', species: 'dog', extra: 1 } }],
  ['get_gadgets_7', { id: 3, fields: ['size'] }],
  ['get_gadgets_7', { id: 0, fields: ['weight'] }],
  ['get_gadgets', { id: 1 }],
  ['repeat_note', { note: 'ab', times: 3 }],
  ['repeat_note', { times: 3 }],
];

interface Session { initialize: unknown; pages: Record<string, unknown>[]; badCursor: unknown; calls: unknown[] }

/** Everything a client sees of a server in one session. */
async function session(server: RawServer, protocolVersion: string): Promise<Session> {
  const initialize = await server.request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'lazy-tools-test', version: '1.0.0' } });
  server.notify('notifications/initialized');
  const pages: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await server.request('tools/list', cursor === undefined ? {} : { cursor });
    pages.push(page);
    cursor = (page.result as { nextCursor?: string } | undefined)?.nextCursor;
  } while (cursor !== undefined && pages.length < 100);
  const badCursor = await server.request('tools/list', { cursor: '%%%' });
  const calls = [];
  for (const [name, args] of CALLS) calls.push(await server.request('tools/call', { name, arguments: args }));
  return { initialize, pages, badCursor, calls };
}

describe('operations mode: tools listed from their attributes and made on their first call', () => {
  let work = '';
  let api: PetstoreApi;
  let baseUrl = '';
  const dll = (folder: string, name: string): string => join(work, folder, 'bin/Debug', detectFramework(), `${name}.dll`);
  const sessions = new Map<string, { lazy: Session; eager: Session }>();

  before(async () => {
    work = scratchDir('lazy-tools');
    await writeFile(join(work, 'lazy.json'), JSON.stringify(await bigPetstore()));
    const quiet = { out: () => {}, err: () => {} };
    assert.equal(await runCli(['init', '--openapi-url', join(work, 'lazy.json'), '--server-name', 'Lazy', '--output-dir', join(work, 'lazy'), '--structured-output'], quiet), 0);
    // Beside the generated project's file: a part of McpTools compiles with the rest of the class.
    await writeFile(join(work, 'lazy/Generated/HandWritten.cs'), HAND_WRITTEN);
    baseUrl = environmentVariables('Lazy').baseUrl;
    await writeEagerHost(join(work, 'eager'), '../lazy', 'Lazy', 'lazy', baseUrl, detectFramework());
    await writeFile(join(work, 'all.slnx'), '<Solution>\n  <Project Path="lazy/Lazy.csproj" />\n  <Project Path="eager/Eager.csproj" />\n</Solution>\n');
    const build = await promisify(execFile)('dotnet', ['build', join(work, 'all.slnx'), '-warnaserror', '-nologo', '-clp:NoSummary', '-p:OpenApiMcpRegenerate=false'], { maxBuffer: 64 * 1024 * 1024 })
      .then(({ stdout }) => stdout, (error: { stdout?: string; stderr?: string }) => assert.fail(`${error.stdout ?? ''}${error.stderr ?? ''}`));
    assert.doesNotMatch(build, /warning [A-Z]+\d+/);
    api = await startPetstoreApi();
    for (const protocolVersion of ['2025-06-18', '2026-07-28']) {
      const run = async (folder: string, name: string): Promise<Session> => {
        const server = startRaw(dll(folder, name), { [baseUrl]: api.url });
        try {
          return await session(server, protocolVersion);
        } finally {
          await server.close();
        }
      };
      sessions.set(protocolVersion, { lazy: await run('lazy', 'Lazy'), eager: await run('eager', 'Eager') });
    }
  });

  after(async () => {
    await api?.close();
  });

  const tools = (s: Session): { name: string; outputSchema?: unknown }[] =>
    s.pages.flatMap((page) => (page.result as { tools: { name: string }[] }).tools);

  test('initialize and every tools/list page are byte for byte those of the tools made at start', () => {
    for (const [version, { lazy, eager }] of sessions) {
      assert.equal(JSON.stringify(lazy.initialize), JSON.stringify(eager.initialize), version);
      assert.deepEqual(lazy.pages.map((p) => JSON.stringify(p)), eager.pages.map((p) => JSON.stringify(p)), version);
      assert.deepEqual(lazy.badCursor, eager.badCursor);
    }
    const { lazy } = sessions.get('2025-06-18')!;
    const listed = tools(lazy);
    assert.equal(listed.length, 7 + EXTRA_OPERATIONS + 1);
    assert.ok(['repeat_note', 'get_gadgets_599', 'list_pets'].every((name) => listed.some((t) => t.name === name)));
    assert.ok(listed.filter((t) => t.outputSchema !== undefined).length > EXTRA_OPERATIONS, 'structured output');
    // Pages end at 200 tools or at 256 KiB, whichever comes first: both happen here.
    const sizes = lazy.pages.map((p) => (p.result as { tools: unknown[] }).tools.length);
    assert.ok(sizes.includes(200) && sizes.slice(0, -1).some((n) => n < 200), sizes.join());
    assert.match(JSON.stringify(lazy.badCursor), /Invalid cursor \\"%%%\\"/);
  });

  test('calls answer as the tools made at start do: answers, API errors, argument errors, unknown tools, a tool written by hand', () => {
    for (const [version, { lazy, eager }] of sessions) {
      CALLS.forEach(([name, args], i) => assert.deepEqual(lazy.calls[i], eager.calls[i], `${version}: ${name} ${JSON.stringify(args)}`));
    }
    const calls = sessions.get('2025-06-18')!.lazy.calls as { result?: { content: { text: string }[]; isError?: boolean; structuredContent?: unknown }; error?: { message: string } }[];
    const text = (i: number): string => calls[i]?.result?.content[0]?.text ?? `no answer: ${JSON.stringify(calls[i])}`;
    assert.match(text(1), /^\{"id":1,"name":"Rex"/);
    assert.deepEqual(calls[1]?.result?.structuredContent, JSON.parse(text(1)));
    assert.equal(text(2), text(1), 'the second call of a tool, made by the first');
    assert.match(text(3), /^Error: .*404/);
    assert.equal(text(4), "Error: invalid arguments for get_pet: 'petId' must be an integer");
    assert.equal(text(5), "Error: invalid arguments for get_pet: 'petId' is required");
    assert.equal(calls[5]?.result?.isError, true);
    assert.match(text(7), /'body\.extra' is not a property of body/);
    assert.match(text(8), /^Error: .*404/);
    assert.match(text(9), /^Error: invalid arguments for get_gadgets_7: 'id' must be at least 1/);
    assert.equal(calls[10]?.error?.message, "Unknown tool: 'get_gadgets'");
    assert.equal(text(11), 'ababab');
  });

  test('the MCP SDK client lists and calls the tools as it does the tools made at start, structured content checked', async () => {
    const lazy = await connect({ command: 'dotnet', args: [dll('lazy', 'Lazy')] }, { [baseUrl]: api.url });
    const eager = await connect({ command: 'dotnet', args: [dll('eager', 'Eager')] }, { [baseUrl]: api.url });
    try {
      const all = async (client: Client): Promise<unknown[]> => {
        const listed = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor });
          listed.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        return listed;
      };
      const listed = await all(lazy);
      assert.equal(listed.length, 7 + EXTRA_OPERATIONS + 1);
      assert.deepEqual(listed, await all(eager));
      // The SDK client checks structuredContent against the listed outputSchema, and fails a call whose does not fit.
      for (const [name, args] of [['get_pet', { petId: 1 }], ['list_pets', { limit: 2 }], ['get_gadgets_8', { id: 1 }]] as const) {
        assert.deepEqual(await lazy.callTool({ name, arguments: args }), await eager.callTool({ name, arguments: args }), name);
      }
      assert.ok(((await lazy.callTool({ name: 'get_pet', arguments: { petId: 1 } })) as { structuredContent?: unknown }).structuredContent !== undefined);
    } finally {
      await Promise.all([lazy.close(), eager.close()]);
    }
  });
});
