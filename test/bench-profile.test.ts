import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { summarizeProfile } from '../scripts/bench/profile.js';

test('bench profiles: self time of the bundle is given to the module it came from, nested folders by their own path', () => {
  const root = mkdtempSync(join(tmpdir(), 'omd-profile-'));
  try {
    mkdirSync(join(root, 'dist'));
    const bundle = join(root, 'dist', 'cli.cjs');
    // esbuild's layout: a `// path` marker above each module's code.
    const lines = [
      '"use strict";',
      '// node_modules/yaml/dist/index.js',
      'function parseYaml() {}',
      '// dist/src/model/build.js',
      'function buildModel() {}',
      '// dist/src/emit/tools/input-schema.js',
      'function inputSchemaText() {}',
      '// dist/src/emit/client/client.js',
      'function emitClient() {}',
      '// dist/src/generate.js',
      'function generateProject() {}',
    ];
    writeFileSync(bundle, lines.join('\n'));
    const url = pathToFileURL(bundle).href;
    const frame = (id: number, functionName: string, lineNumber: number, children: number[] = []): object => ({ id, callFrame: { functionName, url: functionName.startsWith('(') ? '' : url, lineNumber }, children });
    const profile = {
      nodes: [
        frame(1, '(root)', -1, [2, 7]),
        frame(2, 'generateProject', 10, [3, 4, 5, 6]),
        frame(3, 'buildModel', 4),
        frame(4, 'inputSchemaText', 6),
        frame(5, 'emitClient', 8),
        frame(6, 'parseYaml', 2),
        frame(7, '(garbage collector)', -1),
      ],
      // Microseconds: 3 ms model, 5 ms tool schemas, 2 ms client, 1 ms yaml, 1 ms generate itself, 4 ms GC.
      samples: [3, 4, 5, 6, 2, 7],
      timeDeltas: [3000, 5000, 2000, 1000, 1000, 4000],
    };
    const file = join(root, 'run.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    const summary = summarizeProfile(file, 10);
    const areas = Object.fromEntries(summary.areas.map((a) => [a.name, a.milliseconds]));
    assert.deepEqual(areas, { 'src/emit/tools': 5, GC: 4, 'src/model': 3, 'src/emit/client': 2, 'dependency yaml': 1, 'src/*.ts': 1 });
    assert.equal(summary.totalMs, 16);
    assert.equal(summary.gcMs, 4);
    const inclusive = Object.fromEntries(summary.inclusive.map((e) => [e.name, e.milliseconds]));
    assert.equal(inclusive['generateProject (src/generate.ts)'], 12);
    assert.equal(inclusive['inputSchemaText (src/emit/tools/input-schema.ts)'], 5);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
