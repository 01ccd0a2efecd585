import type { GeneratedFile } from '../shared/file.js';
import { AGENT, INTENT_BOOST, INTENTS, NAME_COVERAGE, PERSON, RESOURCE_HELD, RESOURCE_MISS, STOP_WORDS, stem } from './search-text.js';
import { AUXILIARIES, CEASING, DETERMINERS, NEGATIONS, phrasalTerms, PREPOSITIONS, PRONOUNS, QUESTION_WORDS } from './search-query-words.js';
import { templates } from '../shared/templates.js';
import type { ToolMode } from '../shared/host-options.js';
import { jsonText, rawStringLiteral, stringLiteral } from '../shared/writer.js';
import { banner } from '../shared/banner.js';
import type { SearchIndex } from './search-index.js';
import type { Operation } from '../../model/types.js';
import { toolHints } from '../tools/tools.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

/** Where the discovery-mode server's operation index is written, beside McpTools.g.cs, and its resource name. */
const template = templates('discovery');

export const SEARCH_INDEX_FILE = 'McpSearchIndex.g.json';
export const SEARCH_INDEX_RESOURCE = 'McpSearchIndex.json';

/**
 * What the discovery tools say of the selected operations (search_operations' description with the map), written
 * beside McpTools.g.cs: a class of its own, so that the host's McpDiscovery.cs of an earlier generator still builds
 * with it (`regenerate` writes the tools, not the host's files).
 */
export const DISCOVERY_TEXT_CLASS = 'McpDiscoveryText';
export const DISCOVERY_TEXT_FILE = `${DISCOVERY_TEXT_CLASS}.g.cs`;

/** What search_operations' `detail` can ask for: each hit's listing, or that and what calling it takes. */
export const SEARCH_DETAILS = ['summary', 'full'] as const;

/** Most results search_operations returns. */
export const MAX_SEARCH_RESULTS = 50;

/** Longest request search_operations reads: a search is a few words, and its cost grows with its length. */
export const MAX_QUERY_LENGTH = 1000;

interface DiscoveryTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly readOnly: boolean;
  /** The placeholder in McpDiscovery.cs its attributes fill. */
  readonly placeholder: string;
  /** The constant of McpDiscoveryText.g.cs that holds its description, when the selected operations make it. */
  readonly describedBy?: string;
}

const NAME = { type: 'string', minLength: 1, description: 'Operation name, from search_operations.' };

/**
 * The three tools of a discovery-mode server, search_operations' description ending with `map` (see searchMap) when
 * there is one; their tools/list is about 2,100 bytes and the map (at most 1,500) whatever the API. In code mode,
 * search_operations alone: code mode has its own describe_operation and run_script in place of the others.
 */
export function discoveryTools(mode: ToolMode = 'discovery', map = ''): DiscoveryTool[] {
  const code = mode === 'code';
  const next = code
    ? 'Then describe_operation gives one\'s signature; run_script calls it as api.<name>(args).'
    : 'Then describe_operation gives one\'s arguments; call_operation calls it.';
  const tools: DiscoveryTool[] = [
    {
      name: 'search_operations', title: 'Search operations', readOnly: true, placeholder: '__SEARCH_TOOL__', describedBy: 'SearchDescription',
      description: `Finds the API operations that do what you describe, best first: JSON [{name, title, method, path, tags, summary}]. ${next}${map === '' ? '' : `\n${map}`}`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH, description: 'What to do, in the API\'s words where you can (the thing and the action: "create issue", "list pull requests"); search again in other words when nothing fits.' },
          tag: { type: 'string', description: 'Only operations with this tag.' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_RESULTS, default: 10 },
          detail: { type: 'string', enum: [...SEARCH_DETAILS], default: 'summary', description: code ? '"full": each with its signature too, as describe_operation gives it.' : '"full": each with its inputSchema too, as describe_operation gives it (long: use a small limit).' },
        },
        required: ['query'],
      },
    },
    {
      name: 'describe_operation', title: 'Describe an operation', readOnly: true, placeholder: '__DESCRIBE_TOOL__',
      description: 'Describes an operation: JSON {name, title, method, path, description, inputSchema, annotations}; inputSchema is what call_operation checks its arguments against.',
      inputSchema: { type: 'object', properties: { name: NAME }, required: ['name'] },
    },
    {
      name: 'call_operation', title: 'Call an operation', readOnly: false, placeholder: '__CALL_TOOL__',
      description: 'Calls an operation with arguments fitting its inputSchema. Returns the API\'s answer as JSON, or "Error: …".',
      inputSchema: {
        type: 'object',
        properties: { name: NAME, arguments: { type: 'object', default: {} } },
        required: ['name'],
      },
    },
  ];
  return code ? tools.slice(0, 1) : tools;
}

/**
 * search_operations' answer as the server writes it (McpDiscovery.Hit) for the operations `found` (positions in the
 * index), with detail "full" when `inputSchemaOf` gives each one's inputSchema: what the bench sizes.
 */
export function searchAnswer(index: SearchIndex, found: readonly number[], inputSchemaOf?: (name: string) => unknown): string {
  return JSON.stringify(found.flatMap((position) => {
    const op = index.operations[position];
    if (!op) return [];
    const [name, title, method, path, tags, summary] = op;
    return [{ name, title, method, path, tags, summary, ...(inputSchemaOf && { inputSchema: inputSchemaOf(name) }) }];
  }));
}

/** The tools/list entries of a discovery-mode server whose operations make `map` (sizes it in `report`). */
export function discoveryListing(map = ''): Record<string, unknown>[] {
  return discoveryTools('discovery', map).map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: !tool.readOnly, idempotentHint: tool.readOnly, openWorldHint: !tool.readOnly },
  }));
}

