import type { ApiModel, ClientParameter, ObjectType, Operation, Parameter, ParameterLocation, TypeOrigin } from '../model/types.js';
import { settingSuffix } from './environment.js';
import { LONE_SURROGATE, bareName, identifier, nameFrom, unique, words } from './identifiers.js';
import { singular, toolNameParts } from './tool-names.js';
import { commonPrefixLength } from './path-tokens.js';
import { chooseToolNames } from './tool-name-choice.js';

/** Names of the types and members the generator itself declares. */
export const FIXED_NAMES = {
  clientClass: 'ApiClient',
  result: 'ApiResult',
  error: 'ApiError',
  request: 'ApiRequest',
  json: 'ApiJson',
  responseKind: 'ApiResponseKind',
  queryStyle: 'ApiQueryStyle',
  file: 'ApiFile',
  credentials: 'ApiCredentials',
  credential: 'ApiCredential',
  credentialKind: 'ApiCredentialKind',
  credentialsException: 'ApiCredentialsException',
  errorMessages: 'ApiErrorMessages',
  clientParameters: 'ApiClientParameters',
  limits: 'ApiLimits',
  tools: 'McpTools',
} as const;

/**
 * Type names a spec schema may not take: ours, and every framework type the generated code names
 * without its namespace (a schema called `DateTime` would otherwise capture those references).
 */
const RESERVED_TYPE_NAMES = new Set<string>([
  ...Object.values(FIXED_NAMES), 'Program',
  // the client's runtime (src/emit/client/csharp) beyond FIXED_NAMES
  'ApiBase64', 'ApiFileConverter', 'ApiSecrets', 'IApiTokenStore',
  // System
  'System', 'Object', 'String', 'Attribute', 'Exception', 'OperationCanceledException', 'InvalidOperationException',
  'Func', 'Action', 'Math', 'Convert', 'Uri', 'UriKind', 'UriCreationOptions', 'DateTime', 'DateTimeOffset', 'DateOnly',
  'TimeSpan', 'Guid', 'IFormattable', 'StringComparison', 'StringSplitOptions', 'Version', 'Type', 'Nullable', 'Enum', 'Array',
  // collections, text, globalization, threading
  'IEnumerable', 'IReadOnlyList', 'IReadOnlyDictionary', 'List', 'Dictionary', 'KeyValuePair', 'StringBuilder', 'Encoding',
  'CultureInfo', 'Task', 'ValueTask', 'CancellationToken',
  // HTTP
  'HttpClient', 'HttpMethod', 'HttpContent', 'HttpRequestMessage', 'HttpResponseMessage', 'HttpRequestException',
  'HttpCompletionOption', 'HttpRequestError', 'StringContent', 'ByteArrayContent', 'FormUrlEncodedContent', 'MultipartFormDataContent',
  'MediaTypeHeaderValue', 'AuthenticationHeaderValue', 'HttpStatusCode', 'DelegatingHandler', 'HttpMessageHandler',
  'SocketsHttpHandler', 'HttpRequestOptionsKey', 'SemaphoreSlim', 'ConcurrentDictionary', 'StringComparer', 'IDictionary',
  'Enumerable', 'IOException', 'UriBuilder', 'UriPartial', 'AsyncLocal', 'DecompressionMethods',
  // JSON
  'JsonElement', 'JsonDocument', 'JsonValueKind', 'JsonException', 'JsonSerializer', 'JsonSerializerOptions',
  'JsonSerializerDefaults', 'JsonIgnoreCondition', 'JsonNumberHandling', 'JsonPropertyName', 'JsonPropertyNameAttribute',
  'JsonTypeInfo', 'JsonTypeInfoKind', 'DefaultJsonTypeInfoResolver', 'JsonNode', 'JsonArray', 'JsonObject', 'JavaScriptEncoder',
  // attributes and MCP
  'Description', 'DescriptionAttribute', 'Obsolete', 'ObsoleteAttribute', 'AllowedValues', 'AllowedValuesAttribute', 'Range',
  'RangeAttribute', 'McpServerTool', 'McpServerToolType',
  'McpServerToolAttribute', 'McpServerToolTypeAttribute',
]);

/** Members every record or class already has. */
const RESERVED_MEMBER_NAMES = new Set(['RunAsync', 'MaxResultLength', 'CallNotes', 'Clone', 'Equals', 'GetHashCode', 'ToString', 'GetType', 'MemberwiseClone', 'Finalize', 'EqualityContract', 'Deconstruct', 'PrintMembers', 'ReferenceEquals']);

/** HttpClient's own methods: an extension method with one of these names could be shadowed. */
const HTTP_CLIENT_MEMBERS = new Set(['GetAsync', 'PostAsync', 'PutAsync', 'PatchAsync', 'DeleteAsync', 'SendAsync', 'Send', 'GetStringAsync', 'GetByteArrayAsync', 'GetStreamAsync', 'CancelPendingRequests', 'Dispose']);

