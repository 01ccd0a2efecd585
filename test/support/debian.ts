/** Debian packages a test needs, installed as CI installs them: with apt-get, when this runs as root. */
import { spawnSync } from 'node:child_process';

/** Installs a Debian package (after refreshing the package lists) when running as root; does nothing otherwise. */
export function aptInstall(name: string): void {
  if (process.getuid?.() !== 0) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', name], { stdio: 'ignore', env });
}
