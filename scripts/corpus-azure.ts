/**
 * `npm run corpus -- --azure [--list FILE] [--generator DIST] [--out FILE] [--compare FILE]`
 *
 * The Azure sweep: what the tools of the corpus ask of the model where the document is written for Azure's SDKs
 * (AutoRest). Per operation, from the document as the generator read it (`$ref`s to shared parameters followed): its
 * `api-version` query parameter (required or not, with a default or an enum or not), `x-ms-pageable` (with a
 * `nextLinkName`), `x-ms-long-running-operation: true`, and its client parameters (`x-ms-parameter-location: client`
 * other than api-version, and an ARM document's `subscriptionId` in the path); from the generator: the tool's
 * api-version argument (any whose name is api-version written another way) and whether it is required, whether it
 * takes a `nextLink`, whether the model marks the operation long-running (which an earlier model lacks), and the
 * client parameters its input schema still requires.
 *
 * `--generator DIST` reads the generator from another build (a `dist` folder of an earlier commit), so that one run
 * with the earlier generator (`--out before.json`) and one with this one (`--compare before.json`) give the figures
 * before and after.
 */
import { declaredParameters, follow, isNode, sweep, sweepOptions, type Generator, type Node, type SweptSpec } from './corpus-sweep.js';

type Presence = 'none' | 'optional' | 'required';

interface OperationRecord {
  readonly spec: string;
  readonly tool: string;
  /** The document's `api-version` query parameter, and whether its schema gives a default or an enum. */
  readonly apiVersion: Presence;
  readonly apiVersionValue: boolean;
  /** The document has a parameter named api-version in some way (`apiVersion`, `api_version`), anywhere. */
  readonly apiVersionAnywhere: boolean;
  /** The tool's argument whose name is api-version in some way. */
  readonly apiVersionArgument: Presence;
  /** `x-ms-pageable` with a `nextLinkName` (not null), and whether the tool takes a `nextLink`. */
  readonly pageable: boolean;
  readonly nextLinkArgument: boolean;
  /** `x-ms-long-running-operation: true`, and whether the generator's model marks the operation long-running. */
  readonly longRunning: boolean;
  readonly watched: boolean;
  /** Client parameters (`x-ms-parameter-location: client` but api-version, an ARM `subscriptionId`), and those the tool requires. */
  readonly clientParameters: number;
  readonly clientParametersRequired: number;
}

/** A name with case, `-` and `_` set aside: `api-version`, `apiVersion` and `api_version` are `apiversion`. */
const normalised = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

export async function azureSweep(argv: readonly string[]): Promise<void> {
  await sweep(sweepOptions(argv, '--azure'), operationRecords, report);
}

/** A record for every operation of a spec. */
function operationRecords({ id, model, plan, root, operations }: SweptSpec, { schemas, identifiers }: Generator): OperationRecord[] {
  // An ARM document, as the generator tells one: a path under /subscriptions/{subscriptionId}.
  const arm = isNode(root.paths) && Object.keys(root.paths).some((path) => path.startsWith('/subscriptions/{subscriptionId}'));
  return operations.map(({ op, pathItem, operation }) => {
    const names = plan.operations.get(op.id);
    const input = schemas.inputSchema(model, plan, op);
    const properties = isNode(input.properties) ? Object.keys(input.properties) : [];
    const required = new Set(Array.isArray(input.required) ? (input.required as string[]) : []);
    const presence = (key: string | undefined): Presence => (key === undefined ? 'none' : required.has(key) ? 'required' : 'optional');

    // The operation's own parameters override the path item's of the same name and location.
    const declared = new Map(declaredParameters(root, pathItem, operation).map((p) => [`${String(p.in)} ${String(p.name)}`, p]));
    const apiVersion = [...declared.values()].find((p) => p.in === 'query' && typeof p.name === 'string' && p.name.toLowerCase() === 'api-version');
    const client = [...declared.values()].filter((p) => typeof p.name === 'string' && p.name.toLowerCase() !== 'api-version'
      && (p['x-ms-parameter-location'] === 'client' || (arm && p.in === 'path' && p.name === 'subscriptionId')));
    // A client parameter's argument: the planned name of the model's parameter of the same name and location.
    const argumentOf = (p: Node): string | undefined => {
      const index = op.parameters.findIndex((q) => q.name === p.name && q.location === p.in);
      const name = index >= 0 ? names?.parameters[index] : undefined;
      return name !== undefined && properties.includes(identifiers.bareName(name)) ? identifiers.bareName(name) : undefined;
    };
    const paging = operation['x-ms-pageable'];
    return {
      spec: id,
      tool: names?.toolName ?? op.id,
      apiVersion: apiVersion === undefined ? 'none' : apiVersion.required === true ? 'required' : 'optional',
      apiVersionValue: apiVersion !== undefined && hasValue(root, apiVersion),
      apiVersionAnywhere: [...declared.values()].some((p) => typeof p.name === 'string' && normalised(p.name) === 'apiversion'),
      apiVersionArgument: presence(properties.find((key) => normalised(key) === 'apiversion')),
      pageable: isNode(paging) && typeof paging.nextLinkName === 'string' && paging.nextLinkName !== '',
      nextLinkArgument: properties.includes(names?.nextLink ?? 'nextLink'),
      longRunning: operation['x-ms-long-running-operation'] === true,
      watched: (op as { longRunning?: unknown }).longRunning !== undefined,
      clientParameters: client.length,
      clientParametersRequired: client.filter((p) => presence(argumentOf(p)) === 'required').length,
    };
  });
}

