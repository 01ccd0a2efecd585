/**
 * A console program around the generated server's search (McpSearch.cs and McpSearchQuery.cs, as discovery mode
 * writes them) and the index of a real API, so that a test can put many queries to the C# search at once and
 * compare its answers with the generator's reference ranking (src/emit/discovery/search-query.ts), and many words to
 * its stemmer, to compare with the generator's.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { prepare } from '../../src/generate.js';
import { planNames } from '../../src/names/plan.js';
import { searchIndex } from '../../src/emit/discovery/search-index.js';
import { emitDiscovery, SEARCH_PACKAGES } from '../../src/emit/discovery/discovery.js';

const PROGRAM = `using System;
using System.Linq;
using Harness;

// Each line of standard input is "limit<TAB>query"; each line of output the names found, space-separated.
// With the argument "stem", each line is a word and each line of output its term.
string? line;
while ((line = Console.In.ReadLine()) is not null)
{
    if (args.Length > 0 && args[0] == "stem")
    {
        Console.WriteLine(McpSearch.Stem(line));
        continue;
    }
    var tab = line.IndexOf('\\t');
    Console.WriteLine(string.Join(" ", McpSearch.Index.Search(line[(tab + 1)..], null, int.Parse(line[..tab])).Select(o => o.Name)));
}
`;

/** Writes the harness project into `dir` for the spec at `specPath` (gzipped JSON); returns the index it embeds. */
export async function writeSearchHarness(dir: string, specPath: string, framework: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const spec = join(dir, 'spec.json');
  await writeFile(spec, gunzipSync(await readFile(specPath)));
  const api = await prepare(spec);
  const index = searchIndex(planNames(api.model), api.model.operations, api.model);
  await writeFile(join(dir, 'McpSearchIndex.json'), index);
  for (const file of emitDiscovery('Harness', 'Harness', 'the search harness')) {
    if (basename(file.path) !== 'McpDiscovery.cs') await writeFile(join(dir, basename(file.path)), file.content);
  }
  await writeFile(join(dir, 'Program.cs'), PROGRAM);
  await writeFile(join(dir, 'Harness.csproj'), `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <TargetFramework>${framework}</TargetFramework>
    <Nullable>enable</Nullable>
    <TreatWarningsAsErrors>true</TreatWarningsAsErrors>
  </PropertyGroup>
  <ItemGroup>
${SEARCH_PACKAGES.map((p) => `    <PackageReference Include="${p.id}" Version="${p.version}" />`).join('\n')}
    <EmbeddedResource Include="McpSearchIndex.json" LogicalName="McpSearchIndex.json" />
  </ItemGroup>
</Project>
`);
  return index;
}
