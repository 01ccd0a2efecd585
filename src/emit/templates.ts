import { readFileSync } from 'node:fs';
import { banner } from './banner.js';
import type { GeneratedFile } from './client.js';

/**
 * The fixed C# files, kept as real files in src/emit/csharp (shipped with the package). This module
 * runs from dist/src/emit (the library) or inside the dist/cli.js bundle: both lie under dist/.
 */
const HERE = import.meta.url;
const TEMPLATES = new URL('src/emit/csharp/', HERE.slice(0, HERE.lastIndexOf('/dist/') + 1));

/** A fixed C# file in the given namespace, under the usual banner. */
export function template(name: string, path: string, namespace: string, source: string): GeneratedFile {
  return { path, content: banner(source) + readFileSync(new URL(`${name}.cs`, TEMPLATES), 'utf8').replace('__NAMESPACE__', namespace) };
}
