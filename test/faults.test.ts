/**
 * The generated server under faults, driven through the MCP client: timeouts, connections closed
 * mid-body, gateway errors, empty and oversized bodies, cancellation, and 1,000 calls in flight.
 * The fault API picks its misbehaviour from the X-Request-Id header that list_pets sends.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, rm } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { startPetstoreApi } from '../examples/petstore-api.js';
import { callText, connect, dotnetBuild } from '../examples/harness.js';
import { EXAMPLE_SPEC } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api` };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function rssKiB(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('generated server under faults', () => {
  let directory = '';
  let dll = '';
  const abandoned: string[] = [];
  let faults: { server: Server; url: string };
  let client: Client;

  before(async () => {
    directory = scratchDir('faults');
    assert.equal(await runCli(['init', '--openapi-url', EXAMPLE_SPEC, '--server-name', 'Petstore', '--output-dir', directory], { out: () => {}, err: () => {} }), 0);
    const build = await dotnetBuild(directory);
    assert.ok(build.ok, build.output);
    dll = /-> (\S+Petstore\.dll)/.exec(build.output)?.[1] ?? '';
    assert.ok(dll.endsWith('Petstore.dll'), build.output);
    faults = await listen((request, response) => {
      const fault = String(request.headers['x-request-id'] ?? '');
      response.on('close', () => { if (!response.writableEnded) abandoned.push(fault); });
      const json = (status: number, body: string, headers: Record<string, string> = {}): void => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(body);
      };
      switch (fault) {
        case 'slow': return void setTimeout(() => json(200, '[]'), 3000);
        case 'cut':
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
          response.write('[{"id": 1, "na');
          return void setTimeout(() => response.destroy(), 50);
        case 'gateway': response.writeHead(502, { 'content-type': 'text/html' }); return void response.end('<html><body>Bad gateway</body></html>');
        case 'unavailable': return json(503, '', { 'retry-after': '7' });
        case 'empty': return json(200, '');
        case 'not-json': return json(200, '<html>oops</html>', { 'content-type': 'text/html' });
        case 'huge': return json(200, JSON.stringify([{ id: 1, name: 'x'.repeat(200_000), species: 'dog' }]));
        case 'hang': return;
        default:
          if (fault in ERROR_SHAPES) {
            const { status, body, type } = ERROR_SHAPES[fault]!;
            return json(status, JSON.stringify(body), { 'content-type': type ?? 'application/json' });
          }
          return json(200, '[{"id":1,"name":"Rex","species":"dog"}]');
      }
    });
    client = await connect({ command: 'dotnet', args: [dll] }, { PETSTORE_BASE_URL: faults.url, PETSTORE_TIMEOUT_SECONDS: '1', PETSTORE_MAX_RESULT_LENGTH: '1000' });
  });

  after(async () => {
    await client?.close();
    if (faults) await close(faults.server);
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const call = (fault: string): Promise<string> => callText(client, 'list_pets', { xRequestId: fault });

  test('timeout (PETSTORE_TIMEOUT_SECONDS), connection closed mid-body, 502 page, 503 with Retry-After', async () => {
    assert.equal(await call('slow'), 'Error: GET /pets timed out after 1 s');
    assert.match(await call('cut'), /^Error: GET \/pets failed before a complete response arrived: /);
    assert.equal(await call('gateway'), 'Error: The API failed on GET /pets: Bad Gateway (HTTP 502)');
    assert.equal(await call('unavailable'), 'Error: The API failed on GET /pets: Service Unavailable; retry after 7 seconds (HTTP 503)');
  });

  test('empty success body, invalid JSON on success, an answer over the size limit', async () => {
    assert.equal(await call('empty'), '{"status":200}');
    // A success that is not JSON is read as its Content-Type says: here text.
    assert.equal(await call('not-json'), '<html>oops</html>');
    const huge = await call('huge');
    assert.ok(huge.startsWith('[{"id":1,"name":"xxxx'), huge.slice(0, 40));
    // Read no further than 64 KB (the larger of 4 × the limit and 64 KB), then cut to the limit.
    assert.match(huge, /\n\[truncated: the response was cut at 65536 bytes and not read further; ask for less, e.g. with filters or paging\]$/);
    assert.ok(huge.length < 1200);
  });

  test('an error answer keeps the reasons the API gives, in each shape real APIs use, bounded', async () => {
    for (const [shape, { expected }] of Object.entries(ERROR_SHAPES)) {
      const answer = await call(shape);
      if (typeof expected === 'string') assert.equal(answer, expected, shape);
      else assert.ok(expected(answer), `${shape}: ${answer}`);
    }
  });

  test('cancellation from the client cancels the HTTP call', async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: 'list_pets', arguments: { xRequestId: 'hang' } }, undefined, { signal: controller.signal, timeout: 30_000 });
    await sleep(500);
    controller.abort();
    await assert.rejects(pending);
    for (let i = 0; i < 40 && !abandoned.includes('hang'); i++) await sleep(50);
    assert.ok(abandoned.includes('hang'), 'the API did not see the request abandoned');
    assert.match(await call('fine'), /^\[\{"id":1,"name":"Rex"/);
  });

  test('1,000 tool calls in flight: every answer right, no crash, memory back to steady state', async () => {
    const api = await startPetstoreApi();
    const loaded = await connect({ command: 'dotnet', args: [dll] }, { PETSTORE_BASE_URL: api.url });
    try {
      const pid = (loaded.transport as unknown as { pid: number | null }).pid ?? 0;
      assert.ok(pid > 0);
      const round = async (): Promise<void> => {
        const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => callText(loaded, 'get_pet', { petId: (i % 3) + 1 })));
        answers.forEach((answer, i) => assert.equal(JSON.parse(answer).id, (i % 3) + 1));
      };
      await round();
      const afterFirst = await rssKiB(pid);
      await round();
      await round();
      const afterThird = await rssKiB(pid);
      assert.ok(afterThird < afterFirst * 1.25 + 20_000, `RSS grew from ${afterFirst} KiB to ${afterThird} KiB`);
      assert.equal(JSON.parse(await callText(loaded, 'get_pet', { petId: 2 })).name, 'Tom');
    } finally {
      await loaded.close();
      await api.close();
    }
  });
});

/**
 * Error bodies as real APIs send them, picked by X-Request-Id, and the answer each must give: the API's message and
 * the reasons it lists (which field, what is wrong), so that the assistant can fix its call.
 */
