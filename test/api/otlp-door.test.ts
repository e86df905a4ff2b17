import http from 'node:http';
import zlib from 'node:zlib';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { resourceFromAttributes } from '@opentelemetry/resources';
import otlpRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { OTLP_EXPORT_INTERVAL_MS } from '../../src-main/common/clients/types';

/**
 * The room's OTLP/HTTP door (POST /otlp/v1/metrics): what it takes (protobuf and OTLP JSON, gzip or not, from the
 * real OpenTelemetry JS exporters) and what it refuses (no token, a revoked one, a page's Origin, another type,
 * too large once inflated); and whose usage it is: always the token's participant's, whatever the body says.
 */
let runner: TestRunner;
let base: URL;
const MAX = 64 * 1024;

beforeAll(async () => {
  runner = await startTestRunner({ limits: { maxBodyBytes: MAX } });
  base = runner.running.baseUrl;
});
afterAll(() => runner?.close());

const op = () => runner.running.engine.operator();
type Json = Record<string, unknown>;
const Request = (otlpRoot as unknown as { opentelemetry: { proto: { collector: { metrics: { v1: { ExportMetricsServiceRequest: { fromObject(o: Json): object; encode(m: object): { finish(): Uint8Array } } } } } } } }).opentelemetry.proto.collector.metrics.v1
  .ExportMetricsServiceRequest;

/** An ExportMetricsServiceRequest as Claude Code sends one: a cost and an input-token data point, delta. */
function claudeLike(service: string, cost: number, input: number): Json {
  const attrs = (type?: string) => [{ key: 'model', value: { stringValue: 'claude-x' } }, ...(type ? [{ key: 'type', value: { stringValue: type } }] : [])];
  const point = (value: number, type?: string) => ({ attributes: attrs(type), startTimeUnixNano: 1, timeUnixNano: 2, asDouble: value });
  return {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeMetrics: [
          {
            metrics: [
              { name: 'claude_code.cost.usage', unit: 'USD', sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [point(cost)] } },
              { name: 'claude_code.token.usage', unit: 'tokens', sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [point(input, 'input')] } },
              { name: 'claude_code.session.count', sum: { aggregationTemporality: 1, dataPoints: [point(1)] } },
            ],
          },
        ],
      },
    ],
  };
}
const protobuf = (request: Json) => Buffer.from(Request.encode(Request.fromObject(request)).finish());

function post(path: string, body: Buffer | string, headers: Record<string, string>): Promise<Response> {
  return fetch(new URL(path, base), { method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body) });
}

async function addParticipant(name: string): Promise<string> {
  return (await runner.running.engine.call(op(), 'participant_add', { name, capabilities: ['read', 'write'] })).token;
}
const totalsOf = async (participant: string) => (await runner.running.engine.call(op(), 'spend_report', { participant })).totals[0] ?? null;

