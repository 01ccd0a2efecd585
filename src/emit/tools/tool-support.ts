import type { GeneratedFile } from '../shared/file.js';
import { templates } from '../shared/templates.js';

const template = templates('tools');

/** The fixed C# the tools run on: argument checks and their messages, the one path every tool call takes, and who the caller is. */
export function emitToolSupport(namespace: string, clientNamespace: string, source: string): GeneratedFile[] {
  return [
    template('McpArgumentErrors', 'McpArgumentErrors.cs', namespace, source, clientNamespace),
    template('McpToolSupport', 'McpToolSupport.cs', namespace, source, clientNamespace),
    template('McpCaller', 'McpCaller.cs', namespace, source, clientNamespace),
  ];
}

/** Operations mode's tools: tools/list read from the tools' attributes, each tool made on its first call. */
export function emitToolCatalog(namespace: string, clientNamespace: string, source: string): GeneratedFile {
  return template('McpToolCatalog', 'McpToolCatalog.cs', namespace, source, clientNamespace);
}
