/**
 * The yardstick of the edit loop and the clean builds: a generated project as one project, the layout openapi-mcp-dotnet
 * wrote before the generated code had a project of its own. A copy of the folder (bin/ and obj/ left out) whose host
 * project file takes the generated project's packages, framework references and embedded files, compiles every file
 * itself, and references no project; Generated/ is removed. The regeneration target is left out (it runs only when the
 * spec changes), and nothing else differs: the same sources, Program.cs, settings and analyzers.
 */
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Copies the two-project folder `from` to `to` as one project; throws when the layout is not the one expected. */
export function asOneProject(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true, filter: (path) => !['bin', 'obj'].includes(basename(path)) });
  const generatedFolder = join(to, 'Generated');
  const generatedFile = readdirSync(generatedFolder).find((f) => f.endsWith('.Generated.csproj'));
  const hostFile = readdirSync(to).find((f) => f.endsWith('.csproj'));
  if (!generatedFile || !hostFile) throw new Error(`${from}: not a host project with Generated/*.Generated.csproj`);
  const generated = readFileSync(join(generatedFolder, generatedFile), 'utf8');
  // What the generated project brings: packages, framework references, embedded files (their paths from the host's folder).
  const items = generated.split('\n')
    .filter((line) => /^\s*<(PackageReference|FrameworkReference|EmbeddedResource) /.test(line))
    .map((line) => line.replaceAll("'../", "'").replaceAll('"../', '"'));
  const host = readFileSync(join(to, hostFile), 'utf8');
  const reference = /\n\s*<!--(?:(?!-->)[^])*-->\n\s*<ItemGroup>\n\s*<Compile Remove="[^"]*" \/>\n\s*<ProjectReference Include="Generated\/[^"]+" \/>\n\s*<\/ItemGroup>\n/;
  const excludes = /\n\s*<!-- Generated\/[^\n]*-->\n\s*<DefaultItemExcludes>[^<]*<\/DefaultItemExcludes>/;
  if (!reference.test(host) || !excludes.test(host)) throw new Error(`${hostFile}: its reference to the generated project is not where it was expected`);
  const one = host.replace(excludes, '').replace(reference, `\n  <ItemGroup>\n${items.join('\n')}\n  </ItemGroup>\n`);
  writeFileSync(join(to, hostFile), one);
  rmSync(generatedFolder, { recursive: true, force: true });
}
