import type { OperationNames, NamePlan } from '../../names/plan.js';
import { BODY_PARAMETER } from '../../names/plan.js';
import type { Operation, Parameter, RequestBody } from '../../model/types.js';
import { csharpType } from './csharp-types.js';
import { enumPublished, valueDescription } from './describe.js';

/** One C# parameter of a generated client or tool method. */
export interface MethodParameter {
  readonly name: string;
  readonly type: string;
  /** Has a `= null` default (and so is optional in the tool's input schema). */
  readonly optional: boolean;
  /** The whole description, for XML docs. */
  readonly description: string;
  /** The description a tool publishes: without the allowed values its input schema lists as `enum`. */
  readonly schemaDescription: string;
  readonly source: { readonly kind: 'parameter'; readonly parameter: Parameter } | { readonly kind: 'body'; readonly body: RequestBody } | { readonly kind: 'nextLink' } | { readonly kind: 'operation' };
}

const LOCATION_WORDS = { path: 'Path', query: 'Query', header: 'Header', cookie: 'Cookie' } as const;

/**
 * The operation's parameters in the order both the client and the tool methods declare them:
 * required ones (path first), the body when required, then the optional ones.
 */
export function methodParameters(op: Operation, names: OperationNames, plan: NamePlan): readonly MethodParameter[] {
  // The client and the tools declare the same parameters (init emits both): work them out once per plan.
  let found = PLANNED.get(names);
  if (found === undefined) {
    found = parametersOf(op, names, plan);
    PLANNED.set(names, found);
  }
  return found;
}

/** Keyed by the operation's planned names, which belong to one plan and one operation. */
const PLANNED = new WeakMap<OperationNames, readonly MethodParameter[]>();

/** A parameter's descriptions, worked out once: operations share parameters (GitHub: 2,230 uses of 118). */
function descriptionsOf(parameter: Parameter): { readonly description: string; readonly schemaDescription: string } {
  let found = DESCRIPTIONS.get(parameter);
  if (found === undefined) {
    const fallback = `${LOCATION_WORDS[parameter.location]} parameter ${parameter.name}`;
    const client = parameter.client ? ' When not given: the value the client is configured with.' : '';
    const description = (valueDescription(parameter.facts, parameter.type, fallback) ?? '') + client;
    // The same text unless the schema lists the allowed values itself.
    const schemaDescription = enumPublished(parameter.type) ? (valueDescription(parameter.facts, parameter.type, fallback, true) ?? '') + client : description;
    DESCRIPTIONS.set(parameter, (found = { description, schemaDescription }));
  }
  return found;
}
const DESCRIPTIONS = new WeakMap<Parameter, { readonly description: string; readonly schemaDescription: string }>();

function parametersOf(op: Operation, names: OperationNames, plan: NamePlan): MethodParameter[] {
  // A parameter the client sets once is not the caller's to give (api-version), or may be left to the client's value.
  const list: MethodParameter[] = op.parameters.flatMap((parameter, index) => {
    if (parameter.client?.fixed) return [];
    const { description, schemaDescription } = descriptionsOf(parameter);
    const optional = !parameter.required || parameter.client !== undefined;
    return [{
      name: names.parameters[index] ?? `p${index}`,
      type: csharpType(parameter.type, plan, optional),
      optional,
      description,
      schemaDescription,
      source: { kind: 'parameter', parameter },
    }];
  });
  if (op.body) {
    const body = op.body;
    const bodyDescription = body.description?.trim() || (body.kind === 'binary' ? `Request body (${body.mediaType}), base64-encoded.` : `Request body (${body.mediaType}).`);
    list.push({
      name: BODY_PARAMETER,
      type: csharpType(body.type, plan, !body.required),
      optional: !body.required,
      description: bodyDescription,
      schemaDescription: bodyDescription,
      source: { kind: 'body', body },
    });
  }
  if (op.paging && names.nextLink) {
    const description = `The next page: the \`${op.paging.nextLinkName}\` of a previous answer of this operation, fetched as it is (it must be on the API's origin and this operation's path); the other arguments are not sent then.`;
    list.push({ name: names.nextLink, type: 'string?', optional: true, description, schemaDescription: description, source: { kind: 'nextLink' } });
  }
  if (op.longRunning && names.operation) {
    const description = 'A long-running operation this tool answered was still running: its `operation` token. The operation is watched again until it ends; nothing is sent again.';
    list.push({ name: names.operation, type: 'string?', optional: true, description, schemaDescription: description, source: { kind: 'operation' } });
  }
  const rank = (p: MethodParameter): number => (p.optional ? 2 : p.source.kind === 'parameter' && p.source.parameter.location === 'path' ? 0 : 1);
  return list.map((p, i) => ({ p, i })).sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i).map(({ p }) => p);
}
