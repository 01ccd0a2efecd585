import { createRequire } from 'node:module';

/**
 * jsonc-parser (VS Code's JSON scanner and editor), loaded only where it is needed: locating an error in a
 * JSON spec, and merging a server entry into a client's existing configuration file.
 */
export const loadJsonc = (): typeof import('jsonc-parser') => createRequire(import.meta.url)('jsonc-parser') as typeof import('jsonc-parser');
