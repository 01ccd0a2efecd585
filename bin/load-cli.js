// Loads the command line's bundle, dist/cli.cjs, with the V8 code cache that `npm run build` wrote beside it
// (dist/cli.cache, made by running the bundle once): the functions a generation runs are then read already compiled
// instead of being compiled again at every start. V8 rejects a cache that another Node version made (or one run with
// other V8 flags); the bundle is then compiled as usual.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

export const BUNDLE = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
export const CODE_CACHE = fileURLToPath(new URL('../dist/cli.cache', import.meta.url));

/** The bundle's exports (`runCli`), and the script it was compiled as. */
export function loadCli() {
  const source = readFileSync(BUNDLE, 'utf8');
  let cachedData;
  try {
    cachedData = readFileSync(CODE_CACHE);
  } catch {
    // not made (yet): compiled from the source alone
  }
  // CommonJS's own wrapper, on the source's first line so that line numbers stay the file's.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: BUNDLE, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE));
  return { cli: module.exports, script };
}
