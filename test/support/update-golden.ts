/** `npm run golden:update`: regenerates the golden files of the example project. */
import { rm } from 'node:fs/promises';
import { writeFiles } from '../../src/index.js';
import { GOLDEN_DIR, goldenProject } from './golden.js';

await rm(GOLDEN_DIR, { recursive: true, force: true });
const written = await writeFiles(GOLDEN_DIR, await goldenProject(), true);
process.stdout.write(`Updated ${written.length} golden files in ${GOLDEN_DIR}\n`);
