/** `npm run golden:update`: regenerates the golden files of the example project. */
import { rm } from 'node:fs/promises';
import { writeFiles } from '../../src/index.js';
import { GOLDEN_DIR, GOLDEN_VARIANTS, goldenProject, variantGoldenFiles, type GoldenVariant } from './golden.js';

const variants = await Promise.all(Object.entries(GOLDEN_VARIANTS).map(async ([name, { dir }]) => [dir, await variantGoldenFiles(name as GoldenVariant)] as const));
for (const [dir, files] of [[GOLDEN_DIR, await goldenProject()] as const, ...variants]) {
  await rm(dir, { recursive: true, force: true });
  const written = await writeFiles(dir, files, true);
  process.stdout.write(`Updated ${written.length} golden files in ${dir}\n`);
}
