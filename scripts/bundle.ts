// Bundles the command line (dist/src/cli.js and its dependencies) into dist/cli.cjs, which
// bin/openapi-mcp-dotnet.js runs (through bin/load-cli.js): one file loads faster than some forty modules.
// Dependencies needed only for some inputs (YAML, Swagger 2.0, external $refs, JSON with errors, overlays, --include
// and --exclude patterns; the search's stemmer, in discovery and code mode) stay outside and load on demand.
// Then the bundle runs `init` once on test/fixtures/kitchen-sink.yaml (read as JSON, like most specs) and V8's code
// cache of what that compiled is written to dist/cli.cache, which the command line loads with the bundle.
import { build, type Plugin } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * node:child_process, and the networking it loads (net, dgram, streams over pipes), only when first used: commander
 * loads it for executable subcommands, which this command line has none of, and the generator runs dotnet only to
 * find the target framework when --framework is not given. Loading it took about 5 ms of every run.
 */
const lazyChildProcess: Plugin = {
  name: 'lazy-child-process',
  setup(bundler) {
    bundler.onResolve({ filter: /^(node:)?child_process$/ }, (args) => args.namespace === 'lazy-child-process'
      ? { path: 'node:child_process', external: true }
      : { path: 'child_process', namespace: 'lazy-child-process' });
    bundler.onLoad({ filter: /.*/, namespace: 'lazy-child-process' }, () => ({
      loader: 'js',
      contents: `let loaded;
const load = () => (loaded ??= require('node:child_process'));
for (const name of ${JSON.stringify(CHILD_PROCESS_EXPORTS)}) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });`,
    }));
  },
};
const CHILD_PROCESS_EXPORTS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork', 'ChildProcess'];

await build({
  entryPoints: ['dist/src/cli.js'],
  outfile: 'dist/cli.cjs',
  bundle: true,
  platform: 'node',
  // CommonJS: a script V8 can compile with a code cache (Node 20 has none for ES modules).
  format: 'cjs',
  target: 'node20',
  external: ['yaml', 'swagger2openapi', '@apidevtools/json-schema-ref-parser', 'jsonc-parser', 'json-p3', 'snowball-stemmers', 'picomatch'],
  // The modules find the package's folder from their own URL: the bundle's, in dist/ like theirs.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "var __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [lazyChildProcess],
  logLevel: 'warning',
});

interface Loaded {
  readonly cli: { runCli(argv: readonly string[], io: { out(text: string): void; err(text: string): void }): Promise<number> };
  readonly script: { createCachedData(): Buffer };
}
const loader = (await import(new URL('../../bin/load-cli.js', import.meta.url).href)) as { loadCli(): Loaded; CODE_CACHE: string };
rmSync(loader.CODE_CACHE, { force: true });
const { cli, script } = loader.loadCli();
const work = mkdtempSync(join(tmpdir(), 'omd-code-cache-'));
try {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const spec = join(work, 'kitchen-sink.json');
  writeFileSync(spec, JSON.stringify(yaml.parse(readFileSync('test/fixtures/kitchen-sink.yaml', 'utf8'))));
  const quiet = { out: (): void => {}, err: (): void => {} };
  const code = await cli.runCli(['init', '--openapi-url', spec, '--server-name', 'Cache', '--output-dir', join(work, 'project'), '--framework', 'net10.0'], quiet);
  if (code !== 0) throw new Error(`the bundle's init on test/fixtures/kitchen-sink.yaml exited with ${code}`);
  writeFileSync(loader.CODE_CACHE, script.createCachedData());
} finally {
  rmSync(work, { recursive: true, force: true });
}
