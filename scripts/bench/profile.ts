/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`) for scripts/bench.ts: the functions with the
 * most self time and the generator's functions with the most inclusive time.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  readonly name: string;
  readonly milliseconds: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly gcMs: number;
  /** Most self time, any code. */
  readonly self: ProfileEntry[];
  /** Most inclusive time, functions of the generator (dist/src) only. */
  readonly inclusive: ProfileEntry[];
  /** Self time by area: src/load, src/model, …, each dependency, node internals, GC. */
  readonly areas: ProfileEntry[];
}

function area(frame: ProfileNode['callFrame']): string {
  if (frame.functionName === '(garbage collector)') return 'GC';
  const url = frame.url;
  const own = /\/dist\/src\/(?:([^/]+)\/)?[^/]*\.js$/.exec(url);
  if (own) return own[1] ? `src/${own[1]}` : 'src/*.ts';
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `dependency ${pkg[1]}`;
  if (url.startsWith('node:')) return 'node internals (module loading, fs, …)';
  return 'other (native, JSON.parse, program)';
}

/** `name (src/model/schemas.ts)`, `name (yaml)`, `name (node:internal/…)`. */
function label(frame: ProfileNode['callFrame']): string {
  const name = frame.functionName || '(anonymous)';
  const url = frame.url;
  if (url === '') return name;
  const own = /\/dist\/(src|scripts)\/(.*)\.js$/.exec(url);
  if (own) return `${name} (${own[1]}/${own[2]}.ts)`;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `${name} (${pkg[1]})`;
  if (url.startsWith('node:')) return `${name} (node)`;
  return `${name} (${url.replace(/^.*\//, '')})`;
}

export function summarizeProfile(file: string, top = 8): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const perNode = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((sample, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    perNode.set(sample, (perNode.get(sample) ?? 0) + delta);
    total += delta;
  });
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  let gc = 0;
  for (const [id, time] of perNode) {
    const node = byId.get(id);
    if (!node) continue;
    const own = label(node.callFrame);
    if (node.callFrame.functionName === '(garbage collector)') gc += time;
    if (node.callFrame.functionName !== '(idle)' && node.callFrame.functionName !== '(program)') self.set(own, (self.get(own) ?? 0) + time);
    if (node.callFrame.functionName !== '(idle)') areas.set(area(node.callFrame), (areas.get(area(node.callFrame)) ?? 0) + time);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)?.callFrame;
      if (!frame || !/\/dist\/src\//.test(frame.url)) continue;
      const name = label(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + time);
    }
  }
  const best = (map: Map<string, number>): ProfileEntry[] =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, milliseconds: us / 1000 }));
  return { totalMs: total / 1000, gcMs: gc / 1000, self: best(self), inclusive: best(inclusive), areas: best(areas) };
}
