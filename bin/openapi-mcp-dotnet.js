#!/usr/bin/env node
import { loadCli } from './load-cli.js';

let cli;
try {
  ({ cli } = loadCli());
} catch (error) {
  if (!['ENOENT', 'MODULE_NOT_FOUND'].includes(error?.code) || !String(error.message).includes('cli.cjs')) throw error;
  const root = new URL('..', import.meta.url).pathname;
  process.stderr.write(`error: openapi-mcp-dotnet is not built in ${root}: run \`npm ci && npm run build\` there first\n`);
  process.exit(1);
}

const code = await cli.runCli(process.argv.slice(2));
// Exit as soon as what was printed is out: a natural exit first tears down the whole heap, which
// after a big spec takes longer than writing the files did.
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write('', resolve))));
process.exit(code);
