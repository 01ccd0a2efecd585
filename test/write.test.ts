/**
 * Writing the generated files: each text is written as UTF-8, byte for byte what Buffer.from gives, however long and
 * whatever it holds, and an existing file is replaced only by the rename at the end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFiles } from '../src/write.js';
import { movedTo, PartedFile } from '../src/emit/shared/file.js';
import { scratchDir } from './support/scratch.js';

const tmp = scratchDir('write');

test('long texts, multi-byte characters and surrogate pairs at every offset are written as UTF-8, byte for byte', async () => {
  // Slices of the text are encoded one after another; a pair (😀, 2 units) and 2- and 3-byte characters fall across
  // every boundary as the six units of the pattern shift by one.
  const unit = 'a😀éa€';
  const texts = [0, 1, 2, 3, 4, 5].map((shift) => 'x'.repeat(shift) + unit.repeat(300_000));
  const files = texts.map((content, i) => ({ path: `deep/${i}.g.cs`, content }));
  const written = await writeFiles(tmp, [...files, { path: 'empty.g.cs', content: '' }], true);
  assert.deepEqual(written, [...files.map((f) => join(tmp, f.path)), join(tmp, 'empty.g.cs')]);
  for (const file of files) assert.ok(Buffer.from(file.content, 'utf8').equals(await readFile(join(tmp, file.path))), file.path);
  assert.equal((await readFile(join(tmp, 'empty.g.cs'))).length, 0);
  // No temporary file is left beside them.
  assert.deepEqual((await readdir(join(tmp, 'deep'))).sort(), ['0.g.cs', '1.g.cs', '2.g.cs', '3.g.cs', '4.g.cs', '5.g.cs']);
});

test('a file that exists is replaced whole, a longer one by a shorter one included', async () => {
  await writeFiles(tmp, [{ path: 'again.g.cs', content: 'long '.repeat(100_000) }], true);
  await writeFiles(tmp, [{ path: 'again.g.cs', content: 'short' }], true);
  assert.equal(await readFile(join(tmp, 'again.g.cs'), 'utf8'), 'short');
});

test('a file kept in parts is written as its parts joined, and keeps them when it moves', async () => {
  // Parts of every size: empty, short, multi-byte, and longer than a slice on their own.
  const parts = ['', 'namespace P;\n', 'é€😀\n'.repeat(70_000), '', 'x'.repeat(300_000), '\n', '😀'.repeat(140_000)];
  const file = new PartedFile('Parted.g.cs', parts);
  const moved = movedTo(file, 'Client/Parted.g.cs');
  assert.ok(moved instanceof PartedFile && moved.parts === file.parts);
  await writeFiles(tmp, [file, moved, movedTo({ path: 'a.g.cs', content: 'plain' }, 'b.g.cs')], true);
  const expected = Buffer.from(parts.join(''), 'utf8');
  assert.ok(expected.equals(await readFile(join(tmp, 'Parted.g.cs'))));
  assert.ok(expected.equals(await readFile(join(tmp, 'Client/Parted.g.cs'))));
  assert.equal(file.content, parts.join(''));
  assert.equal(await readFile(join(tmp, 'b.g.cs'), 'utf8'), 'plain');
});
