/**
 * The baseline of the generation benchmark: a process that only reads and parses the spec
 * (`JSON.parse(fs.readFileSync(spec))`, or the `yaml` package's `parse` for YAML), then exits.
 * Usage: node dist/scripts/bench/parse.js SPEC
 */
import { readFileSync } from 'node:fs';

const spec = process.argv[2];
if (!spec) {
  process.stderr.write('usage: bench-parse SPEC\n');
  process.exit(2);
}
const text = readFileSync(spec, 'utf8');
let document: unknown;
if (/\.ya?ml$/i.test(spec)) {
  const { parse } = await import('yaml');
  document = parse(text);
} else {
  document = JSON.parse(text);
}
if (document === null || typeof document !== 'object') process.exit(3);
