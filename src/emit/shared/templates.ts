import { readFileSync } from 'node:fs';
import { banner } from './banner.js';
import { PACKAGE_ROOT } from '../../package.js';
import type { GeneratedFile } from './file.js';

/** The parts of the output whose fixed C# files are kept as real files, in `src/emit/<part>/csharp` (shipped with the package). */
export const TEMPLATE_PARTS = ['client', 'tools', 'discovery', 'code', 'http', 'resources', 'project'] as const;
export type TemplatePart = typeof TEMPLATE_PARTS[number];

/** Those folders, relative to the package root: what a copy of the built generator needs beside dist/. */
export const TEMPLATE_FOLDERS: readonly string[] = TEMPLATE_PARTS.map((part) => `src/emit/${part}/csharp`);

/** Writes one fixed C# file of a part (see `template`). */
export type Template = (name: string, path: string, namespace: string, source: string, clientNamespace?: string, fills?: Readonly<Record<string, string>>) => GeneratedFile;

/**
 * The fixed C# files of `part`: `template(name, …)` is `src/emit/<part>/csharp/<name>.cs` under the usual banner, in
 * `namespace`; `clientNamespace` (default: the same) fills `__CLIENT_NAMESPACE__` in the host's files, which use the
 * client's runtime; `fills` replaces other `__PLACEHOLDERS__` with generated C#.
 */
export function templates(part: TemplatePart): Template {
  const folder = new URL(`src/emit/${part}/csharp/`, PACKAGE_ROOT);
  return (name, path, namespace, source, clientNamespace = namespace, fills = {}) => {
    let text = readFileSync(new URL(`${name}.cs`, folder), 'utf8').replace('__NAMESPACE__', namespace).replace('__CLIENT_NAMESPACE__', clientNamespace);
    for (const [placeholder, value] of Object.entries(fills)) text = text.replace(placeholder, () => value);
    return { path, content: banner(source) + text };
  };
}
