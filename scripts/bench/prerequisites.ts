/**
 * What the selected areas need before they run: the corpus of specs and the peer generator, each
 * installed with npm into a folder of the repository when missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Area, Prerequisites } from './area.js';
import { PEER_VERSION, type BenchContext } from './context.js';
import { ensureCorpus } from '../corpus-install.js';

export function ensurePrerequisites(context: BenchContext, areas: readonly Area[]): Prerequisites {
  const selected = areas.filter((area) => context.options.selected.has(area.name));
  if (selected.some((area) => area.corpus)) ensureCorpus(context.log);
  return { peer: selected.some((area) => area.peer) ? ensurePeer(context) : false };
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
