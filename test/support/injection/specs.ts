/**
 * Hostile OpenAPI documents for the injection test: every string the generator copies into C# (titles,
 * summaries, descriptions, tag, schema, property, parameter and enum names, enum values, defaults,
 * examples, server URLs) is built from fragments that break a careless emitter.
 */
import fc from 'fast-check';

/** 5,000 characters: longer than any C# name the metadata can hold, and a long literal or comment. */
export const LONG_FRAGMENT = 'long'.repeat(1250);

/** Pieces that end or break C# string literals, verbatim strings, XML doc comments, directives, identifiers and JSON. */
export const FRAGMENTS: readonly string[] = [
  '"', '\\', '""', '\\"', '*/', '/*', '//', '///', '</summary>', '<summary>', '<![CDATA[', ']]>', '<!--', '-->', '<param name="x">',
  '\n', '\r\n', '\r', '\u2028', '\u2029', '\u0085', '\t', '\u000b', '\u000c', '\u001a', '\u001b', '\u007f',
  '#if DEBUG', '\n#if DEBUG\n', '#endregion', '\n#error injected\n', '#pragma warning disable', '{', '}', '{0}', '{{', '}}', '{id}',
  '\u0000', '@', '$', '$"{', '`', "'", '<', '>', '&', '&amp;', '&#x0;', ';', ':', '?', '#', '%', '%2F', '/', '~', '~1',
  'class', 'namespace', 'int', 'string', 'await', 'async', 'var', 'value', 'default', 'null', 'true', 'this', 'base', '_',
  'System', 'Task', 'Object', 'HttpClient', 'JsonElement', 'ApiClient', 'McpTools', 'RunAsync', 'Equals', 'ToString', '__proto__', 'constructor',
  '2nd', '9', '0x1', 'é', 'ß', 'İ', 'Ω', '日本', 'ا', '😀', '\u{1F9D1}\u200D\u{1F4BB}', '\u200b', '\u00ad', '\ufeff', '\ufffe', '\uffff', '\ud800', '\udc00',
  LONG_FRAGMENT, '"); System.Environment.Exit(1); //', '"; class Evil { } //', '*/ class Evil { } /*', '</summary> <code>', ']', ')]', '")]', '")] public int Evil;',
];

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A plain word, so names are a mix of ordinary text and hostile fragments. */
export const word: fc.Arbitrary<string> = fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 1, maxLength: 7 });

/** Hostile text: one to five pieces, fragments and words mixed. Never empty. */
export const hostile: fc.Arbitrary<string> = fc
  .array(fc.oneof({ arbitrary: fc.constantFrom(...FRAGMENTS), weight: 3 }, { arbitrary: word, weight: 2 }), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(''));

/** Hostile text for a `{name}` path template: no braces or slashes (they would change how the path splits). */
const templateName: fc.Arbitrary<string> = hostile.map((s) => s.replace(/[{}/]/g, '')).filter((s) => s !== '');

const optional = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arbitrary, { nil: undefined, freq: 2 });

/** `{ key: value }` when the value is defined, `{}` otherwise. */
const maybe = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

