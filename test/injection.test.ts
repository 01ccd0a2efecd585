/**
 * Injection: everything taken from the spec is escaped for where it lands (string literals, XML doc
 * comments, `//` comments, attribute arguments, identifiers, JSON). fast-check, with a fixed seed, makes
 * hostile OpenAPI documents (quotes, backslashes, `*\/`, `</summary>`, `<![CDATA[`, line breaks of every
 * kind, `#if`, braces, NUL, lone surrogates, 5,000-character strings, keywords, leading digits…); the
 * library generates each into its own namespaces of one console project, which is built once with
 * warnings as errors and XML docs checked, then run once: it prints by reflection what it declares, which
 * must be exactly what the naming plan says (an injected `class Evil` or member would show), with the
 * descriptions the emitter meant (search_operations' too, with the map of the spec's tags: McpDiscoveryText.g.cs). Set OMD_KEEP_INJECTION=1 to keep the generated folder.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import fc from 'fast-check';
import { GeneratorError, generateClient, generateProject, generateTools, planNames, prepare, type NamePlan, type PreparedApi } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { FIXED_SPECS, LONG_FRAGMENT, SEED, hostile, sampleSpecs, specArbitrary } from './support/injection/specs.js';
import { buildBatch, diagnosticLines, inspectBatch, parseLocation, sourceExcerpt, writeBatchProject, type BuildResult, type TypeInfo } from './support/injection/batch.js';
import { declarationProblems, runtimeTypeNames, type RuntimeTypes } from './support/injection/expected.js';
import { searchMap } from '../src/emit/discovery/search-map.js';
import { DISCOVERY_TEXT_FILE } from '../src/emit/discovery/discovery.js';

/** Random documents in the batch; with the hand-written ones, about 30 specs in one build. */
const RANDOM_SPECS = 25;

interface Spec {
  readonly index: number;
  readonly label: string;
  readonly doc: Record<string, unknown>;
  api?: PreparedApi;
  plan?: NamePlan;
  /** Types of the runtime files copied into the client (everything but ApiClient.g.cs and Models.g.cs). */
  runtimeTypes?: RuntimeTypes;
  error?: string;
}

const specs: Spec[] = [
  ...sampleSpecs(RANDOM_SPECS).map((doc, i) => ({ label: `random #${i} of seed ${SEED}`, doc })),
  ...FIXED_SPECS.map((f) => ({ label: f.name, doc: f.doc })),
].map((s, index) => ({ ...s, index }));

