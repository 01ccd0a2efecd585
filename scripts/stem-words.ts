/**
 * `npm run build && node dist/scripts/stem-words.js [--list FILE]`
 *
 * Writes test/fixtures/stem-words.txt.gz: every distinct word the search index can be given by the specs of the list
 * (the dev corpus by default): the words of each operation (paths, summaries, descriptions, parameters, operationIds,
 * tags, inline schemas) and of the component schemas (body property names and allowed values), split as the index
 * splits them. test/discovery.test.ts checks that the generator and the generated server stem each alike.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { REPO } from '../test/support/golden.js';
import { ensureCorpus } from './corpus-install.js';
import { allWords } from '../src/emit/discovery/search-text.js';

const { values } = parseArgs({ options: { list: { type: 'string', default: join(REPO, '../shared/corpus/dev-specs.txt') } } });
const apiDir = ensureCorpus();
const ids = (await readFile(values.list, 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
const words = new Set<string>();
const walk = (value: unknown): void => {
  if (typeof value === 'string') for (const word of allWords(value)) words.add(word);
  else if (Array.isArray(value)) value.forEach(walk);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      for (const word of allWords(key)) words.add(word);
      walk(inner);
    }
  }
};
for (const id of ids) {
  const doc = JSON.parse(await readFile(join(apiDir, `${id}.json`), 'utf8')) as { paths?: unknown; components?: unknown; definitions?: unknown };
  walk([doc.paths, doc.components, doc.definitions]);
}
const list = [...words].sort();
await writeFile(join(REPO, 'test/fixtures/stem-words.txt.gz'), gzipSync(`${list.join('\n')}\n`, { level: 9 }));
process.stdout.write(`${list.length} words from ${ids.length} specs\n`);
