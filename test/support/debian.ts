/** Debian packages a test needs, installed as CI installs them: with apt-get, when this runs as root. */
import { spawnSync } from 'node:child_process';

/** Installs a Debian package (after refreshing the package lists) when running as root; does nothing otherwise. */
export function aptInstall(name: string): void {
  if (process.getuid?.() !== 0) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', name], { stdio: 'ignore', env });
}

/**
 * The first of `paths` that runs (`<path> <versionFlag>` starts and exits, whatever its code: wrk's is 1); else the
 * package is installed (as above) and they are looked at again. Throws, saying what to install and why, when none runs.
 */
export function debianBinary(paths: readonly string[], versionFlag: string, name: string, why: string): string {
  const found = (): string | undefined => paths.find((p) => {
    const run = spawnSync(p, [versionFlag]);
    return run.error === undefined && run.status !== null;
  });
  const existing = found();
  if (existing) return existing;
  aptInstall(name);
  const installed = found();
  if (!installed) throw new Error(`${name} is not installed and could not be: run apt-get install ${name} (${why})`);
  return installed;
}
