/**
 * Tool names that do not say what a tool does: a counter whose digits are not in the path (two
 * operations nothing told apart), a fragment (a word that is no word of the operation, such as the
 * `e_7d_5` of a hashed operationId or a word cut short), AWS target noise (`x_amz_target`), and names
 * past the 48-character aim or the 64-character limit. Measured over the corpus.
 */
import type { PreparedApi } from '../../src/index.js';
import { planNames } from '../../src/index.js';
import type { Operation } from '../../src/model/types.js';
import { asciiWords } from '../../src/names/identifiers.js';
import { singular } from '../../src/names/tool-names.js';
import { VERSION } from '../../src/names/path-tokens.js';
import { operationIdWords } from '../../src/names/tool-name-choice.js';

export interface NameNoise {
  readonly tools: number;
  readonly counters: readonly string[];
  readonly fragments: readonly string[];
  readonly amz: readonly string[];
  /** Names longer than the 48-character aim, and than the 64-character limit. */
  readonly over48: readonly string[];
  readonly over64: readonly string[];
}

/** Words a name may have that no path has: verbs, and the joins the naming adds. */
const NAMING_WORDS = new Set(['get', 'list', 'create', 'update', 'patch', 'delete', 'head', 'options', 'trace', 'by', 'item', 'root', 'count', 'ref', 'refs', 'value', 'call']);

export function nameNoise(api: PreparedApi): NameNoise {
  const plan = planNames(api.model);
  const noise = { tools: api.model.operations.length, counters: [] as string[], fragments: [] as string[], amz: [] as string[], over48: [] as string[], over64: [] as string[] };
  for (const op of api.model.operations) {
    const name = plan.operations.get(op.id)?.toolName ?? '';
    const shown = `${name} (${op.method.toUpperCase()} ${op.path})`;
    const counter = /_(\d+)$/.exec(name)?.[1];
    const counted = counter !== undefined && !op.path.includes(counter);
    if (counted) noise.counters.push(shown);
    const named = counted ? name.replace(/_\d+$/, '') : name;
    if (op.mcp?.name === undefined && fragmentsOf(named, op).length > 0) noise.fragments.push(shown);
    if (name.includes('x_amz')) noise.amz.push(shown);
    if (name.length > 48) noise.over48.push(shown);
    if (name.length > 64) noise.over64.push(shown);
  }
  return noise;
}

/** The words of a name that are no word of its operation (path, tags, a worded operationId) nor of the naming. */
export function fragmentsOf(name: string, op: Operation): string[] {
  const vocabulary = new Set(NAMING_WORDS);
  const add = (ws: readonly string[]): void => {
    for (const w of ws) vocabulary.add(w);
    for (const w of singular(ws)) vocabulary.add(w);
  };
  for (const segment of op.path.split(/[/?#&=:.()$]+/)) {
    const ws = asciiWords(segment);
    add(ws);
    ws.forEach((w, i) => add(ws.slice(0, i + 1)));
  }
  for (const tag of op.tags) add(asciiWords(tag));
  // An operationId's words count, but not its hash-like pieces (`GetCount-e7d5` → e, 7d, 5).
  add(operationIdWords(op.operationId ?? ''));
  return name.split('_').filter((w, i, all) => w !== '' && !vocabulary.has(w) && !/^v?\d+$/.test(w) && !VERSION.test(w) && !(w === 'v' && /^\d/.test(all[i + 1] ?? '')));
}