describe('the OTLP door', () => {
  it("keeps a client's kept-alive connection open across the pause between two of its exports (none is lost to a socket closed as it is reused)", { timeout: 30_000 }, async () => {
    const token = await addParticipant('steady-reporter');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const body = protobuf(claudeLike('claude-code', 0.001, 7));
    const once = () =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = http.request(new URL('/otlp/v1/metrics', base), { method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}`, 'content-length': body.length } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        });
        req.on('error', reject);
        req.end(body);
      });
    try {
      expect(await once()).toEqual({ status: 200, reused: false });
      // the room asks its clients to export every OTLP_EXPORT_INTERVAL_MS; one that is a little late still finds its socket open
      await new Promise((r) => setTimeout(r, OTLP_EXPORT_INTERVAL_MS + 1_000));
      expect(await once()).toEqual({ status: 200, reused: true });
      expect((await totalsOf('steady-reporter'))?.inputTokens).toBe(14);
    } finally {
      agent.destroy();
    }
  });

  it('takes protobuf from a participant and records its usage as that participant, whatever service the body names', async () => {
    const token = await addParticipant('reporter');
    const res = await post('/otlp/v1/metrics', protobuf(claudeLike('claude-code', 0.5, 1200)), { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect(await totalsOf('reporter')).toEqual({ participant: 'reporter', inputTokens: 1200, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costMicroUsd: 500_000 });
    // a participant the room did not start has no run: its row names none, and it lands on no agent's run
    const { rows } = await runner.running.engine.call(op(), 'spend_report', { participant: 'reporter' });
    expect(rows.map((r) => [r.participant, r.run, r.client])).toEqual([['reporter', '', 'claude-code']]);
    // an export every few seconds per agent stays out of the audit ring (the people's calls stay in it)
    const { entries } = await runner.running.engine.call(op(), 'audit_list', { limit: 200 });
    expect(entries.filter((e) => e.method === 'spend_record')).toEqual([]);
  });

  it("takes OTLP JSON from the real OpenTelemetry JS exporter (Gemini CLI's), gzip too", async () => {
    const token = await addParticipant('json-reporter');
    for (const compression of ['none', 'gzip'] as const) {
      const exporter = new OTLPMetricExporter({ url: new URL('/otlp/v1/metrics', base).toString(), headers: { Authorization: `Bearer ${token}` }, compression: compression as never });
      const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
      const provider = new MeterProvider({ resource: resourceFromAttributes({ 'service.name': 'gemini-cli' }), readers: [reader] });
      provider.getMeter('gemini-cli').createCounter('gemini_cli.token.usage').add(300, { type: 'output', model: 'gemini-x' });
      await reader.forceFlush();
      await provider.shutdown();
    }
    // the SDK's default is cumulative: two providers, two series of 300 each
    expect(await totalsOf('json-reporter')).toMatchObject({ outputTokens: 600 });
  });

  it('refuses without a token, with a revoked one, from a page, another type, and a body too large once inflated', async () => {
    const body = protobuf(claudeLike('claude-code', 1, 1));
    expect((await post('/otlp/v1/metrics', body, { 'content-type': 'application/x-protobuf' })).status).toBe(401);
    const token = await addParticipant('revoked-reporter');
    await runner.running.engine.call(op(), 'participant_revoke', { name: 'revoked-reporter' });
    expect((await post('/otlp/v1/metrics', body, { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}` })).status).toBe(401);
    const live = await addParticipant('careful-reporter');
    const auth = { authorization: `Bearer ${live}` };
    expect((await post('/otlp/v1/metrics', body, { 'content-type': 'application/x-protobuf', origin: 'http://evil.example', ...auth })).status).toBe(403);
    expect((await post('/otlp/v1/metrics', body, { 'content-type': 'text/plain', ...auth })).status).toBe(415);
    expect((await post('/otlp/v1/metrics', Buffer.alloc(MAX + 1024, 1), { 'content-type': 'application/x-protobuf', ...auth })).status).toBe(413);
    // a small gzip body that inflates past the limit
    const bomb = zlib.gzipSync(Buffer.alloc(MAX * 16, 0));
    expect(bomb.length).toBeLessThan(MAX);
    expect((await post('/otlp/v1/metrics', bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip', ...auth })).status).toBe(413);
    expect((await post('/otlp/v1/metrics', Buffer.from('not protobuf at all'), { 'content-type': 'application/x-protobuf', ...auth })).status).toBe(400);
    expect((await post('/otlp/v1/other', body, { 'content-type': 'application/x-protobuf', ...auth })).status).toBe(404);
    expect(await totalsOf('careful-reporter')).toBeNull();
    expect(await totalsOf('revoked-reporter')).toBeNull();
  });

  it("only adds: a negative amount, or a cumulative series going down, never takes from what a participant spent (an agent cannot talk its envelope down)", async () => {
    const token = await addParticipant('shrinker');
    const caller = runner.running.engine.authenticate(token);
    if (!caller) throw new Error('no caller');
    const point = (value: number, temporality: 'delta' | 'cumulative') => ({ metric: 'claude_code.cost.usage', value, temporality, series: 's1', attributes: {} });
    await runner.running.engine.call(caller, 'spend_record', { client: 'x', points: [point(1, 'delta'), point(-5, 'delta')] });
    expect(await totalsOf('shrinker')).toMatchObject({ costMicroUsd: 1_000_000 });
    await runner.running.engine.call(caller, 'spend_record', { client: 'x', points: [point(3, 'cumulative')] });
    await runner.running.engine.call(caller, 'spend_record', { client: 'x', points: [point(0.5, 'cumulative')] }); // a restart of the series: counted from zero
    expect(await totalsOf('shrinker')).toMatchObject({ costMicroUsd: 4_500_000 });
  });

  it('takes logs and traces (Gemini CLI sends all three to one endpoint) and keeps nothing of them', async () => {
    const token = await addParticipant('logger');
    const res = await post('/otlp/v1/logs', JSON.stringify({ resourceLogs: [] }), { 'content-type': 'application/json', authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect((await post('/otlp/v1/traces', Buffer.alloc(0), { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}` })).status).toBe(200);
    expect(await totalsOf('logger')).toBeNull();
  });
});
