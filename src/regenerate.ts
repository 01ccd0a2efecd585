/**
 * `regenerate`: a project's client and tools written again from the spec and the options its `openapi-mcp.json`
 * records (what the .csproj runs on build when the spec changed). The project file, Program.cs, settings and
 * client entries are left as they are.
 */
import { readFile } from 'node:fs/promises';
import { CONFIRM_POLICIES } from './model/confirm.js';
import { SEARCH_KINDS } from './emit/discovery/hybrid.js';
import { join, resolve } from 'node:path';
import { GeneratorError } from './errors.js';
import { describeIoError } from './load/source.js';
import { generateSources, prepare, type PreparedApi } from './generate.js';
import type { LoadOptions } from './load/document.js';
import type { GeneratedFile } from './emit/shared/file.js';
import { RECORD_FILE, type GenerationRecord } from './emit/project/regenerate.js';
import { TOOL_MODES, type ToolMode } from './emit/shared/host-options.js';

/** The record of a project directory, checked field by field. */
export async function readRecord(directory: string, command = 'regenerate'): Promise<GenerationRecord> {
  const path = join(directory, RECORD_FILE);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new GeneratorError('usage', error.code === 'ENOENT' ? `no ${RECORD_FILE} here: ${command} works in a project written by init` : `cannot read: ${describeIoError(error)}`, path);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GeneratorError('usage', `not JSON: ${(error as Error).message}`, path);
  }
  const record = value as Partial<GenerationRecord> | null;
  const fail = (pointer: string, what: string): never => { throw new GeneratorError('usage', `${what}`, `${path}#${pointer}`); };
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return fail('', 'must be an object');
  if (typeof record.spec !== 'string' || record.spec === '') return fail('/spec', 'must be the spec\'s path or URL');
  const overlays = record.overlays;
  if (overlays !== undefined && !(Array.isArray(overlays) && overlays.every((v) => typeof v === 'string' && v !== ''))) fail('/overlays', 'must be a list of the overlays\' paths');
  if (typeof record.serverName !== 'string') return fail('/serverName', 'must be a string');
  const options = record.options ?? {};
  if (typeof options !== 'object' || Array.isArray(options)) return fail('/options', 'must be an object');
  for (const key of ['tags', 'include', 'exclude'] as const) {
    const list = options[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((v) => typeof v === 'string'))) fail(`/options/${key}`, 'must be a list of strings');
  }
  for (const key of ['readOnly', 'structuredOutput', 'resources', 'allowExternalRefs'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'boolean') fail(`/options/${key}`, 'must be true or false');
  }
  if (options.mode !== undefined && !(TOOL_MODES as readonly unknown[]).includes(options.mode)) fail('/options/mode', `must be one of ${TOOL_MODES.join(', ')}`);
  if (options.search !== undefined && !(SEARCH_KINDS as readonly unknown[]).includes(options.search)) fail('/options/search', `must be one of ${SEARCH_KINDS.join(', ')}`);
  if (options.confirm !== undefined && !(CONFIRM_POLICIES as readonly unknown[]).includes(options.confirm)) fail('/options/confirm', `must be one of ${CONFIRM_POLICIES.join(', ')}`);
  return { generator: String(record.generator ?? ''), spec: record.spec, ...(overlays !== undefined && { overlays }), serverName: record.serverName, options };
}

/** A project's record and its spec, loaded with the recorded overlays and options. */
export async function loadRecorded(directory: string, load: (input: string, options: LoadOptions) => Promise<PreparedApi> = prepare, command = 'regenerate'): Promise<{ record: GenerationRecord; api: PreparedApi }> {
  const record = await readRecord(directory, command);
  const spec = /^https?:\/\//i.test(record.spec) ? record.spec : resolve(directory, record.spec);
  const overlays = (record.overlays ?? []).map((overlay) => resolve(directory, overlay));
  return { record, api: await load(spec, { allowExternalRefs: record.options.allowExternalRefs === true, ...(overlays.length > 0 && { overlays }) }) };
}

/** Loads the recorded spec with its overlays and generates the sources again, as `init` did. */
export async function regenerate(directory: string, load: (input: string, options: LoadOptions) => Promise<PreparedApi> = prepare): Promise<{ api: PreparedApi; files: GeneratedFile[]; operations: number }> {
  const { record, api } = await loadRecorded(directory, load);
  const { options } = record;
  const sources = generateSources(api, {
    serverName: record.serverName,
    ...(options.tags !== undefined && { tags: options.tags }),
    ...(options.include !== undefined && { include: options.include }),
    ...(options.exclude !== undefined && { exclude: options.exclude }),
    ...(options.readOnly !== undefined && { readOnly: options.readOnly }),
    ...(options.mode !== undefined && { mode: options.mode as ToolMode }),
    ...(options.structuredOutput !== undefined && { structuredOutput: options.structuredOutput }),
    ...(options.confirm !== undefined && { confirm: options.confirm }),
    ...(options.resources !== undefined && { resources: options.resources }),
  });
  return { api, files: sources.files, operations: sources.operations.length };
}
