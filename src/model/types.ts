/** The intermediate model: built once from the document, read by the naming plan and every emitter. */

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export type Primitive =
  | 'string' | 'int' | 'long' | 'double' | 'float' | 'decimal' | 'bool'
  | 'dateTime' | 'date' | 'uuid' | 'bytes'
  /**
   * A file (`format: binary`, or in OpenAPI 3.1 a `contentMediaType` without `contentEncoding`): its bytes, and in a
   * multipart body its name and media type, which the API receives with it.
   */
  | 'file';

/**
 * What a schema requires of a value beyond its type: the JSON Schema validation keywords, read from the
 * schema wherever they stand (behind `$ref`s and `allOf` wrappers). Tool input schemas publish them and
 * the generated server checks arguments against them before a request is sent.
 */
export interface Constraints {
  /** Allowed values (`enum`, or `const` as one value); `null` is left to `nullable`. */
  readonly enum?: readonly unknown[];
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  /** As in JSON Schema 2020-12 (a number); OpenAPI 3.0's boolean form is converted. */
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly minProperties?: number;
  readonly maxProperties?: number;
}

/** A reference to a type: every schema becomes one of these, with the constraints it states. */
export type TypeRef =
  | { readonly kind: 'primitive'; readonly type: Primitive; readonly nullable: boolean; readonly constraints?: Constraints }
  /** An object type declared as a record; `id` keys {@link ApiModel.types}. */
  | { readonly kind: 'object'; readonly id: string; readonly nullable: boolean; readonly constraints?: Constraints }
  | { readonly kind: 'array'; readonly items: TypeRef; readonly nullable: boolean; readonly constraints?: Constraints }
  | { readonly kind: 'map'; readonly values: TypeRef; readonly nullable: boolean; readonly constraints?: Constraints }
  /** Anything JSON: untyped schemas, and `oneOf`/`anyOf` unions (with their variants). */
  | { readonly kind: 'any'; readonly nullable: boolean; readonly constraints?: Constraints; readonly union?: Union };

/** The alternatives of a `oneOf` (exactly one must fit) or `anyOf` (at least one). */
export interface Union {
  readonly kind: 'oneOf' | 'anyOf';
  readonly variants: readonly TypeRef[];
  /** The property whose value says which alternative a value is, and each alternative's values (by index). */
  readonly discriminator?: Discriminator;
}

export interface Discriminator {
  readonly property: string;
  readonly values: readonly (readonly string[])[];
}

/** What a schema says about a value for people: shown to the AI in descriptions. */
export interface SchemaFacts {
  readonly description?: string;
  readonly defaultValue?: unknown;
  /** What each allowed value means, where the document says (Azure's `x-ms-enum` values): value and description. */
  readonly valueDescriptions?: readonly (readonly [string, string])[];
}

/** Where an object type came from; the naming plan names it from this. */
export type TypeOrigin =
  | { readonly kind: 'component'; readonly name: string }
  | { readonly kind: 'property'; readonly parent: string; readonly property: string }
  | { readonly kind: 'items'; readonly parent: string; readonly property: string }
  | { readonly kind: 'requestBody'; readonly operation: string }
  | { readonly kind: 'response'; readonly operation: string }
  | { readonly kind: 'parameter'; readonly operation: string; readonly parameter: string }
  /** An alternative of a `oneOf`/`anyOf` union at `of`. */
  | { readonly kind: 'variant'; readonly of: TypeOrigin; readonly index: number };

export interface ObjectType {
  /** JSON pointer of the schema in the document; unique. */
  readonly id: string;
  readonly origin: TypeOrigin;
  readonly description?: string;
  readonly properties: Property[];
  /** Extends (`allOf`) a base with a discriminator: the property, and the values that say a value is this type. */
  readonly discriminator?: { readonly property: string; readonly values: readonly string[] };
}

export interface Property {
  readonly jsonName: string;
  /** The name an SDK gives it (`x-ms-client-name`), which its C# name is planned from; the JSON keeps `jsonName`. */
  readonly clientName?: string;
  readonly type: TypeRef;
  /** Required by the schema and not `readOnly` (which requests never have to send). */
  readonly required: boolean;
  readonly readOnly: boolean;
  readonly facts: SchemaFacts;
}

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface Parameter {
  readonly name: string;
  /** The name an SDK gives it (`x-ms-client-name`), which its argument is named after; the request keeps `name`. */
  readonly clientName?: string;
  readonly location: ParameterLocation;
  readonly required: boolean;
  readonly type: TypeRef;
  readonly facts: SchemaFacts;
  /** OpenAPI `style` (defaults applied: `form` for query and cookie, `simple` otherwise). */
  readonly style: string;
  /** Arrays and objects: one field per item (`explode`, the default for `form`) or joined. */
  readonly explode: boolean;
  /** A query parameter that may be sent with an empty value (`allowEmptyValue`). */
  readonly allowEmpty: boolean;
  /**
   * Declared with `content` rather than `schema`: one value written in that media type, not spread by a style.
   * `json`: as JSON text (a string as its text); `text`: as it is; `none`: a media type the client cannot write, so
   * a call that gives this parameter is refused rather than sent in a form the API would read otherwise.
   */
  readonly content?: ParameterContent;
  /**
   * A parameter the API takes on every call that the client sets once (as Azure's SDKs do): `api-version` with the
   * version the document describes (`fixed`: the tool never takes it), one marked `x-ms-parameter-location: client`,
   * or an ARM document's `subscriptionId` (a server setting each call may override).
   */
  readonly client?: ClientParameter;
}

