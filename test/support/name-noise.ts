/**
 * Tool names that do not say what a tool does: a counter whose digits are not in the path (two
 * operations nothing told apart), or AWS target noise (`x_amz_target`). Measured over the corpus.
 */
import type { PreparedApi } from '../../src/index.js';
import { planNames } from '../../src/index.js';

export interface NameNoise {
  readonly tools: number;
  readonly counters: readonly string[];
  readonly amz: readonly string[];
}

export function nameNoise(api: PreparedApi): NameNoise {
  const plan = planNames(api.model);
  const counters: string[] = [];
  const amz: string[] = [];
  for (const op of api.model.operations) {
    const name = plan.operations.get(op.id)?.toolName ?? '';
    const counter = /_(\d+)$/.exec(name)?.[1];
    if (counter !== undefined && !op.path.includes(counter)) counters.push(`${name} (${op.method.toUpperCase()} ${op.path})`);
    if (name.includes('x_amz')) amz.push(`${name} (${op.method.toUpperCase()} ${op.path})`);
  }
  return { tools: api.model.operations.length, counters, amz };
}
