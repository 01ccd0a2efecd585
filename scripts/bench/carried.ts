/**
 * What the tools of a tools/list answer carry (for the payload area): bytes, descriptions of tools
 * and parameters, `required`, enums, annotations, output schemas.
 */
import { int, percent } from './lib.js';

/** Counts over the tools of one tools/list answer. */
export interface Carried {
  readonly tools: number;
  readonly bytes: number;
  readonly descriptionBytes: number;
  readonly schemaBytes: number;
  readonly withDescription: number;
  readonly parameters: number;
  readonly describedParameters: number;
  readonly toolsAllParametersDescribed: number;
  readonly toolsWithParameters: number;
  readonly toolsWithRequired: number;
  readonly toolsWithEnumKeyword: number;
  readonly toolsWithAllowedValuesText: number;
  readonly toolsWithAnnotations: number;
  readonly toolsWithOutputSchema: number;
}

/** What the tools (as sent, or as the peer's handler returns them) carry. */
export function carried(tools: readonly unknown[]): Carried {
  let descriptionBytes = 0;
  let schemaBytes = 0;
  let withDescription = 0;
  let parameters = 0;
  let describedParameters = 0;
  let toolsAllParametersDescribed = 0;
  let toolsWithParameters = 0;
  let toolsWithRequired = 0;
  let toolsWithEnumKeyword = 0;
  let toolsWithAllowedValuesText = 0;
  let toolsWithAnnotations = 0;
  let toolsWithOutputSchema = 0;
  for (const raw of tools) {
    const tool = raw as { description?: string; inputSchema?: { properties?: Record<string, { description?: string }>; required?: string[] }; annotations?: unknown; outputSchema?: unknown };
    const description = tool.description ?? '';
    if (description.trim() !== '') withDescription++;
    descriptionBytes += Buffer.byteLength(JSON.stringify(description));
    const schemaJson = JSON.stringify(tool.inputSchema ?? {});
    schemaBytes += Buffer.byteLength(schemaJson);
    const properties = Object.values(tool.inputSchema?.properties ?? {});
    parameters += properties.length;
    const described = properties.filter((p) => typeof p.description === 'string' && p.description.trim() !== '').length;
    describedParameters += described;
    if (properties.length > 0) {
      toolsWithParameters++;
      if (described === properties.length) toolsAllParametersDescribed++;
    }
    if ((tool.inputSchema?.required ?? []).length > 0) toolsWithRequired++;
    if (/"enum"\s*:/.test(schemaJson)) toolsWithEnumKeyword++;
    if (/allowed values|one of:/i.test(`${description} ${schemaJson}`)) toolsWithAllowedValuesText++;
    if (tool.annotations !== undefined) toolsWithAnnotations++;
    if (tool.outputSchema !== undefined) toolsWithOutputSchema++;
  }
  return {
    tools: tools.length,
    bytes: Buffer.byteLength(JSON.stringify(tools)),
    descriptionBytes,
    schemaBytes,
    withDescription,
    parameters,
    describedParameters,
    toolsAllParametersDescribed,
    toolsWithParameters,
    toolsWithRequired,
    toolsWithEnumKeyword,
    toolsWithAllowedValuesText,
    toolsWithAnnotations,
    toolsWithOutputSchema,
  };
}

/** One cell: the shares of tools (or parameters) that carry each thing. */
export function describeCarried(c: Carried): string {
  return [
    `description ${percent(c.withDescription, c.tools)}`,
    `parameters described ${percent(c.describedParameters, c.parameters)} of ${int(c.parameters)} (all described in ${percent(c.toolsAllParametersDescribed, c.toolsWithParameters)} of tools with parameters)`,
    `\`required\` list ${percent(c.toolsWithRequired, c.tools)}`,
    `\`enum\` keyword ${percent(c.toolsWithEnumKeyword, c.tools)}`,
    `allowed values in text ${percent(c.toolsWithAllowedValuesText, c.tools)}`,
    `annotations ${percent(c.toolsWithAnnotations, c.tools)}`,
    `outputSchema ${percent(c.toolsWithOutputSchema, c.tools)}`,
  ].join('; ');
}
