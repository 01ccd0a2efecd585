import { readFileSync } from 'node:fs';
import { banner } from './banner.js';
import { PACKAGE_ROOT } from '../package.js';
import type { GeneratedFile } from './file.js';

/** The fixed C# files, kept as real files in src/emit/csharp (shipped with the package). */
const TEMPLATES = new URL('src/emit/csharp/', PACKAGE_ROOT);

/**
 * A fixed C# file under the usual banner, in `namespace`; `clientNamespace` (default: the same) fills
 * `__CLIENT_NAMESPACE__` in the host's files, which use the client's runtime; `fills` replaces other
 * `__PLACEHOLDERS__` with generated C#.
 */
export function template(name: string, path: string, namespace: string, source: string, clientNamespace = namespace, fills: Readonly<Record<string, string>> = {}): GeneratedFile {
  let text = readFileSync(new URL(`${name}.cs`, TEMPLATES), 'utf8').replace('__NAMESPACE__', namespace).replace('__CLIENT_NAMESPACE__', clientNamespace);
  for (const [placeholder, value] of Object.entries(fills)) text = text.replace(placeholder, () => value);
  return { path, content: banner(source) + text };
}