/** C# parameter names the generated methods use themselves. */
export const BODY_PARAMETER = 'body';
export const HTTP_CLIENT_PARAMETER = 'httpClient';
export const CANCELLATION_PARAMETER = 'cancellationToken';
/** The MCP request a tool that asks for confirmation reads (`--confirm`). */
export const REQUEST_CONTEXT_PARAMETER = 'mcpRequest';
/** Where a long-running operation's tool reports how the operation stands (MCP progress notifications). */
export const PROGRESS_PARAMETER = 'mcpProgress';

export interface OperationNames {
  /** MCP tool name, `^[a-z0-9_]{1,64}$`. */
  readonly toolName: string;
  /** Method in `McpTools`. */
  readonly toolMethod: string;
  /** Extension method in the client class. */
  readonly clientMethod: string;
  /** C# parameter names (also the MCP argument names, without `@`), aligned with `Operation.parameters`. */
  readonly parameters: readonly string[];
  /** A paged operation's argument that takes the next page's URL (`nextLink`). */
  readonly nextLink?: string;
  /** A long-running operation's argument that takes the token of an operation still running (`operation`). */
  readonly operation?: string;
  /** What the operation acts on, in words, for messages: `pet`, `owner pets`. */
  readonly subject: string;
  /** Title for clients: `Get pet`. */
  readonly title: string;
}

export interface TypeNames {
  readonly name: string;
  /** C# property names aligned with `ObjectType.properties`. */
  readonly properties: readonly string[];
}

/** A parameter the client sets once (`api-version`, `subscriptionId`): its property and the server's setting. */
export interface ClientParameterNames {
  readonly name: string;
  readonly location: ParameterLocation;
  readonly client: ClientParameter;
  /** Property of `ApiClientParameters`. */
  readonly property: string;
  /** The server's setting, after its prefix: `API_VERSION`, `SUBSCRIPTION_ID`. */
  readonly setting: string;
  readonly description?: string;
}

/** Every identifier the emitters write, decided once. */
export interface NamePlan {
  readonly operations: ReadonlyMap<string, OperationNames>;
  readonly types: ReadonlyMap<string, TypeNames>;
  /** By `location:name`, in the order the operations first take them. */
  readonly clientParameters: ReadonlyMap<string, ClientParameterNames>;
}

/** The key of a client parameter in {@link NamePlan.clientParameters}. */
export const clientParameterKey = (parameter: Parameter): string => `${parameter.location}:${parameter.name}`;

/**
 * Plans every name. `clientNamespace` matters: a type may not be named like one of its segments
 * (`Client` in `Petstore.Client` would read as the namespace from `Petstore`).
 */
export function planNames(model: ApiModel, clientNamespace = ''): NamePlan {
  const operations = planOperations(model.operations);
  const types = planTypes(model, operations, clientNamespace.split('.').filter((s) => s !== ''));
  return { operations, types, clientParameters: planClientParameters(model.operations) };
}

/** The parameters the client sets once, with their property and setting names (also read by the project files that list the settings). */
export function planClientParameters(list: readonly Operation[]): Map<string, ClientParameterNames> {
  const result = new Map<string, ClientParameterNames>();
  const properties = new Set<string>(RESERVED_MEMBER_NAMES);
  const settings = new Set<string>();
  for (const op of list) {
    for (const parameter of op.parameters) {
      if (!parameter.client) continue;
      const key = clientParameterKey(parameter);
      if (result.has(key)) continue;
      const property = unique(nameFrom(parameter.clientName ?? parameter.name, 'pascal', 'Parameter'), properties);
      const setting = unique(settingSuffix(property), settings);
      const description = parameter.facts.description;
      result.set(key, { name: parameter.name, location: parameter.location, client: parameter.client, property, setting, ...(description !== undefined && { description }) });
    }
  }
  return result;
}

function planOperations(list: readonly Operation[]): Map<string, OperationNames> {
  const prefix = commonPrefixLength(list.map((op) => op.requestPath));
  const toolNames = new Set<string>();
  // A tool method may not take the name of a type the tools class uses (Convert, Task, …) or its own.
  const methods = new Set<string>([...RESERVED_MEMBER_NAMES, ...RESERVED_TYPE_NAMES]);
  const result = new Map<string, OperationNames>();
  // Names the spec's author chose (x-mcp) are taken first.
  for (const op of list) if (op.mcp?.name) toolNames.add(op.mcp.name);
  const chosenNames = chooseToolNames(list.filter((op) => op.mcp?.name === undefined), prefix, toolNames);
  for (const op of list) {
    const chosen = chosenNames.get(op.id);
    const parts = chosen?.parts ?? toolNameParts(op, prefix);
    const toolName = op.mcp?.name ?? chosen?.name ?? '';
    const nameWords = toolName.split('_');
    let toolMethod = unique(identifier(nameWords, 'pascal', 'Call'), methods);
    if (HTTP_CLIENT_MEMBERS.has(`${toolMethod}Async`)) toolMethod = unique(`${toolMethod}Operation`, methods);
    const subject = [...parts.target].join(' ') || parts.verb.join(' ');
    const title = titleOf(op, toolName);
    const parameters = planParameters(op);
    const taken = new Set([...parameters.map(bareName), BODY_PARAMETER, HTTP_CLIENT_PARAMETER, CANCELLATION_PARAMETER, REQUEST_CONTEXT_PARAMETER, PROGRESS_PARAMETER]);
    const nextLink = op.paging ? unique('nextLink', taken) : undefined;
    const operation = op.longRunning ? unique('operation', taken) : undefined;
    result.set(op.id, { toolName, toolMethod, clientMethod: `${toolMethod}Async`, parameters, subject, title, ...(nextLink !== undefined && { nextLink }), ...(operation !== undefined && { operation }) });
  }
  return result;
}