/** `#/components/schemas/<name>`, escaped as a JSON pointer inside a URI fragment. */
export function componentRef(name: string): string {
  return '#/components/schemas/' + name.replace(/~/g, '~0').replace(/\//g, '~1').replace(/%/g, '%25');
}

type Schema = Record<string, unknown>;

const stringSchema: fc.Arbitrary<Schema> = fc
  .record({
    description: optional(hostile),
    title: optional(hostile),
    enum: optional(fc.uniqueArray(hostile, { minLength: 1, maxLength: 4 })),
    default: optional(hostile),
    example: optional(hostile),
    nullable: fc.boolean(),
  })
  .map((s) => ({ type: 'string', ...maybe('description', s.description), ...maybe('title', s.title), ...maybe('enum', s.enum), ...maybe('default', s.default), ...maybe('example', s.example), ...(s.nullable && { nullable: true }) }));

const integerSchema: fc.Arbitrary<Schema> = fc
  .record({ description: optional(hostile), format: fc.constantFrom('int32', 'int64'), default: optional(fc.integer({ min: -5, max: 1000 })), example: optional(fc.integer()), enum: optional(fc.uniqueArray(fc.integer({ min: -3, max: 99 }), { minLength: 1, maxLength: 3 })) })
  .map((s) => ({ type: 'integer', format: s.format, ...maybe('description', s.description), ...maybe('default', s.default), ...maybe('example', s.example), ...maybe('enum', s.enum) }));

const otherScalar: fc.Arbitrary<Schema> = fc
  .record({ kind: fc.constantFrom('boolean', 'number', 'date-time', 'uuid', 'byte'), description: optional(hostile), example: optional(hostile) })
  .map((s) => ({
    ...(s.kind === 'boolean' || s.kind === 'number' ? { type: s.kind } : { type: 'string', format: s.kind }),
    ...maybe('description', s.description), ...maybe('example', s.example),
  }));

const stringArraySchema: fc.Arbitrary<Schema> = fc
  .record({ description: optional(hostile), items: stringSchema, default: optional(fc.array(hostile, { maxLength: 2 })) })
  .map((s) => ({ type: 'array', items: s.items, ...maybe('description', s.description), ...maybe('default', s.default) }));

const mapSchema: fc.Arbitrary<Schema> = fc
  .record({ description: optional(hostile), values: fc.oneof(stringSchema, integerSchema) })
  .map((s) => ({ type: 'object', additionalProperties: s.values, ...maybe('description', s.description) }));

/** A property schema: scalars, arrays, maps, references to components (maybe with a description beside), inline objects. */
function propertySchema(components: readonly string[], depth: number): fc.Arbitrary<Schema> {
  const options: fc.Arbitrary<Schema>[] = [stringSchema, stringSchema, integerSchema, otherScalar, stringArraySchema, mapSchema];
  if (components.length > 0) {
    const ref = fc.constantFrom(...components).map(componentRef);
    options.push(fc.record({ $ref: ref, description: optional(hostile) }).map((s) => ({ $ref: s.$ref, ...maybe('description', s.description) })));
    options.push(ref.map((r) => ({ type: 'array', items: { $ref: r } })));
  }
  if (depth < 1) options.push(objectSchema(components, depth + 1));
  return fc.oneof(...options);
}

/** An object schema with one to four hostile properties, some required. */
export function objectSchema(components: readonly string[], depth = 0): fc.Arbitrary<Schema> {
  return fc
    .record({
      description: optional(hostile),
      title: optional(hostile),
      properties: fc.uniqueArray(fc.tuple(hostile, propertySchema(components, depth)), { minLength: 1, maxLength: 4, selector: ([name]) => name }),
      required: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    })
    .map((s) => ({
      type: 'object',
      ...maybe('description', s.description),
      ...maybe('title', s.title),
      properties: Object.fromEntries(s.properties),
      required: s.properties.filter((_, i) => s.required[i]).map(([name]) => name),
    }));
}

const parameterSchema: fc.Arbitrary<Schema> = fc.oneof(stringSchema, stringSchema, integerSchema, stringArraySchema, otherScalar);

const namedParameter = (location: 'query' | 'header' | 'cookie'): fc.Arbitrary<Schema> =>
  fc
    .record({ name: hostile, description: optional(hostile), required: fc.boolean(), schema: parameterSchema, example: optional(hostile), deprecated: fc.boolean() })
    .map((p) => ({ name: p.name, in: location, required: p.required, schema: p.schema, ...maybe('description', p.description), ...maybe('example', p.example), ...(p.deprecated && { deprecated: true }) }));

/** A deepObject query parameter: an inline object type named after the parameter. */
const objectParameter = (components: readonly string[]): fc.Arbitrary<Schema> =>
  fc
    .record({ name: hostile, description: optional(hostile), schema: objectSchema(components, 1) })
    .map((p) => ({ name: p.name, in: 'query', style: 'deepObject', explode: true, schema: p.schema, ...maybe('description', p.description) }));

function parameters(components: readonly string[]): fc.Arbitrary<Schema[]> {
  const parameter = fc.oneof(
    { arbitrary: fc.constantFrom('query' as const, 'header' as const, 'cookie' as const).chain(namedParameter), weight: 6 },
    { arbitrary: objectParameter(components), weight: 1 },
  );
  return fc.array(parameter, { maxLength: 3 });
}

/** A path: static hostile segments and `{param}` templates. */
const pathArbitrary: fc.Arbitrary<{ path: string; templates: string[] }> = fc
  .array(fc.oneof({ arbitrary: hostile.map((text) => ({ text, template: false })), weight: 3 }, { arbitrary: templateName.map((text) => ({ text, template: true })), weight: 2 }), { minLength: 1, maxLength: 3 })
  .map((segments) => ({
    path: '/' + segments.map((s) => (s.template ? `{${s.text}}` : s.text)).join('/'),
    templates: segments.filter((s) => s.template).map((s) => s.text),
  }));

function bodySchema(components: readonly string[]): fc.Arbitrary<Schema> {
  const options: fc.Arbitrary<Schema>[] = [objectSchema(components)];
  if (components.length > 0) {
    const ref = fc.constantFrom(...components).map(componentRef);
    options.push(ref.map(($ref) => ({ $ref })), ref.map(($ref) => ({ $ref })), ref.map(($ref) => ({ type: 'array', items: { $ref } })));
  }
  return fc.oneof(...options);
}

const mediaType: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 4 },
  { arbitrary: hostile.map((h) => `application/vnd.${h.replace(/[/;]/g, '')}+json`), weight: 1 },
);

