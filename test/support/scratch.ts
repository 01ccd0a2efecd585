/** Temporary folders for tests, removed when the test process exits, whatever the outcome. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const folders: string[] = [];
process.on('exit', () => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A new empty folder `omd-<name>-XXXXXX` in the temporary directory. */
export function scratchDir(name: string): string {
  const folder = mkdtempSync(join(tmpdir(), `omd-${name}-`));
  folders.push(folder);
  return folder;
}