const ERROR_SHAPES: Record<string, { status: number; body: unknown; type?: string; expected: string | ((answer: string) => boolean) }> = {
  'aspnet-validation-problem': {
    status: 400, type: 'application/problem+json',
    body: { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'One or more validation errors occurred.', status: 400, errors: { Name: ['The Name field is required.'], Age: ['The field Age must be between 1 and 120.'] } },
    expected: 'Error: One or more validation errors occurred: The Name field is required.; The field Age must be between 1 and 120. (HTTP 400)',
  },
  'problem-invalid-params': {
    status: 400, type: 'application/problem+json',
    body: { type: 'https://example.net/validation-error', title: 'Your request parameters didn\'t validate.', 'invalid-params': [{ name: 'age', reason: 'must be a positive integer' }, { name: 'color', reason: 'must be \'green\', \'red\' or \'blue\'' }] },
    expected: 'Error: Your request parameters didn\'t validate: age: must be a positive integer; color: must be \'green\', \'red\' or \'blue\' (HTTP 400)',
  },
  'joi-details': {
    status: 400,
    body: { message: 'Request validation failed: Parameter (body) failed schema validation. Refer to the `details` list for more information.', details: [{ message: '"name" must be URL friendly', path: ['name'], type: 'string.pattern.name' }] },
    expected: 'Error: Request validation failed: Parameter (body) failed schema validation. Refer to the `details` list for more information: "name" must be URL friendly (HTTP 400)',
  },
  'rails-errors': {
    status: 422, body: { errors: { name: ['can\'t be blank', 'is too short (minimum is 3 characters)'] } },
    expected: 'Error: name: can\'t be blank; name: is too short (minimum is 3 characters) (HTTP 422)',
  },
  'laravel-errors': {
    status: 422, body: { message: 'The given data was invalid.', errors: { email: ['The email field is required.'] } },
    expected: 'Error: The given data was invalid: The email field is required. (HTTP 422)',
  },
  'spring-errors': {
    status: 400,
    body: { timestamp: '2026-11-26T10:00:00Z', status: 400, error: 'Bad Request', message: 'Validation failed for object=\'pet\'. Error count: 1', errors: [{ objectName: 'pet', field: 'name', defaultMessage: 'must not be blank', code: 'NotBlank' }] },
    expected: 'Error: Validation failed for object=\'pet\'. Error count: 1: name: must not be blank (HTTP 400)',
  },
  'google-details': {
    status: 400,
    body: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'pet.name', description: 'Name must not be empty' }] }] } },
    expected: 'Error: Request contains an invalid argument: pet.name: Name must not be empty (HTTP 400)',
  },
  'google-errors': {
    status: 400,
    body: { error: { code: 400, message: 'Invalid value \'x\'.', errors: [{ message: 'Invalid value \'x\'.', domain: 'global', reason: 'invalid' }, { message: 'Required parameter: species', domain: 'global', reason: 'required' }] } },
    expected: 'Error: Invalid value \'x\': Required parameter: species (HTTP 400)',
  },
  'github-errors': {
    status: 422,
    body: { message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }], documentation_url: 'https://docs.github.com/rest' },
    expected: 'Error: Validation Failed: title: missing_field (HTTP 422)',
  },
  'jsonapi-errors': {
    status: 422, type: 'application/vnd.api+json',
    body: { errors: [{ status: '422', source: { pointer: '/data/attributes/name' }, title: 'Invalid Attribute', detail: 'Name must contain at least three characters.' }, { status: '422', source: { pointer: '/data/attributes/species' }, title: 'Invalid Attribute', detail: 'Species is not one of dog, cat.' }] },
    expected: 'Error: Invalid Attribute: Name must contain at least three characters.; Invalid Attribute: Species is not one of dog, cat. (HTTP 422)',
  },
  'fastapi-validation': {
    status: 422,
    body: { detail: [{ loc: ['body', 'tags', 1], msg: 'tag \'Urgent Stuff\' must be lowercase, without spaces', type: 'value_error' }, { loc: ['query', 'limit'], msg: 'ensure this value is less than or equal to 100', type: 'value_error.number.not_le', ctx: { limit_value: 100 } }] },
    expected: 'Error: body.tags[1]: tag \'Urgent Stuff\' must be lowercase, without spaces; query.limit: ensure this value is less than or equal to 100 (HTTP 422)',
  },
  'drf-fields': {
    status: 400, body: { isbn: ['The ISBN\'s check digit is wrong.'], title: ['This field may not be blank.', 'Ensure this field has no more than 200 characters.'] },
    expected: 'Error: isbn: The ISBN\'s check digit is wrong.; title: This field may not be blank.; title: Ensure this field has no more than 200 characters. (HTTP 400)',
  },
  'drf-non-field': {
    status: 400, body: { non_field_errors: ['No copy is available.'] },
    expected: 'Error: No copy is available. (HTTP 400)',
  },
  'drf-nested': {
    status: 400, body: { author: { name: ['This field is required.'] }, items: [{}, { qty: ['Ensure this value is greater than or equal to 1.'] }] },
    expected: 'Error: author.name: This field is required.; items[1].qty: Ensure this value is greater than or equal to 1. (HTTP 400)',
  },
  'nest-messages': {
    status: 400, body: { statusCode: 400, message: ['title should not be empty', 'priority must be one of the following values: low, high'], error: 'Bad Request' },
    expected: 'Error: title should not be empty; priority must be one of the following values: low, high (HTTP 400)',
  },
  'loopback-details': {
    status: 422,
    body: { error: { statusCode: 422, name: 'UnprocessableEntityError', message: 'The request body is invalid. See error object `details` property for more info.', code: 'VALIDATION_FAILED', details: [{ path: '/title', code: 'minLength', message: 'must NOT have fewer than 1 characters', info: { limit: 1 } }] } },
    expected: 'Error: The request body is invalid. See error object `details` property for more info: /title: must NOT have fewer than 1 characters (HTTP 422)',
  },
  'fastify-validation': {
    status: 400, body: { statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: 'body/name must NOT have fewer than 1 characters' },
    expected: 'Error: body/name must NOT have fewer than 1 characters (HTTP 400)',
  },
  'many-errors': {
    status: 400, body: { message: 'Invalid input', errors: Array.from({ length: 200 }, (_, i) => ({ field: `field${i}`, message: 'is wrong' })) },
    expected: (answer) => answer.startsWith('Error: Invalid input: field0: is wrong; field1: is wrong;') && answer.includes('; field19: is wrong (HTTP 400)') && !answer.includes('field20'),
  },
  'long-errors': {
    status: 400, body: { message: 'Invalid input', errors: Array.from({ length: 30 }, (_, i) => ({ field: `field${i}`, message: `${'is wrong '.repeat(20)}(${i})` })) },
    expected: (answer) => answer.startsWith('Error: Invalid input: field0: is wrong') && answer.endsWith('… (HTTP 400)') && answer.length <= 'Error: '.length + 2001 + ' (HTTP 400)'.length,
  },
};