export interface ClientParameter {
  /** The value the document gives (`api-version`'s), sent unless a setting says another. */
  readonly value?: string;
  /** True when no call may give another value (the tool does not take it). */
  readonly fixed: boolean;
}

export interface ParameterContent {
  readonly mediaType: string;
  readonly writer: 'json' | 'text' | 'none';
}

/** A query pair of a path template: a fixed value, or the value of the path parameter `parameter`. */
export interface PathQuery {
  readonly name: string;
  readonly value: string;
  readonly parameter?: string;
}

export type BodyKind = 'json' | 'form' | 'multipart' | 'text' | 'binary';

export interface RequestBody {
  readonly kind: BodyKind;
  readonly mediaType: string;
  readonly type: TypeRef;
  readonly required: boolean;
  readonly description?: string;
}

export type ResponseKind = 'json' | 'text' | 'binary' | 'none';

export interface SuccessResponse {
  readonly kind: ResponseKind;
  readonly status: string;
  readonly type?: TypeRef;
  /** The media type read (sent as `Accept`), when the response has a body. */
  readonly mediaType?: string;
  /** Response headers the spec declares for this answer (pagination, totals, rate limits), as written. */
  readonly headers?: readonly string[];
}

/** A way the API accepts credentials (`components.securitySchemes`). */
export type SecurityScheme =
  | { readonly kind: 'apiKey'; readonly name: string; readonly in: 'header' | 'query' | 'cookie'; readonly parameter: string }
  | { readonly kind: 'bearer'; readonly name: string }
  | { readonly kind: 'basic'; readonly name: string }
  | { readonly kind: 'oauth2ClientCredentials'; readonly name: string; readonly tokenUrl: string; readonly scopes: readonly string[] }
  /**
   * Other OAuth2 flows and OpenID Connect: a token obtained elsewhere, sent as a bearer token. `azure`: the flows are
   * Azure AD's (login.microsoftonline.com), whose tokens Azure.Identity can get (`--credential azure`).
   */
  | { readonly kind: 'accessToken'; readonly name: string; readonly azure?: boolean };

/** `x-mcp` on an operation or its path item: how the spec's author wants the tool. */
export interface McpExtension {
  /** Tool name (must match `^[a-z0-9_]{1,64}$`). */
  readonly name?: string;
  readonly description?: string;
  /** `x-mcp: false` or `exclude: true`: no tool. */
  readonly exclude?: boolean;
  /**
   * With `--confirm destructive`: ask the user before the call (`true`) or not (`false`), whatever the method; without
   * it, DELETE asks. `true` also annotates the tool destructive.
   */
  readonly confirm?: boolean;
  /** `resource: false`: a GET that is not to be read as an MCP resource (`--resources`), as one with side effects. */
  readonly resource?: false;
}

export interface Operation {
  /** JSON pointer of the operation, e.g. `/paths/~1pets/get`; unique. */
  readonly id: string;
  readonly method: HttpMethod;
  /** The path template as the spec gives it (the operation's identity, with any `?…` or `#…`). */
  readonly path: string;
  /** Where the request goes: the template up to a `?` or `#` (what follows a `#` is never sent). */
  readonly requestPath: string;
  /** Query pairs the template itself fixes after a `?` (`/items?v=2`, `/search?q={q}`). */
  readonly pathQuery: readonly PathQuery[];
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly deprecated: boolean;
  readonly parameters: readonly Parameter[];
  readonly body?: RequestBody;
  readonly success: SuccessResponse;
  readonly mcp?: McpExtension;
  /** Alternatives of scheme names that must all be sent (`[]` inside: anonymous allowed); undefined: none needed. */
  readonly security?: readonly (readonly string[])[];
  /** The OAuth scopes its requirement lists, as alternatives (a caller needs all of one); undefined: none needed. */
  readonly scopes?: readonly (readonly string[])[];
  /** `x-ms-pageable`: its answer names the next page's URL (the property `nextLinkName`), which the tool then takes. */
  readonly paging?: Paging;
  /** `x-ms-long-running-operation`: its first answer starts it; the client watches it until it ends. */
  readonly longRunning?: { readonly finalStateVia?: string };
}

export interface Paging {
  /** The answer's property with the next page's URL: `nextLink`, Graph's `@odata.nextLink`. */
  readonly nextLinkName: string;
  /** The operation (its id) that fetches the next pages, where `operationName` names one of the document's; else this one. */
  readonly nextOperation?: string;
}

/** The server's icon (MCP `serverInfo.icons`): an https URL or a data URI of an image, and its type when known. */
export interface ServerIcon {
  readonly src: string;
  readonly mimeType?: string;
}

export interface ApiModel {
  readonly title: string;
  readonly version: string;
  /** From `info.x-logo`. */
  readonly icon?: ServerIcon;
  /** The first server URL with variables substituted, when it is an absolute http(s) URL. */
  readonly serverUrl?: string;
  /**
   * The path of the first server when the document names it by a path alone (`/api/v2`, tsoa's and Swagger 2.0's
   * `basePath` without `host`) and was read from a file: the origin comes from the setting, the path from here.
   */
  readonly serverPath?: string;
  /** The first server URL when it is neither (`{scheme}://…` without defaults, `javascript:…`): the server needs its setting. */
  readonly unusableServerUrl?: string;
  readonly operations: readonly Operation[];
  /** Object types in the order they were first met: components first, then inline schemas. */
  readonly types: ReadonlyMap<string, ObjectType>;
  /** Tag names declared or used, in document order. */
  readonly tags: readonly string[];
  readonly securitySchemes: readonly SecurityScheme[];
}
