import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepare, generateProject, type GeneratedFile, type ProjectOptions } from '../../src/index.js';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const EXAMPLE_SPEC = join(REPO, 'examples/petstore.yaml');
export const GOLDEN_DIR = join(REPO, 'test/golden/petstore');

/** The projects `init` writes with other options, each kept as the files that differ from the default project's. */
export const GOLDEN_VARIANTS = {
  discovery: { dir: join(REPO, 'test/golden/petstore-discovery'), options: { mode: 'discovery' } },
  code: { dir: join(REPO, 'test/golden/petstore-code'), options: { mode: 'code' } },
  http: { dir: join(REPO, 'test/golden/petstore-http'), options: { transport: 'http' } },
  package: { dir: join(REPO, 'test/golden/petstore-package'), options: { launch: 'dnx' } },
  resources: { dir: join(REPO, 'test/golden/petstore-resources'), options: { resources: true } },
} as const satisfies Record<string, { dir: string; options: Partial<ProjectOptions> }>;
export type GoldenVariant = keyof typeof GOLDEN_VARIANTS;

/**
 * The generator the golden project's `Generated/Petstore.Generated.csproj.user` names: node and the package installed globally on Debian.
 * `init` writes the node and the script it runs as; the package test maps those to these.
 */
export const GOLDEN_GENERATOR = { node: '/usr/bin/node', script: '/usr/lib/node_modules/openapi-mcp-dotnet/bin/openapi-mcp-dotnet.js' } as const;

/**
 * The project `init` generates for the example spec, with a fixed directory, framework and generator so it is the same
 * on every machine. The spec's path, which the project records relative to itself, is written as if the spec were beside
 * the project folder (`../petstore.yaml`), as it is in the package test.
 */
export async function goldenProject(options: Partial<ProjectOptions> = {}): Promise<GeneratedFile[]> {
  const api = await prepare(EXAMPLE_SPEC);
  const specPath = relative('/srv/petstore-mcp', EXAMPLE_SPEC).split('\\').join('/');
  return generateProject(api, { localGenerator: GOLDEN_GENERATOR, ...options, serverName: 'Petstore', outputDir: '/srv/petstore-mcp', framework: 'net10.0' }).files
    .map((f) => ({ ...f, content: f.content.split(specPath).join('../petstore.yaml') }));
}

/** The files of a variant's project that are not the same as in the default project. */
export async function variantGoldenFiles(variant: GoldenVariant): Promise<GeneratedFile[]> {
  const operations = await goldenProject();
  return (await goldenProject(GOLDEN_VARIANTS[variant].options)).filter((f) => operations.find((o) => o.path === f.path)?.content !== f.content);
}

/** Every file under a golden directory, as relative paths. */
export async function goldenFilesOnDisk(GOLDEN_DIR = join(REPO, 'test/golden/petstore')): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else files.push({ path: relative(GOLDEN_DIR, path).split('\\').join('/'), content: await readFile(path, 'utf8') });
    }
  };
  await walk(GOLDEN_DIR);
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