/**
 * The NuGet package the search stems queries with: Lucene.Net's Snowball English (Porter2) stemmer, the algorithm the
 * generator stems the index with (snowball-stemmers), so that a query word meets the term its forms were indexed as.
 */
export const SEARCH_PACKAGES = [{ id: 'Lucene.Net.Analysis.Common', version: '4.8.0-beta00017' }] as const;

/** The host's discovery files: the three tools (in code mode, search_operations) and the search over the index. */
export function emitDiscovery(namespace: string, clientNamespace: string, source: string, mode: ToolMode = 'discovery'): GeneratedFile[] {
  const fills: Record<string, string> = { __DESCRIBE_TOOL__: '', __CALL_TOOL__: '' };
  Object.assign(fills, Object.fromEntries(discoveryTools(mode).map((tool) => [tool.placeholder, [
    `    [McpServerTool(Name = ${stringLiteral(tool.name)}, Title = ${stringLiteral(tool.title)}, ReadOnly = ${tool.readOnly}, Destructive = ${!tool.readOnly}, Idempotent = ${tool.readOnly}, OpenWorld = ${!tool.readOnly})]`,
    `    [Description(${tool.describedBy === undefined ? stringLiteral(tool.description) : `${DISCOVERY_TEXT_CLASS}.${tool.describedBy}`})]`,
    `    [McpTools.InputSchema(${rawStringLiteral(jsonText(tool.inputSchema))})]`,
  ].join('\n')])));
  const list = (words: Iterable<string>): string => [...words].map((w) => stringLiteral(w)).join(', ');
  const intents = Object.entries(INTENTS).map(([kind, verbs]) => `[${stringLiteral(kind)}] = [${list(new Set(verbs.map(stem)))}],`).join('\n        ');
  const phrasal = [...phrasalTerms()].map(([pair, verb]) => `[${stringLiteral(pair)}] = ${stringLiteral(verb)},`).join('\n        ');
  return [
    template('McpDiscovery', supportPath('McpDiscovery.cs'), namespace, source, clientNamespace, fills),
    template('McpSearch', supportPath('McpSearch.cs'), namespace, source, clientNamespace, { __INTENT_BOOST__: String(INTENT_BOOST), __RESOURCE_MISS__: String(RESOURCE_MISS), __RESOURCE_HELD__: String(RESOURCE_HELD), __NAME_COVERAGE__: String(NAME_COVERAGE) }),
    template('McpSearchQuery', supportPath('McpSearchQuery.cs'), namespace, source, clientNamespace, {
      __AGENT__: AGENT, __PERSON__: PERSON, __AUXILIARIES__: list(AUXILIARIES), __PRONOUNS__: list(PRONOUNS), __CEASING__: list(CEASING), __PREPOSITIONS__: list(PREPOSITIONS), __DETERMINERS__: list(DETERMINERS), __INTENTS__: intents, __STOP_WORDS__: list(STOP_WORDS), __PHRASAL_VERBS__: phrasal, __NEGATIONS__: list(NEGATIONS), __QUESTION_WORDS__: list(QUESTION_WORDS),
    }),
  ];
}

/** Discovery and code mode's search: the tools (in code mode, search_operations), the search and its index. */
export const discoveryMode: HostFeature = {
  applies: (options) => options.mode !== 'operations',
  files: (options, source) => emitDiscovery(options.namespace, options.clientNamespace, source, options.mode),
  packages: () => SEARCH_PACKAGES,
  embedded: () => [{ file: SEARCH_INDEX_FILE, name: SEARCH_INDEX_RESOURCE }],
  program: (options) => (options.mode === 'discovery' ? {
    server: [
      '// Discovery mode: three tools that search the operations, describe one and call it.',
      '.WithDiscoveryTools()',
    ],
  } : {}),
};

/** The annotations of call_operation and run_script, as McpDiscoveryText's constants: the least permissive of the operations'. */
export function reachHints(operations: readonly Operation[]): { ReachReadOnly: boolean; ReachDestructive: boolean; ReachIdempotent: boolean } {
  const hints = operations.map(toolHints);
  return { ReachReadOnly: hints.every((h) => h.readOnly), ReachDestructive: hints.some((h) => h.destructive), ReachIdempotent: hints.every((h) => h.idempotent) };
}

/**
 * McpDiscoveryText.g.cs, written with McpTools.g.cs (it depends on the selected operations, which the host's files
 * do not): the descriptions of the discovery tools that carry `map`, as constants McpDiscovery.cs's attributes name.
 */
export function emitDiscoveryText(namespace: string, source: string, map: string, mode: ToolMode, operations: readonly Operation[]): GeneratedFile {
  const constants = discoveryTools(mode, map).flatMap((tool) => (tool.describedBy === undefined ? [] : [
    `    /// <summary>The description of ${tool.name}: what it answers, and the map of the selected operations.</summary>`,
    `    internal const string ${tool.describedBy} = ${stringLiteral(tool.description)};`,
  ]));
  const reach = [
    '    // call_operation and run_script reach every selected operation: annotated as the least permissive of their tools.',
    ...Object.entries(reachHints(operations)).map(([name, value]) => `    internal const bool ${name} = ${value};`),
  ];
  return {
    path: DISCOVERY_TEXT_FILE,
    content: [
      banner(source).trimEnd(),
      '#nullable enable',
      '',
      `namespace ${namespace};`,
      '',
      '/// <summary>What the discovery tools (McpDiscovery.cs) say of the selected operations.</summary>',
      `internal static class ${DISCOVERY_TEXT_CLASS}`,
      '{',
      ...constants,
      ...reach,
      '}',
      '',
    ].join('\n'),
  };
}
