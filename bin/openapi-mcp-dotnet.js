#!/usr/bin/env node
import { runCli } from '../dist/cli.js';

const code = await runCli(process.argv.slice(2));
// Exit as soon as what was printed is out: a natural exit first tears down the whole heap, which
// after a big spec takes longer than writing the files did.
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write('', resolve))));
process.exit(code);
