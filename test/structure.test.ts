/**
 * The shape of the code base: no import cycles (type-only imports included) and no TypeScript file over 350 lines,
 * in the generator, its scripts, tests and examples.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REPO } from './support/golden.js';
import { importCycles, importGraph, readSources, sourceFiles } from './support/imports.js';

const FOLDERS = ['src', 'scripts', 'test', 'examples'];
const MAX_LINES = 350;

test('the cycle check finds cycles through every kind of import, and only cycles', () => {
  const files = new Map([
    ['src/a.ts', "import { b } from './b.js';"],
    ['src/b.ts', "import type { C } from './lib/c.js';"],
    ['src/lib/c.ts', "export { a } from '../a.js';"],
    ['src/d.ts', "const e = await import('./e.js'); import { a } from './a.js';"],
    ['src/e.ts', "import './d.js';"],
    ['src/f.ts', "import { f } from './f.js'; import { x } from 'node:fs';"],
    ['src/g.ts', "import { a } from './a.js'; import data from './data.json';"],
  ]);
  assert.deepEqual(importCycles(importGraph(files)), [['src/a.ts', 'src/b.ts', 'src/lib/c.ts'], ['src/d.ts', 'src/e.ts'], ['src/f.ts']]);
});

test('no import cycles in src, scripts, test or examples', () => {
  const files = sourceFiles(REPO, FOLDERS);
  assert.ok(files.includes('src/cli.ts') && files.includes('scripts/bench.ts'), 'the source files were found');
  const cycles = importCycles(importGraph(readSources(REPO, files)));
  assert.deepEqual(cycles.map((cycle) => cycle.join(' → ')), []);
});

test(`no TypeScript file has more than ${MAX_LINES} lines`, () => {
  const sources = readSources(REPO, sourceFiles(REPO, FOLDERS));
  const long = [...sources].map(([file, text]) => ({ file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) })).filter((f) => f.lines > MAX_LINES);
  assert.deepEqual(long, []);
});
