// Bundles the command line (dist/src/cli.js and its dependencies) into dist/cli.js, which
// bin/openapi-mcp-dotnet.js runs: one file loads faster than some forty modules. Dependencies
// needed only for some inputs (YAML, Swagger 2.0, external $refs, JSON with errors, overlays, --include and --exclude
// patterns; the search's stemmer, in discovery and code mode) stay outside and load on demand.
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/src/cli.js'],
  outfile: 'dist/cli.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['yaml', 'swagger2openapi', '@apidevtools/json-schema-ref-parser', 'jsonc-parser', 'json-p3', 'snowball-stemmers', 'picomatch'],
  // Bundled CommonJS (commander) calls require() for Node's own modules.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
