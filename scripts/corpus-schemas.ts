/**
 * `npm run corpus -- --schemas [--list FILE] [--add ID…] [--examples N]`
 *
 * The schema sweep: for every spec of the list, every tool's name, input schema and (as `--structured-output`
 * publishes it) output schema, checked as a strict client checks them (test/support/schema-rules.ts: the draft-07 and
 * 2020-12 meta-schemas, an object root, `items` on every array, the name pattern), without generating code.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO } from '../test/support/golden.js';
import { schemaProblems, type SchemaProblem } from '../test/support/schema-rules.js';
import { ensureCorpus } from './corpus-install.js';
import { planNames, prepare } from '../src/index.js';
import { inputSchema } from '../src/emit/tools/input-schema.js';
import { outputSchema } from '../src/emit/tools/output-schema.js';

export async function schemasSweep(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--schemas'),
    options: {
      list: { type: 'string', default: join(REPO, '../shared/corpus/dev-specs.txt') },
      add: { type: 'string', multiple: true, default: [] },
      examples: { type: 'string', default: '20' },
    },
  });
  const apiDir = ensureCorpus();
  const listed = (await readFile(values.list, 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const ids = [...listed, ...values.add.filter((id) => !listed.includes(id))];
  const started = performance.now();
  let specs = 0;
  let tools = 0;
  const problems: (SchemaProblem & { spec: string })[] = [];
  const failing = new Set<string>();
  for (const [index, id] of ids.entries()) {
    try {
      const { model } = await prepare(join(apiDir, `${id}.json`));
      const plan = planNames(model);
      specs++;
      for (const op of model.operations) {
        const name = plan.operations.get(op.id)?.toolName ?? '';
        tools++;
        const found = schemaProblems(name, { inputSchema: inputSchema(model, plan, op), outputSchema: outputSchema(model, op)?.schema });
        if (found.length > 0) failing.add(id);
        problems.push(...found.map((p) => ({ ...p, spec: id })));
      }
    } catch {
      // Specs the generator refuses are the compile sweep's business.
    }
    if (index % 200 === 199) process.stderr.write(`checked ${index + 1}/${ids.length}\n`);
  }
  const seconds = (performance.now() - started) / 1000;
  const byRule = new Map<string, number>();
  for (const p of problems) byRule.set(`${p.which} ${p.rule}`, (byRule.get(`${p.which} ${p.rule}`) ?? 0) + 1);
  const toolsFailing = new Set(problems.map((p) => `${p.spec} ${p.tool}`)).size;
  process.stdout.write(`${specs} specs, ${tools} tools checked in ${seconds.toFixed(0)} s: ${toolsFailing} tools in ${failing.size} specs a strict client refuses\n`);
  for (const [rule, count] of [...byRule].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${rule}: ${count}\n`);
  for (const p of problems.slice(0, Number(values.examples))) process.stdout.write(`  ${p.spec} ${p.tool} ${p.which} ${p.rule}: ${p.detail.slice(0, 300)}\n`);
  if (problems.length > 0) process.exitCode = 1;
}
