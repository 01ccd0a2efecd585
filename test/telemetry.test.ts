/**
 * OpenTelemetry and the audit line, end to end: an HTTP server of test/fixtures/library.yaml, built once, run with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at a real OTLP/HTTP receiver on 127.0.0.1 (protobuf decoded with the official
 * definitions), called with the SDK's Streamable HTTP client. The spans, metrics and audit lines that arrive are
 * checked, and so is that neither the API key nor a secret query value appears in any of them; a server without the
 * endpoint exports nothing, and with LIBRARY_AUDIT_LOG=false writes no audit line. A code-mode stdio server does the
 * same: its audit lines go to stderr, and a script's API requests are child spans of its run_script call.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { connect, dotnetBuild, serverLog } from '../examples/harness.js';
import { scratchDir } from './support/scratch.js';
import { connectHttp, startReplica, wholeLines, type Replica } from './support/replicas.js';
import { LIBRARY_KEY, LIBRARY_SPEC, startLibraryApi, type LibraryApi } from './support/library-api.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';

/** A secret in the base URL's query: it goes with every request, and must not reach a span. */
const QUERY_SECRET = 'query-SENTINEL-token-77c1';
/** A credential given as an extra header: it goes with every API request, and must not reach the collector. */
const HEADER_SECRET = 'header-SENTINEL-token-3b90';

interface Answer { text: string; isError: boolean }

