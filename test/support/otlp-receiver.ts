/**
 * An OTLP/HTTP receiver on 127.0.0.1, as a collector is: it takes `POST /v1/traces` and `/v1/metrics` in protobuf
 * and decodes them with the protobufjs code OpenTelemetry JS generates from the official opentelemetry-proto
 * definitions (`@opentelemetry/otlp-transformer`). Spans and metric points are kept flat, attributes as plain values.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

/** The generated root of `opentelemetry.proto` (the package has no exports map; its CommonJS build is loaded as it is). */
interface Decoder { decode(bytes: Uint8Array): unknown; toObject(message: unknown, options: Record<string, unknown>): unknown }
const root = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: Decoder } }; metrics: { v1: { ExportMetricsServiceRequest: Decoder } } } } };
};
const collector = root.opentelemetry.proto.collector;
const AS_OBJECT = { longs: Number, bytes: String, defaults: false, arrays: true };

export type Attributes = Record<string, unknown>;

export interface ReceivedSpan {
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Attributes;
  resource: Attributes;
  scope: string;
}

export interface ReceivedPoint {
  metric: string;
  scope: string;
  attributes: Attributes;
  /** A sum's or gauge's value, a histogram's count. */
  value: number;
  resource: Attributes;
}

export interface OtlpReceiver {
  /** The endpoint to give as OTEL_EXPORTER_OTLP_ENDPOINT (with OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly points: ReceivedPoint[];
  /** Every request received, as `POST /v1/traces`. */
  readonly requests: string[];
  /** The headers of every request received, as `name: value` lines. */
  readonly headers: string[];
  /** Resolves once `test` holds on what was received, or rejects after `ms`. */
  waitFor(test: () => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

interface KeyValue { key: string; value?: AnyValue }
interface AnyValue { stringValue?: string; boolValue?: boolean; intValue?: number; doubleValue?: number; arrayValue?: { values?: AnyValue[] }; kvlistValue?: { values?: KeyValue[] }; bytesValue?: string }

const plain = (value: AnyValue | undefined): unknown => value === undefined ? undefined
  : value.arrayValue ? (value.arrayValue.values ?? []).map(plain)
  : value.kvlistValue ? attributes(value.kvlistValue.values)
  : value.stringValue ?? value.boolValue ?? value.intValue ?? value.doubleValue ?? value.bytesValue;

function attributes(list: KeyValue[] | undefined): Attributes {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

const hex = (base64: string | undefined): string => Buffer.from(base64 ?? '', 'base64').toString('hex');

interface Scoped<T> { resource?: { attributes?: KeyValue[] }; scope?: { name?: string }; items: T[] }

function flatten<T>(resources: { resource?: { attributes?: KeyValue[] }; scopes: { scope?: { name?: string }; items: T[] }[] }[]): Scoped<T>[] {
  return resources.flatMap((r) => r.scopes.map((s) => ({ resource: r.resource, scope: s.scope, items: s.items })));
}

interface SpanMessage { name: string; kind?: number; traceId?: string; spanId?: string; parentSpanId?: string; attributes?: KeyValue[] }
interface DataPoint { attributes?: KeyValue[]; asInt?: number; asDouble?: number; count?: number }
interface MetricMessage { name: string; sum?: { dataPoints?: DataPoint[] }; gauge?: { dataPoints?: DataPoint[] }; histogram?: { dataPoints?: DataPoint[] } }

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const requests: string[] = [];
  const headers: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      const body = Buffer.concat(chunks);
      try {
        if (req.url === '/v1/traces') {
          const message = collector.trace.v1.ExportTraceServiceRequest;
          const request = message.toObject(message.decode(body), AS_OBJECT) as { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: SpanMessage[] }[] }[] };
          const scoped = flatten((request.resourceSpans ?? []).map((r) => ({ resource: r.resource, scopes: (r.scopeSpans ?? []).map((s) => ({ scope: s.scope, items: s.spans ?? [] })) })));
          for (const group of scoped) {
            for (const span of group.items) {
              spans.push({
                name: span.name, kind: span.kind ?? 0, traceId: hex(span.traceId), spanId: hex(span.spanId), parentSpanId: hex(span.parentSpanId),
                attributes: attributes(span.attributes), resource: attributes(group.resource?.attributes), scope: group.scope?.name ?? '',
              });
            }
          }
        } else if (req.url === '/v1/metrics') {
          const message = collector.metrics.v1.ExportMetricsServiceRequest;
          const request = message.toObject(message.decode(body), AS_OBJECT) as { resourceMetrics?: { resource?: { attributes?: KeyValue[] }; scopeMetrics?: { scope?: { name?: string }; metrics?: MetricMessage[] }[] }[] };
          const scoped = flatten((request.resourceMetrics ?? []).map((r) => ({ resource: r.resource, scopes: (r.scopeMetrics ?? []).map((s) => ({ scope: s.scope, items: s.metrics ?? [] })) })));
          for (const group of scoped) {
            for (const metric of group.items) {
              for (const point of [...(metric.sum?.dataPoints ?? []), ...(metric.gauge?.dataPoints ?? []), ...(metric.histogram?.dataPoints ?? [])]) {
                points.push({
                  metric: metric.name, scope: group.scope?.name ?? '', attributes: attributes(point.attributes),
                  value: Number(point.asInt ?? point.asDouble ?? point.count ?? 0), resource: attributes(group.resource?.attributes),
                });
              }
            }
          }
        } else {
          res.writeHead(404).end();
          return;
        }
      } catch (error) {
        res.writeHead(400).end(String(error));
        return;
      }
      // An empty Export*ServiceResponse: everything accepted.
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, spans, points, requests, headers,
    waitFor: async (test, ms = 30_000) => {
      const deadline = Date.now() + ms;
      while (!test()) {
        if (Date.now() > deadline) throw new Error(`not received within ${ms} ms: ${spans.length} spans, ${points.length} points, requests ${requests.join(', ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