/** Whether a parameter (or its schema) gives a default or an enum. */
function hasValue(root: Node, parameter: Node): boolean {
  const schema = follow(root, parameter.schema).node;
  return [parameter, isNode(schema) ? schema : {}].some((node) => node.default !== undefined || (Array.isArray(node.enum) && node.enum.length > 0));
}

interface Figure {
  readonly label: string;
  /** The operations the figure is about, as the document declares them. */
  readonly of: (r: OperationRecord) => boolean;
  /** Those of them counted; `weight`: how many (parameters) each counts for, where not one. */
  readonly counted: (r: OperationRecord) => boolean;
  readonly weight?: (r: OperationRecord) => number;
  readonly ofWeight?: (r: OperationRecord) => number;
}

const FIGURES: readonly Figure[] = [
  {
    label: 'operations with a required api-version (no default or enum in the document) whose tool asks the model for it (required argument)',
    of: (r) => r.apiVersion === 'required' && !r.apiVersionValue,
    counted: (r) => r.apiVersionArgument === 'required',
  },
  {
    label: 'tools with any api-version argument (of the operations with an api-version parameter)',
    of: (r) => r.apiVersionAnywhere,
    counted: (r) => r.apiVersionArgument !== 'none',
  },
  {
    label: 'x-ms-pageable operations whose next page a model can reach (tool takes nextLink)',
    of: (r) => r.pageable,
    counted: (r) => r.nextLinkArgument,
  },
  {
    label: 'x-ms-long-running-operations the client watches to the end within the tool call (model marks long-running)',
    of: (r) => r.longRunning,
    counted: (r) => r.watched,
  },
  {
    label: 'client parameters (x-ms-parameter-location: client, ARM subscriptionId) the model must give on every call (required argument); operations (parameters)',
    of: (r) => r.clientParameters > 0,
    counted: (r) => r.clientParametersRequired > 0,
    weight: (r) => r.clientParametersRequired,
    ofWeight: (r) => r.clientParameters,
  },
];

const number = (n: number): string => n.toLocaleString('en-US');

/** Specs and operations (and parameters, where the figure counts them) of `records` that `test` holds for. */
function count(records: readonly OperationRecord[], test: (r: OperationRecord) => boolean, weight?: (r: OperationRecord) => number): string {
  const matched = records.filter(test);
  const specs = new Set(matched.map((r) => r.spec)).size;
  const parameters = weight ? ` (${number(matched.reduce((total, r) => total + weight(r), 0))})` : '';
  return `${number(specs)} / ${number(matched.length)}${parameters}`;
}

/** The table: per figure, the operations it is about, and how many specs / operations it counts (before → after). */
function report(records: readonly OperationRecord[], before: readonly OperationRecord[] | undefined): string {
  const lines = before
    ? ['| | of (specs / operations) | before (specs / operations) | after (specs / operations) |', '|---|---|---|---|']
    : ['| | of (specs / operations) | specs / operations |', '|---|---|---|'];
  for (const figure of FIGURES) {
    const of = count(records, figure.of, figure.ofWeight);
    const earlierOf = before ? count(before, figure.of, figure.ofWeight) : of;
    const after = count(records, (r) => figure.of(r) && figure.counted(r), figure.weight);
    const cells = before ? [count(before, (r) => figure.of(r) && figure.counted(r), figure.weight), after] : [after];
    lines.push(`| ${figure.label} | ${earlierOf === of ? of : `${earlierOf} → ${of}`} | ${cells.join(' | ')} |`);
  }
  lines.push('', `Swept: ${number(new Set(records.map((r) => r.spec)).size)} specs, ${number(records.length)} operations.`);
  // Where this generator still asks: the specs with the most such operations.
  const still = (title: string, test: (r: OperationRecord) => boolean): void => {
    const bySpec = new Map<string, number>();
    for (const r of records.filter(test)) bySpec.set(r.spec, (bySpec.get(r.spec) ?? 0) + 1);
    if (bySpec.size === 0) return;
    const top = [...bySpec].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([spec, n]) => `${spec} (${n})`);
    lines.push('', `${title}: ${top.join(', ')}${bySpec.size > top.length ? `, and ${bySpec.size - top.length} more specs` : ''}.`);
  };
  still('Still asking for a required api-version', (r) => FIGURES[0]!.of(r) && FIGURES[0]!.counted(r));
  still('Pageable, no nextLink argument', (r) => r.pageable && !r.nextLinkArgument);
  still('Long-running, not marked', (r) => r.longRunning && !r.watched);
  still('Client parameters still required', (r) => r.clientParametersRequired > 0);
  return `${lines.join('\n')}\n`;
}
