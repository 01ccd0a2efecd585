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

/**
 * The source file of a frame: for the bundle (dist/cli.cjs), the module whose `// dist/src/….js` or
 * `// node_modules/…` marker, which esbuild writes above each module, precedes the frame's line.
 */
type Locate = (frame: ProfileNode['callFrame']) => string;

function bundleLocator(): Locate {
  const markers = new Map<string, { line: number; path: string }[]>();
  return (frame) => {
    const url = frame.url.replace(/^file:\/\//, '');
    if (!url.endsWith('/dist/cli.cjs')) return frame.url;
    let list = markers.get(url);
    if (!list) {
      list = [];
      let text = '';
      try {
        text = readFileSync(url, 'utf8');
      } catch {
        // The generator's snapshot is gone: the frame stays the bundle's.
      }
      text.split('\n').forEach((line, index) => {
        const marker = /^\/\/ ((?:dist\/src|node_modules)\/\S+\.[cm]?js)$/.exec(line);
        if (marker?.[1]) list?.push({ line: index, path: marker[1] });
      });
      markers.set(url, list);
    }
    let found: string | undefined;
    for (const marker of list) {
      if (marker.line > frame.lineNumber) break;
      found = marker.path;
    }
    return found === undefined ? frame.url : `${url.slice(0, -'dist/cli.cjs'.length)}${found}`;
  };
}

function area(frame: ProfileNode['callFrame'], locate: Locate): string {
  if (frame.functionName === '(garbage collector)') return 'GC';
  const url = locate(frame);
  // By folder, nested ones too (src/emit/tools); files directly in src are one area.
  const own = /\/dist\/src\/(?:(.+)\/)?[^/]+\.js$/.exec(url);
  if (own) return own[1] ? `src/${own[1]}` : 'src/*.ts';
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `dependency ${pkg[1]}`;
  if (url.startsWith('node:')) return 'node internals (module loading, fs, …)';
  if (url.endsWith('/dist/cli.cjs')) return 'the bundle dist/cli.cjs';
  return 'other (native, JSON.parse, program)';
}

/** `name (src/model/schemas.ts)`, `name (yaml)`, `name (node:internal/…)`. */
function label(frame: ProfileNode['callFrame'], locate: Locate): string {
  const name = frame.functionName || '(anonymous)';
  const url = locate(frame);
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
  const locate = bundleLocator();
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
    const own = label(node.callFrame, locate);
    if (node.callFrame.functionName === '(garbage collector)') gc += time;
    if (node.callFrame.functionName !== '(idle)' && node.callFrame.functionName !== '(program)') self.set(own, (self.get(own) ?? 0) + time);
    if (node.callFrame.functionName !== '(idle)') areas.set(area(node.callFrame, locate), (areas.get(area(node.callFrame, locate)) ?? 0) + time);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)?.callFrame;
      if (!frame || !/\/dist\/src\//.test(locate(frame))) continue;
      const name = label(frame, locate);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + time);
    }
  }
  const best = (map: Map<string, number>): ProfileEntry[] =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, milliseconds: us / 1000 }));
  return { totalMs: total / 1000, gcMs: gc / 1000, self: best(self), inclusive: best(inclusive), areas: best(areas) };
}
