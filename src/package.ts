import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The package's own folder. This code runs from dist/src (the library) or inside the dist/cli.cjs
 * bundle (the command line): both lie under dist/.
 */
const HERE = import.meta.url;
export const PACKAGE_ROOT = new URL(HERE.slice(0, HERE.lastIndexOf('/dist/') + 1));

/** The command line's script, which the package's `bin` names: what regeneration on build runs with node. */
export const BIN_SCRIPT = fileURLToPath(new URL('bin/openapi-mcp-dotnet.js', PACKAGE_ROOT));

/** The version in the package's package.json (`unknown` if it cannot be read). */
export function packageVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}
