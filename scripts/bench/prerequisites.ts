/**
 * What the selected areas need before they run: the corpus of specs and the peer generator, each
 * installed with npm into a folder of the repository when missing, and GNU time, installed with
 * apt-get (as root, or through `sudo -n`) when missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Area, Prerequisites } from './area.js';
import { PEER_VERSION, type BenchContext } from './context.js';
import { detectRssMethod } from './lib.js';
import { ensureCorpus } from '../corpus-install.js';

export function ensurePrerequisites(context: BenchContext, areas: readonly Area[]): Prerequisites {
  const selected = areas.filter((area) => context.options.selected.has(area.name));
  if (selected.some((area) => area.corpus)) ensureCorpus(context.log);
  return {
    peer: selected.some((area) => area.peer) ? ensurePeer(context) : false,
    gnuTime: selected.some((area) => area.gnuTime) ? ensureGnuTime(context) : context.rssMethod === 'gnu-time',
  };
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

/** GNU time at /usr/bin/time (Debian's package `time`); the areas that need it go without peak memory when it cannot be had. */
function ensureGnuTime({ log, results, rssMethod }: BenchContext): boolean {
  if (rssMethod === 'gnu-time') return true;
  const aptGet = process.getuid?.() === 0 ? ['apt-get'] : ['sudo', '-n', 'apt-get'];
  const apt = (args: string[]): boolean => {
    try {
      execFileSync(aptGet[0] as string, [...aptGet.slice(1), ...args], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
      return true;
    } catch {
      return false;
    }
  };
  log('installing GNU time (apt package time) …');
  if (!apt(['install', '-y', '--no-install-recommends', 'time'])) {
    if (apt(['update'])) apt(['install', '-y', '--no-install-recommends', 'time']);
  }
  const installed = detectRssMethod() === 'gnu-time';
  if (!installed) results.problems.push('GNU time (/usr/bin/time, apt package `time`) is missing and could not be installed: the peak memory of builds is not measured');
  return installed;
}
