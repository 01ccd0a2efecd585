/**
 * `npm run corpus -- [options]`: the real-world sweeps over ../shared/corpus/dev-specs.txt.
 * Without `--runtime`, the compile sweep (scripts/corpus-compile.ts: generate and compile every spec);
 * with `--runtime`, the runtime sweep (scripts/runtime.ts: call every tool of a sample against a
 * validating mock of its API).
 */
import { compileSweep } from './corpus-compile.js';
import { runtimeSweep } from './runtime.js';

const argv = process.argv.slice(2);
await (argv.includes('--runtime') ? runtimeSweep(argv) : compileSweep(argv));
