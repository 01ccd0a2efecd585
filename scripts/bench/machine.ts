/**
 * Facts about the machine and the checkout for the written report: .NET SDK, git revision, OS.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export function dotnetVersion(): string {
  try {
    return execFileSync('dotnet', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'not installed';
  }
}

export function gitRevision(repo: string): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bin'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty === '' ? head : `${head} + uncommitted changes in src/`;
  } catch {
    return 'unknown';
  }
}

export function osName(): string {
  try {
    return /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? 'Linux';
  } catch {
    return 'Linux';
  }
}
