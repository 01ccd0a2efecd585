/**
 * Failures of the runtime sweep whose cause lies outside the generator, each with its evidence: a spec that
 * contradicts itself (no request could pass), or Prism misreading a request the spec allows. Every other
 * failure is the generator's until shown otherwise.
 */
export interface Explanation {
  readonly spec: string;
  /** The tools it applies to (all of the spec's when absent). */
  readonly tool?: RegExp;
  /** What the failure says (the mock's validation message, or the tool's answer). */
  readonly reason: RegExp;
  /** `spec`: the spec contradicts itself; `mock`: Prism refuses or misreads what the spec allows. */
  readonly verdict: 'spec' | 'mock';
  readonly evidence: string;
}

export const EXPLAINED: readonly Explanation[] = [
  {
    spec: 'bbci.co.uk',
    reason: /mixin must be equal to one of the allowed values/,
    verdict: 'spec',
    evidence: 'components.parameters.mixin is `{type: array, enum: [live, promotions], items: {type: string}}`: the enum stands on the array, and no array equals a string. The tool sends items from the enum, as the author meant; Prism checks the array against it.',
  },
  {
    spec: 'pandascore.co',
    reason: /Request query parameter (filter|range|search)\.\w+ must NOT have fewer than \d+ items/,
    verdict: 'mock',
    evidence: 'Prism fills every array member of a deepObject parameter the request leaves out with [] and then applies minItems: `GET /teams` with no query parameter at all is refused with the same violations.',
  },
  {
    spec: 'pandascore.co',
    reason: /Request path parameter \w+ must match exactly one schema in oneOf/,
    verdict: 'spec',
    evidence: 'The ID-or-slug schemas are `oneOf: [{type: integer, minimum: 1}, {type: string, pattern: "^[a-z0-9_-]+$"}]`: in a path every integer is also a string that matches the slug pattern, so an id matches both alternatives and oneOf (exactly one) fails for every id.',
  },
  {
    spec: 'evetech.net',
    tool: /^get_route$/,
    reason: /Request query parameter connections/,
    verdict: 'spec',
    evidence: 'The `connections` query parameter is an array of arrays (`items: {type: array, items: int32, minItems: 2, maxItems: 2}`, style form, explode false). OpenAPI defines no serialization for arrays inside a query parameter: the tool writes each pair as `[a,b]`, comma-separated; Prism splits every comma and finds numbers where it wants pairs.',
  },
  {
    spec: 'azure.com/logic',
    reason: /must NOT have additional properties/,
    verdict: 'spec',
    evidence: 'KeyVaultReference has `additionalProperties: false` beside `allOf: [ResourceReference]`: in JSON Schema the properties the allOf part adds count as additional, so the schema refuses its own documented properties.',
  },
];

/** The explanation that covers a failed call of a spec, if any. */
export function explanationOf(spec: string, call: { readonly tool: string; readonly reason: string }): Explanation | undefined {
  return EXPLAINED.find((e) => e.spec === spec && (e.tool === undefined || e.tool.test(call.tool)) && e.reason.test(call.reason));
}