/** Longest summary used as a tool's title; longer ones (and operations without one) get a title from the tool name. */
export const MAX_TITLE_LENGTH = 60;

/** `Get a pet by id` (the summary, when it is one short line of plain text), else `Get pet` (from the tool name). */
function titleOf(op: Operation, toolName: string): string {
  const summary = op.summary?.trim().replace(/\.$/, '');
  if (summary && summary.length <= MAX_TITLE_LENGTH && !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(summary) && summary.search(LONE_SURROGATE) < 0) return summary;
  return toolName.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

function planParameters(op: Operation): string[] {
  const taken = new Set<string>([BODY_PARAMETER, HTTP_CLIENT_PARAMETER, CANCELLATION_PARAMETER, REQUEST_CONTEXT_PARAMETER].filter((n) => n !== BODY_PARAMETER || op.body));
  const counts = new Map<string, number>();
  const bases = op.parameters.map((p) => nameFrom(p.clientName ?? p.name, 'camel', 'value'));
  bases.forEach((b) => counts.set(b, (counts.get(b) ?? 0) + 1));
  return op.parameters.map((parameter, index) => {
    const base = bases[index] ?? 'value';
    const clash = (counts.get(base) ?? 0) > 1 || taken.has(bareName(base));
    const wanted = clash && parameter.location !== 'path' ? identifier([...words(parameter.clientName ?? parameter.name), parameter.location], 'camel', 'value') : base;
    return unique(wanted, taken);
  });
}

function planTypes(model: ApiModel, operations: ReadonlyMap<string, OperationNames>, namespaceSegments: readonly string[]): Map<string, TypeNames> {
  const reserved = new Set([...RESERVED_TYPE_NAMES, ...RESERVED_MEMBER_NAMES, ...namespaceSegments]);
  const taken = new Set(reserved);
  const names = new Map<string, string>();
  const nameOf = (origin: TypeOrigin): string => {
    const pascal = (text: string): string => nameFrom(text, 'pascal', 'Model');
    switch (origin.kind) {
      case 'component': return pascal(origin.name);
      case 'property': return (names.get(origin.parent) ?? 'Model') + pascal(origin.property);
      case 'items': return (names.get(origin.parent) ?? 'Model') + identifier(singular(words(origin.property)), 'pascal', 'Model') + 'Item';
      case 'requestBody': return (operations.get(origin.operation)?.toolMethod ?? 'Operation') + 'Request';
      case 'response': return (operations.get(origin.operation)?.toolMethod ?? 'Operation') + 'Response';
      case 'parameter': return (operations.get(origin.operation)?.toolMethod ?? 'Operation') + pascal(origin.parameter);
      case 'variant': return `${nameOf(origin.of)}Option${origin.index + 1}`;
    }
  };
  const assign = (type: ObjectType): void => {
    let wanted = nameOf(type.origin);
    if (reserved.has(wanted)) wanted += 'Model';
    names.set(type.id, unique(wanted, taken));
  };
  const all = [...model.types.values()];
  all.filter((t) => t.origin.kind === 'component').forEach(assign);
  all.filter((t) => t.origin.kind !== 'component').forEach(assign);

  const result = new Map<string, TypeNames>();
  for (const type of all) result.set(type.id, new PlannedType(names.get(type.id) ?? 'Model', type));
  return result;
}

/** A type's name, and its property names, planned when first asked for (`tools` never needs them). */
class PlannedType implements TypeNames {
  private planned?: readonly string[];

  constructor(readonly name: string, private readonly type: ObjectType) {}

  get properties(): readonly string[] {
    if (!this.planned) {
      const members = new Set([this.name, ...RESERVED_MEMBER_NAMES]);
      this.planned = this.type.properties.map((p) => {
        let wanted = nameFrom(p.clientName ?? p.jsonName, 'pascal', 'Property');
        if (members.has(wanted)) wanted += 'Value';
        return unique(wanted, members);
      });
    }
    return this.planned;
  }
}
