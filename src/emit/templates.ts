import { readFileSync } from 'node:fs';
import { banner } from './banner.js';
import { PACKAGE_ROOT } from '../package.js';
import type { GeneratedFile } from './file.js';

/** The fixed C# files, kept as real files in src/emit/csharp (shipped with the package). */
const TEMPLATES = new URL('src/emit/csharp/', PACKAGE_ROOT);

/** A fixed C# file in the given namespace, under the usual banner. */
export function template(name: string, path: string, namespace: string, source: string): GeneratedFile {
  return { path, content: banner(source) + readFileSync(new URL(`${name}.cs`, TEMPLATES), 'utf8').replace('__NAMESPACE__', namespace) };
}
