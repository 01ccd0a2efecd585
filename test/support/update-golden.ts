/** `npm run golden:update`: regenerates the golden files of the example project. */
import { rm } from 'node:fs/promises';
import { writeFiles } from '../../src/index.js';
import { DISCOVERY_GOLDEN_DIR, GOLDEN_DIR, discoveryGoldenFiles, goldenProject } from './golden.js';

for (const [dir, files] of [[GOLDEN_DIR, await goldenProject()], [DISCOVERY_GOLDEN_DIR, await discoveryGoldenFiles()]] as const) {
  await rm(dir, { recursive: true, force: true });
  const written = await writeFiles(dir, files, true);
  process.stdout.write(`Updated ${written.length} golden files in ${dir}\n`);
}