function operation(method: string, templates: readonly string[], components: readonly string[], tagNames: readonly string[]): fc.Arbitrary<Schema> {
  const hasBody = method === 'post' || method === 'put' || method === 'patch';
  return fc
    .record({
      summary: optional(hostile),
      description: optional(hostile),
      operationId: optional(hostile),
      tags: fc.array(tagNames.length > 0 ? fc.oneof(fc.constantFrom(...tagNames), hostile) : hostile, { maxLength: 2 }),
      deprecated: fc.boolean(),
      pathParameters: fc.tuple(...templates.map((name) => fc.record({ description: optional(hostile), schema: fc.oneof(stringSchema, integerSchema) }).map((p) => ({ name, in: 'path', required: true, schema: p.schema, ...maybe('description', p.description) })))),
      parameters: parameters(components),
      body: hasBody ? optional(fc.record({ description: optional(hostile), required: fc.boolean(), media: mediaType, schema: bodySchema(components) })) : fc.constant(undefined),
      response: fc.oneof(
        fc.record({ status: fc.constantFrom('200', '201'), description: hostile, media: mediaType, schema: bodySchema(components) }),
        fc.record({ status: fc.constant('204'), description: hostile, media: fc.constant(undefined), schema: fc.constant(undefined) }),
      ),
    })
    .map((o) => ({
      ...maybe('summary', o.summary),
      ...maybe('description', o.description),
      ...maybe('operationId', o.operationId),
      ...(o.tags.length > 0 && { tags: o.tags }),
      ...(o.deprecated && { deprecated: true }),
      parameters: [...o.pathParameters, ...o.parameters],
      ...(o.body && { requestBody: { required: o.body.required, ...maybe('description', o.body.description), content: { [o.body.media]: { schema: o.body.schema } } } }),
      responses: {
        [o.response.status]: {
          description: o.response.description,
          ...(o.response.media !== undefined && { content: { [o.response.media]: { schema: o.response.schema } } }),
        },
      },
    }));
}