describe('telemetry of an HTTP server', () => {
  let api: LibraryApi;
  let receiver: OtlpReceiver;
  let quietReceiver: OtlpReceiver;
  let server: Replica;
  let quiet: Replica;
  let client: Client;
  let quietClient: Client;

  before(async () => {
    const work = scratchDir('telemetry');
    assert.equal(await runCli(['init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Library', '--output-dir', work, '--transport', 'http'], { out: () => {}, err: () => {} }), 0);
    const build = await dotnetBuild(work);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    const dll = join(work, 'bin/Debug', detectFramework(), 'Library.dll');
    [api, receiver, quietReceiver] = await Promise.all([startLibraryApi(), startOtlpReceiver(), startOtlpReceiver()]);
    const settings = { LIBRARY_BASE_URL: `${api.url}/?token=${QUERY_SECRET}`, LIBRARY_API_KEY: LIBRARY_KEY, LIBRARY_HEADERS: `X-Extra-Token: ${HEADER_SECRET}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_METRIC_EXPORT_INTERVAL: '300', OTEL_BSP_SCHEDULE_DELAY: '100' };
    [server, quiet] = await Promise.all([
      // The runtime's own redaction of URLs in spans off, as an operator may set it: the server's holds anyway.
      startReplica('traced', dll, { ...settings, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'library-test', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test', DOTNET_SYSTEM_NET_HTTP_DISABLEURIREDACTION: 'true', Logging__Console__FormatterName: 'json' }),
      // No OTEL_EXPORTER_OTLP_ENDPOINT: a per-signal endpoint alone does not switch telemetry on.
      startReplica('quiet', dll, { ...settings, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${quietReceiver.url}/v1/traces`, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${quietReceiver.url}/v1/metrics`, LIBRARY_AUDIT_LOG: 'false' }),
    ]);
    [client, quietClient] = await Promise.all([connectHttp(server.url), connectHttp(quiet.url)]);
  });

  after(async () => {
    await Promise.allSettled([client?.close(), quietClient?.close()]);
    server?.process.kill('SIGKILL');
    quiet?.process.kill('SIGKILL');
    await Promise.allSettled([api?.close(), receiver?.close(), quietReceiver?.close()]);
  });

  const call = async (c: Client, name: string, args: Record<string, unknown>): Promise<Answer> => {
    const result = await c.callTool({ name, arguments: args }) as { content: { text?: string }[]; isError?: boolean };
    return { text: result.content.map((b) => b.text ?? '').join(''), isError: result.isError === true };
  };

  /** Every value a span or point carries, resource included, as one text to search for secrets. */
  const everything = (): string => JSON.stringify([receiver.spans, receiver.points]);

  test('a tool call is a span with the MCP attributes; its API request a child span with no credential and no query value', async () => {
    const answer = await call(client, 'get_book', { bookId: 7 });
    assert.equal(answer.isError, false, answer.text);
    assert.ok(api.requests.includes(`GET /books/7?token=${QUERY_SECRET}`), 'the API got the query from the base URL');
    const toolSpan = (): ReceivedSpan | undefined => receiver.spans.find((s) => s.attributes['gen_ai.tool.name'] === 'get_book');
    // The request to /mcp ends after the answer is streamed: its span may come in a later batch.
    await receiver.waitFor(() => toolSpan() !== undefined && receiver.spans.some((s) => s.kind === 3 && s.traceId === toolSpan()?.traceId) && receiver.spans.some((s) => s.spanId === toolSpan()?.parentSpanId));
    const tool = toolSpan()!;
    assert.equal(tool.scope, 'Experimental.ModelContextProtocol');
    assert.equal(tool.name, 'tools/call get_book');
    assert.equal(tool.attributes['mcp.method.name'], 'tools/call');
    assert.equal(tool.kind, 2, 'a server span');
    const upstream = receiver.spans.find((s) => s.kind === 3 && s.traceId === tool.traceId)!;
    assert.equal(upstream.parentSpanId, tool.spanId, 'the API request is a child of the tool call');
    assert.equal(upstream.attributes['http.request.method'], 'GET');
    assert.equal(upstream.attributes['http.response.status_code'], 200);
    assert.equal(upstream.attributes['url.full'], `${api.url}/books/7?token=Redacted`);
    const inbound = receiver.spans.find((s) => s.spanId === tool.parentSpanId);
    assert.equal(inbound?.kind, 2, 'the tool call is a child of the HTTP request to /mcp');
    assert.equal(inbound?.attributes['url.path'], '/mcp');
    assert.equal(tool.resource['service.name'], 'library-test', 'OTEL_SERVICE_NAME wins over the server\'s own name');
    assert.equal(tool.resource['service.version'], '1.0.0');
    assert.equal(tool.resource['deployment.environment.name'], 'test', 'OTEL_RESOURCE_ATTRIBUTES applies');
    for (const secret of [LIBRARY_KEY, QUERY_SECRET, HEADER_SECRET, 'x-api-key', 'X-Api-Key']) assert.ok(!everything().includes(secret), `no span or point holds ${secret}`);
    const echo = await call(client, 'get_echo', {});
    assert.match(echo.text, /x-extra-token/i, 'the extra header reached the API');
    assert.deepEqual(receiver.headers.filter((h) => [LIBRARY_KEY, QUERY_SECRET, HEADER_SECRET].some((secret) => h.includes(secret))), [], 'no credential went to the collector');
    assert.ok(receiver.headers.every((h) => !/^(x-extra-token|x-api-key|cookie):/i.test(h)), receiver.headers.filter((h) => !/^(content-|host|traceparent|connection)/i.test(h)).join('\n'));
  });

  test('metrics arrive: calls, errors and durations per tool, the SDK\'s own and the API requests\'', async () => {
    assert.equal((await call(client, 'get_book', { bookId: 9999 })).isError, true, 'the API answers 404');
    assert.equal((await call(client, 'get_owner', { ownerId: 2 })).isError, false);
    // A tool name that is no tool's: counted as "(unknown)", not as a series of its own.
    await assert.rejects(client.callTool({ name: 'no_such_tool_4711', arguments: {} }), /no_such_tool_4711/);
    const latest = (metric: string, tool: string, outcome?: string): number => Math.max(0, ...receiver.points
      .filter((p) => p.metric === metric && p.attributes['gen_ai.tool.name'] === tool && (outcome === undefined || p.attributes.outcome === outcome))
      .map((p) => p.value));
    await receiver.waitFor(() => latest('mcp.tool.errors', 'get_book') >= 1 && latest('mcp.tool.calls', 'get_owner', 'ok') >= 1 && latest('mcp.tool.errors', '(unknown)') >= 1);
    assert.deepEqual(receiver.points.filter((p) => p.scope === 'Library' && JSON.stringify(p).includes('no_such_tool_4711')), []);
    assert.ok(latest('mcp.tool.calls', 'get_book', 'ok') >= 1);
    assert.ok(latest('mcp.tool.calls', 'get_book', 'error') >= 1);
    assert.ok(latest('mcp.tool.duration', 'get_owner', 'ok') >= 1, 'a duration recorded');
    assert.ok(latest('mcp.tool.answer.size', 'get_owner') >= 1, 'an answer size recorded');
    const scopes = new Set(receiver.points.map((p) => `${p.scope} ${p.metric}`));
    assert.ok(scopes.has('Experimental.ModelContextProtocol mcp.server.operation.duration'), [...scopes].join(', '));
    assert.ok([...scopes].some((s) => s.endsWith(' http.client.request.duration')), [...scopes].join(', '));
    assert.ok(receiver.points.every((p) => p.resource['service.name'] === 'library-test'));
    for (const secret of [LIBRARY_KEY, QUERY_SECRET, HEADER_SECRET]) assert.ok(!everything().includes(secret), `no point holds ${secret}`);
  });

  test('each tool call writes one JSON audit line: time, caller, tool, status, duration, bytes and argument names, no secret', async () => {
    const before = auditLines(server.log()).length;
    const found = await call(client, 'list_books', { tag: 'poetry', pageSize: 2 });
    const missing = await call(client, 'get_book', { bookId: 424242 });
    const invalid = await call(client, 'get_book', { bookId: 'seven' });
    const echoed = await call(client, 'get_echo', {});
    assert.ok(!found.isError && missing.isError && invalid.isError && !echoed.isError, [found, missing, invalid, echoed].map((a) => a.text).join('\n'));
    const deadline = Date.now() + 10_000;
    while (auditLines(server.log()).length < before + 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const lines = auditLines(server.log()).slice(before);
    assert.equal(lines.length, 4, server.log());
    const [list, notFound, refused, echo] = lines as AuditLine[];
    assert.ok(Math.abs(Date.parse(list!.time) - Date.now()) < 60_000, list!.time);
    assert.deepEqual({ ...list, time: 0, durationMs: 0 }, { time: 0, caller: 'ip:127.0.0.1', tool: 'list_books', outcome: 'ok', status: 200, requests: 1, durationMs: 0, bytes: Buffer.byteLength(found.text), arguments: ['tag', 'pageSize'] });
    assert.ok(typeof list!.durationMs === 'number' && list!.durationMs > 0);
    // The console's JSON formatter: the same fields as the entry's structured properties.
    const entry = auditEntries(server.log()).at(-4)!;
    assert.equal(entry.EventId, 1);
    assert.equal(entry.Message, JSON.stringify(list));
    assert.deepEqual({ ...entry.State, time: 0, durationMs: 0 }, { time: 0, caller: 'ip:127.0.0.1', tool: 'list_books', outcome: 'ok', status: 200, requests: 1, durationMs: 0, bytes: list!.bytes, arguments: 'tag,pageSize' });
    assert.deepEqual([notFound!.tool, notFound!.outcome, notFound!.status, notFound!.arguments], ['get_book', 'error', 404, ['bookId']]);
    assert.deepEqual([refused!.outcome, refused!.status, refused!.requests], ['error', null, 0], 'arguments refused before any request');
    assert.deepEqual([echo!.tool, echo!.status, echo!.bytes], ['get_echo', 200, Buffer.byteLength(echoed.text)]);
    for (const secret of [LIBRARY_KEY, QUERY_SECRET, HEADER_SECRET, 'poetry']) assert.ok(!server.log().includes(secret), `the log holds no ${secret}`);
    // A call the SDK refuses (no such tool) is written too, as failed.
    await assert.rejects(client.callTool({ name: 'no_such_tool_0815', arguments: { x: 1 } }));
    while (auditLines(server.log()).length < before + 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const unknown = auditLines(server.log()).at(-1);
    assert.deepEqual([unknown?.tool, unknown?.outcome, unknown?.status, unknown?.arguments], ['no_such_tool_0815', 'failed', null, ['x']]);
  });

  test('without OTEL_EXPORTER_OTLP_ENDPOINT nothing is exported; with LIBRARY_AUDIT_LOG=false no audit line is written', async () => {
    const answer = await call(quietClient, 'get_book', { bookId: 3 });
    assert.equal(answer.isError, false, answer.text);
    // The traced server exports its metrics every 300 ms: a quiet server that exported would have by now.
    const marker = receiver.requests.length;
    await receiver.waitFor(() => receiver.requests.filter((r) => r === 'POST /v1/metrics').length > 0 && receiver.requests.length >= marker + 3);
    assert.deepEqual(quietReceiver.requests, []);
    assert.deepEqual(auditLines(quiet.log()), [], quiet.log());
    assert.ok(auditLines(server.log()).length > 0, 'the traced server writes them');
  });
});

describe('telemetry of a stdio server in code mode', () => {
  let api: LibraryApi;
  let receiver: OtlpReceiver;
  let client: Client;

  before(async () => {
    const work = scratchDir('telemetry-stdio');
    assert.equal(await runCli(['init', '--openapi-url', LIBRARY_SPEC, '--server-name', 'Library', '--output-dir', work, '--mode', 'code'], { out: () => {}, err: () => {} }), 0);
    const build = await dotnetBuild(work);
    assert.ok(build.ok, build.output);
    assert.equal(build.warnings, 0, build.output);
    [api, receiver] = await Promise.all([startLibraryApi(), startOtlpReceiver()]);
    client = await connect({ command: 'dotnet', args: [join(work, 'bin/Debug', detectFramework(), 'Library.dll')] }, {
      LIBRARY_BASE_URL: api.url, LIBRARY_API_KEY: LIBRARY_KEY, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_METRIC_EXPORT_INTERVAL: '300', OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  });

  after(async () => {
    await client?.close();
    await Promise.allSettled([api?.close(), receiver?.close()]);
  });

  test('a script\'s API requests are children of its run_script span; the audit line on stderr counts them', async () => {
    const result = await client.callTool({ name: 'run_script', arguments: { code: 'const a = await api.get_owner({ ownerId: 1 }); const b = await api.get_book({ bookId: 2 }); return [a.name, b.title];' } }) as { content: { text?: string }[]; isError?: boolean };
    const text = result.content.map((b) => b.text ?? '').join('');
    assert.equal(result.isError, undefined, text);
    const script = (): ReceivedSpan | undefined => receiver.spans.find((s) => s.attributes['gen_ai.tool.name'] === 'run_script');
    await receiver.waitFor(() => script() !== undefined && receiver.spans.filter((s) => s.kind === 3 && s.traceId === script()?.traceId).length === 2);
    const run = script()!;
    assert.equal(run.resource['service.name'], 'library', 'the server\'s own name when OTEL_SERVICE_NAME is not set');
    const requests = receiver.spans.filter((s) => s.kind === 3 && s.traceId === run.traceId);
    assert.deepEqual(requests.map((s) => s.attributes['url.full']).sort(), [`${api.url}/books/2`, `${api.url}/owners/1`]);
    const deadline = Date.now() + 10_000;
    while (auditLines(serverLog(client)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const [line] = auditLines(serverLog(client));
    assert.deepEqual([line?.caller, line?.tool, line?.outcome, line?.status, line?.requests, line?.arguments], ['local', 'run_script', 'ok', 200, 2, ['code']]);
    assert.ok(!serverLog(client).includes(LIBRARY_KEY) && !JSON.stringify(receiver.spans).includes(LIBRARY_KEY));
    await receiver.waitFor(() => receiver.points.some((p) => p.metric === 'mcp.tool.calls' && p.attributes['gen_ai.tool.name'] === 'run_script'));
  });

  test('code mode\'s gauges arrive: scripts running and waiting, and the interpreters alive (warm ones started with the server)', async () => {
    const latest = (metric: string): number | undefined => receiver.points.filter((p) => p.metric === metric).at(-1)?.value;
    await receiver.waitFor(() => ['mcp.scripts.running', 'mcp.scripts.waiting', 'mcp.scripts.pool.size'].every((m) => latest(m) !== undefined) && (latest('mcp.scripts.pool.size') ?? 0) >= 1);
    assert.equal(latest('mcp.scripts.running'), 0, 'no script runs between calls');
    assert.equal(latest('mcp.scripts.waiting'), 0);
    assert.ok((latest('mcp.scripts.pool.size') ?? 0) <= Math.max(2, cpus().length) + 2, 'at most SCRIPT_MAX_RUNNING + 2 interpreters');
  });
});

interface AuditLine { time: string; caller: string; tool: string; outcome: string; status: number | null; requests: number; durationMs: number; bytes: number; arguments: string[] }

interface JsonEntry { Category: string; EventId: number; Message: string; State: Record<string, unknown> }

/** The JSON console formatter's entries of the audit category in a server's log. */
function auditEntries(log: string): JsonEntry[] {
  return wholeLines(log).filter((line) => line.startsWith('{"EventId"')).map((line) => JSON.parse(line) as JsonEntry).filter((e) => e.Category === 'Library.Audit');
}

/**
 * The audit lines in a server's console log, parsed: the message line under `info: Library.Audit[1]` (the simple
 * formatter), or the Message of a JSON formatter's entry.
 */
function auditLines(log: string): AuditLine[] {
  const lines = wholeLines(log);
  const simple = lines.flatMap((line, i) => (/^info: Library\.Audit\[1\]/.test(lines[i - 1] ?? '') ? [JSON.parse(line.trim()) as AuditLine] : []));
  return [...simple, ...auditEntries(log).map((e) => JSON.parse(e.Message) as AuditLine)];
}