/** Generates spec `s` as the CLI's `client` and `tools --mode discovery` commands do (the index aside), into `s<i>/` of the batch. */
async function generate(spec: Spec, specDir: string, batchDir: string): Promise<void> {
  const file = join(specDir, `s${spec.index}.json`);
  await writeFile(file, JSON.stringify(spec.doc, null, 2));
  try {
    const api = await prepare(file);
    const namespace = `S${spec.index}`;
    const clientNamespace = `${namespace}.Client`;
    const folder = join(batchDir, `s${spec.index}`);
    const client = generateClient(api, { namespace: clientNamespace });
    const tools = generateTools(api, { namespace, clientNamespace, mode: 'discovery' });
    for (const f of client) {
      await mkdir(dirname(join(folder, 'Client', f.path)), { recursive: true });
      await writeFile(join(folder, 'Client', f.path), f.content);
    }
    await writeFile(join(folder, 'McpTools.g.cs'), tools.content);
    for (const f of tools.beside.filter((b) => b.path === DISCOVERY_TEXT_FILE)) await writeFile(join(folder, f.path), f.content);
    spec.api = api;
    spec.plan = planNames(api.model, clientNamespace);
    spec.runtimeTypes = runtimeTypeNames(client.filter((f) => f.path !== 'ApiClient.g.cs' && f.path !== 'Models.g.cs').map((f) => f.content));
  } catch (error) {
    spec.error = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack?.split('\n').slice(1, 4).join('\n') ?? ''}` : String(error);
  }
}

/** Every string in a document, keys included. */
function strings(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(strings);
  if (node !== null && typeof node === 'object') return Object.entries(node).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

describe('hostile specs: everything from the spec is escaped where it lands', () => {
  let root = '';
  let batchDir = '';
  let framework = '';
  let build: BuildResult = { ok: false, output: 'not built', seconds: 0 };
  let diagnostics: string[] = [];
  let types: TypeInfo[] | undefined;
  let inspectError = '';

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'omd-injection-'));
    batchDir = join(root, 'batch');
    const specDir = join(root, 'specs');
    await mkdir(specDir, { recursive: true });
    await mkdir(batchDir, { recursive: true });
    for (const spec of specs) await generate(spec, specDir, batchDir);
    framework = detectFramework();
    await writeBatchProject(batchDir, framework);
    build = await buildBatch(batchDir);
    diagnostics = diagnosticLines(build.output);
    process.stderr.write(`# injection: ${specs.length} specs, ${specs.filter((s) => s.api).length} generated, dotnet build ${build.seconds.toFixed(1)} s, ${diagnostics.length} diagnostics, folder ${root}\n`);
    if (build.ok) {
      try {
        types = await inspectBatch(batchDir, framework);
      } catch (error) {
        inspectError = error instanceof Error ? error.message : String(error);
      }
    }
  });

  after(async () => {
    if (root && !process.env.OMD_KEEP_INJECTION) await rm(root, { recursive: true, force: true });
  });

  /** Diagnostics of the files under `s<i>/`, with the generated lines they point at. */
  async function diagnosticsOf(index: number): Promise<string> {
    const marker = `${sep}batch${sep}s${index}${sep}`;
    const mine = diagnostics.filter((d) => d.includes(marker));
    const shown = await Promise.all(mine.slice(0, 12).map(async (d) => {
      const at = parseLocation(d);
      return `${d.length > 400 ? d.slice(0, 400) + '…' : d}\n${at ? await sourceExcerpt(at.file, at.line) : ''}`;
    }));
    return shown.join('\n') + (mine.length > 12 ? `\n… and ${mine.length - 12} more` : '');
  }

  test('the documents really are hostile', () => {
    const all = specs.flatMap((s) => strings(s.doc));
    const text = all.join('\u0001');
    for (const fragment of ['"', '\\', '*/', '</summary>', '<![CDATA[', ']]>', '\r\n', '\u2028', '\u2029', '\u0085', '#if DEBUG', '{0}', '\u0000', '\ud800', '😀', '"); System.Environment.Exit(1); //', 'class', '2nd']) {
      assert.ok(text.includes(fragment), `no generated string contains ${JSON.stringify(fragment)}`);
    }
    assert.ok(all.some((s) => s.length >= LONG_FRAGMENT.length), 'no string of 5,000 characters');
    const maps = specs.flatMap((s) => (s.api ? [searchMap(s.api.model.operations)] : []));
    assert.ok(maps.some((m) => m.startsWith('Tags: ') && /["\\]|\*\/|<\/summary>/.test(m)), 'no map of search_operations lists a hostile tag');
    const randomDocs = specs.slice(0, RANDOM_SPECS).map((s) => s.doc);
    assert.ok(randomDocs.some((d) => d.openapi === '3.0.3') && randomDocs.some((d) => d.openapi === '3.1.0'), 'both OpenAPI 3.0 and 3.1');
    const operations = randomDocs.flatMap((d) => Object.values(d.paths as Record<string, Record<string, { parameters?: { in: string }[] }>>).flatMap((item) => Object.values(item)));
    for (const location of ['path', 'query', 'header', 'cookie']) {
      assert.ok(operations.some((op) => op.parameters?.some((p) => p.in === location)), `no ${location} parameter`);
    }
    assert.equal(new Set(randomDocs.map((d) => JSON.stringify(d))).size, RANDOM_SPECS, 'the sample repeats itself');
  });

  test('the batch builds with no error and no warning', async () => {
    const outside = diagnostics.filter((d) => !/[\\/]batch[\\/]s\d+[\\/]/.test(d));
    const bySpec = new Map<number, number>();
    for (const d of diagnostics) {
      const match = /[\\/]batch[\\/]s(\d+)[\\/]/.exec(d);
      if (match) bySpec.set(Number(match[1]), (bySpec.get(Number(match[1])) ?? 0) + 1);
    }
    const summary = [...bySpec].map(([i, n]) => `s${i} (${specs[i]?.label}): ${n}`).join('; ');
    assert.deepEqual(diagnostics, [], `diagnostics by spec: ${summary}\noutside the specs: ${outside.slice(0, 5).join('\n')}\n(a syntax error anywhere hides the semantic errors of every spec)`);
    assert.ok(build.ok, build.output.slice(-4000));
  });

  test('outside the S* namespaces the assembly holds only the inspector and what the compiler embeds', () => {
    assert.ok(types, `not inspected: ${inspectError || 'the batch did not build'}`);
    const generated = new Set(specs.flatMap((s) => [`S${s.index}`, `S${s.index}.Client`]));
    const others = types
      .filter((t) => !t.name.includes('<') && t.declaringType === null)
      .filter((t) => !generated.has(t.namespace ?? ''))
      .filter((t) => t.namespace !== 'Microsoft.CodeAnalysis' && t.namespace !== 'System.Runtime.CompilerServices')
      .map((t) => t.fullName);
    assert.deepEqual(others, ['InjectionInspector.Inspector']);
    for (const spec of specs.filter((s) => s.runtimeTypes)) {
      for (const name of ['ApiResult`1', 'ApiError', 'ApiRequest', 'ApiJson', 'ApiErrorMessages', 'ApiFile', 'ApiResponseKind', 'ApiQueryStyle']) {
        assert.ok(spec.runtimeTypes?.topLevel.includes(name), `s${spec.index}: runtime type ${name} not found in the runtime files (${spec.runtimeTypes?.topLevel.join(', ')})`);
      }
    }
  });

  for (const spec of specs) {
    describe(`s${spec.index}: ${spec.label}`, () => {
      test('generates', () => {
        assert.equal(spec.error, undefined, `generation failed for ${JSON.stringify(spec.doc).slice(0, 2000)}`);
      });

      test('compiles with no error or warning in its files', async () => {
        assert.ok(spec.api, 'not generated');
        assert.equal(await diagnosticsOf(spec.index), '');
      });

      test('declares exactly the planned types and members, with the intended texts', () => {
        assert.ok(spec.api && spec.plan && spec.runtimeTypes, 'not generated');
        assert.ok(types, `not inspected: ${inspectError || 'the batch did not build (see the build test)'}`);
        assert.deepEqual(declarationProblems(spec.index, spec.api, spec.plan, spec.runtimeTypes, spec.doc, types), []);
      });
    });
  }

  /** A spec with hostile texts for the project tests, and the server names and folders to try. */
  async function projectInputs(): Promise<{ api: PreparedApi; serverName: fc.Arbitrary<string>; folder: fc.Arbitrary<string> }> {
    const file = join(root, 'project-spec.json');
    await writeFile(file, JSON.stringify({
      openapi: '3.0.3',
      info: { title: '"</summary>\u2028*/', version: '1\\"' },
      servers: [{ url: 'http://127.0.0.1:1/"\\' }],
      paths: { '/pets/{id}': { get: { summary: '#if DEBUG', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', enum: ['"', '\\'] } }], responses: { '200': { description: 'ok' } } } } },
    }));
    return {
      api: await prepare(file),
      // What the CLI's server-name check lets through: no control characters, quotes or backslashes, not blank.
      serverName: hostile.map((s) => s.replace(/[\u0000-\u001f"\\]/g, '')).filter((s) => s.trim() !== ''),
      folder: hostile.map((s) => join(root, s.replace(/\u0000/g, ''))),
    };
  }

  test('init accepts every server name the server-name check accepts', async () => {
    const { api, serverName } = await projectInputs();
    fc.assert(
      fc.property(serverName, (name) => {
        generateProject(api, { serverName: name, outputDir: root, framework: 'net10.0' });
      }),
      { seed: SEED, numRuns: 300, examples: [['İzmir']] },
    );
  });

  test('mcp.json is valid JSON of the expected shape for any server name and folder', async () => {
    const { api, serverName, folder } = await projectInputs();
    fc.assert(
      fc.property(serverName, folder, (name, outputDir) => {
        let files;
        try {
          files = generateProject(api, { serverName: name, outputDir, framework: 'net10.0' }).files;
        } catch (error) {
          if (error instanceof GeneratorError && error.kind === 'usage') return; // the test above reports these
          throw error;
        }
        const config = files.find((f) => f.path === 'mcp.json');
        assert.ok(config, 'no mcp.json');
        assert.ok(config.content.endsWith('\n'));
        assert.deepEqual(JSON.parse(config.content), { mcpServers: { [name.trim().toLowerCase()]: { command: 'dotnet', args: ['run', '--project', resolve(outputDir)] } } });
      }),
      { seed: SEED, numRuns: 300, examples: [['a </summary> \u2028 {0} */ name', join(root, 'we"ird\\dir \u2028 {0} */')]] },
    );
  });

  test('generating never throws, whatever the strings (property; a failure shrinks to a small spec)', async () => {
    const dir = join(root, 'property');
    await mkdir(dir, { recursive: true });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(specArbitrary, async (doc) => {
        const file = join(dir, `p${n++}.json`);
        await writeFile(file, JSON.stringify(doc));
        const api = await prepare(file);
        generateClient(api, { namespace: 'P.Client' });
        generateTools(api, { namespace: 'P', clientNamespace: 'P.Client' });
      }),
      { seed: SEED + 1, numRuns: 150, endOnFailure: false },
    );
  });
});