/** One hostile OpenAPI 3.0 or 3.1 document, as a JS object ready for JSON.stringify. */
export const specArbitrary: fc.Arbitrary<Schema> = fc
  .record({
    openapi: fc.constantFrom('3.0.3', '3.1.0'),
    title: hostile,
    description: optional(hostile),
    version: hostile,
    server: optional(fc.record({ suffix: hostile, description: optional(hostile) })),
    tags: fc.uniqueArray(fc.record({ name: hostile, description: optional(hostile) }), { maxLength: 2, selector: (t) => t.name }),
    components: fc.uniqueArray(hostile, { minLength: 1, maxLength: 3 }),
  })
  .chain((base) => {
    const tagNames = base.tags.map((t) => t.name);
    const pathItem = pathArbitrary.chain(({ path, templates }) =>
      fc
        .uniqueArray(fc.constantFrom('get', 'post', 'put', 'delete', 'patch'), { minLength: 1, maxLength: 2 })
        .chain((methods) => fc.tuple(...methods.map((m) => operation(m, templates, base.components, tagNames))).map((ops) => [path, Object.fromEntries(methods.map((m, i) => [m, ops[i]]))] as const)),
    );
    return fc
      .record({
        schemas: fc.tuple(...base.components.map(() => objectSchema(base.components))),
        paths: fc.array(pathItem, { minLength: 1, maxLength: 4 }),
      })
      .map(({ schemas, paths }) => ({
        openapi: base.openapi,
        info: { title: base.title, version: base.version, ...maybe('description', base.description) },
        ...(base.server && { servers: [{ url: `http://127.0.0.1:1/${base.server.suffix}`, ...maybe('description', base.server.description) }] }),
        ...(base.tags.length > 0 && { tags: base.tags.map((t) => ({ name: t.name, ...maybe('description', t.description) })) }),
        paths: Object.fromEntries(paths),
        components: { schemas: Object.fromEntries(base.components.map((name, i) => [name, schemas[i]])) },
      }));
  });

/** The fixed seed: the same documents on every run and every machine. */
export const SEED = 20_251_106;

/** `count` hostile documents, the same ones every time. */
export function sampleSpecs(count: number, seed = SEED): Schema[] {
  return fc.sample(specArbitrary, { seed, numRuns: count });
}

const ok = { '200': { description: 'ok' } };
const doc = (paths: Schema, schemas: Schema = {}): Schema => ({ openapi: '3.0.3', info: { title: 'Fixed', version: '1' }, paths, components: { schemas } });

/**
 * Hand-written documents for the identifier cases random text rarely hits exactly: a parameter named
 * `await` (a keyword inside the async tool methods), operations whose tool methods would be called
 * `Convert` (used by the tools' own code) or `McpTools` (their class), schemas named like a framework
 * type the runtime uses or like a member every record has, letters outside the Basic Multilingual
 * Plane, and names longer than metadata allows.
 */
export const FIXED_SPECS: readonly { readonly name: string; readonly doc: Schema }[] = [
  { name: 'await parameter', doc: doc({ '/items': { get: { parameters: [{ name: 'await', in: 'query', schema: { type: 'string' } }, { name: 'async', in: 'query', schema: { type: 'string' } }], responses: ok } } }) },
  { name: 'tool methods named Convert and McpTools', doc: doc({ '/convert': { post: { responses: ok } }, '/tools:mcp': { post: { responses: ok } } }) },
  { name: 'schema named HttpRequestError', doc: doc({ '/errors': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: componentRef('HttpRequestError') } } } } } } } }, { HttpRequestError: { type: 'object', properties: { code: { type: 'string' } } } }) },
  { name: 'schemas named ToString and Equals', doc: doc({ '/things': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { $ref: componentRef('ToString') } } } } } } } } }, { ToString: { type: 'object', properties: { equals: { $ref: componentRef('Equals') } } }, Equals: { type: 'object', properties: { a: { type: 'string' } } } }) },
  { name: 'letters outside the BMP', doc: doc({ '/\u{20BB7}': { get: { parameters: [{ name: '\u{1D465}', in: 'query', schema: { type: 'string' } }], responses: ok } } }, { '\u{20BB7}野家': { type: 'object', properties: { '\u{10428}': { type: 'string' } } } }) },
  { name: 'long names', doc: doc({ '/long': { get: { parameters: [{ name: LONG_FRAGMENT, in: 'query', schema: { type: 'string' } }], responses: ok } } }, { [LONG_FRAGMENT]: { type: 'object', properties: { [LONG_FRAGMENT]: { type: 'string' } } } }) },
];
