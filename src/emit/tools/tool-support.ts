import type { GeneratedFile } from '../shared/file.js';
import { templates } from '../shared/templates.js';
import { supportPath, type HostFeature } from '../shared/feature.js';

const template = templates('tools');

/** The fixed C# the tools run on: argument checks and their messages, the one path every tool call takes, and who the caller is. */
export function emitToolSupport(namespace: string, clientNamespace: string, source: string): GeneratedFile[] {
  return ['McpArgumentErrors', 'McpToolSupport', 'McpCaller'].map((name) => template(name, supportPath(`${name}.cs`), namespace, source, clientNamespace));
}

/** Operations mode's tools: tools/list read from the tools' attributes, each tool made on its first call. */
export const toolCatalog: HostFeature = {
  applies: (options) => options.mode === 'operations',
  files: (options, source) => [template('McpToolCatalog', supportPath('McpToolCatalog.cs'), options.namespace, source, options.clientNamespace)],
  program: () => ({
    server: [
      '// One tool per operation of McpTools: listed in pages from their attributes, each made on its first call (a big API',
      '// starts at once); every call audited, its arguments checked against the published input schemas.',
      '.WithToolCatalog()',
    ],
  }),
};
