#!/usr/bin/env node
/* global setInterval, clearInterval */
// A scripted agent client that reports usage the way Claude Code does: the real OpenTelemetry JS SDK
// (sdk-metrics with its OTLP/HTTP protobuf exporter, the exporter Claude Code bundles), configured by nothing
// but the environment the room gives a run: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_HEADERS
// (the run's token, read by the exporter itself), OTEL_METRIC_EXPORT_INTERVAL. Each "turn" it adds to
// claude_code.token.usage (attribute type: input, output, cacheRead, cacheCreation) and claude_code.cost.usage
// (USD) with Claude Code's names, units and delta temporality. It prints "working" lines while it runs; at C-c or
// Esc it says "interrupted" and waits at its prompt, as a client does.
//   node scripted-otel-client.mjs [--mark FILE] [--export-ms N] [--cost 0.01] [--input 1000] [--output 200] [--turn-ms 200] [--temporality delta|cumulative] [--turns N]
import { MeterProvider, PeriodicExportingMetricReader, AggregationTemporality } from '@opentelemetry/sdk-metrics';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import fs from 'node:fs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const cost = Number(arg('cost', '0.01'));
const input = Number(arg('input', '1000'));
const output = Number(arg('output', '200'));
const turnMs = Number(arg('turn-ms', '200'));
const turns = Number(arg('turns', '1000000'));
// --mark FILE: each interrupt and hang-up is appended there, so a test sees the order they came in
const mark = (what) => {
  const file = arg('mark', '');
  if (file) fs.appendFileSync(file, `${what}\n`);
};
const temporality = arg('temporality', 'delta') === 'delta' ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE;

const exporter = new OTLPMetricExporter({ temporalityPreference: temporality });
// the room's interval (OTEL_METRIC_EXPORT_INTERVAL), or a test's shorter one
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: Number(arg('export-ms', process.env.OTEL_METRIC_EXPORT_INTERVAL ?? '60000')) });
const provider = new MeterProvider({ resource: resourceFromAttributes({ 'service.name': 'claude-code', 'service.version': 'scripted' }), readers: [reader] });
const meter = provider.getMeter('com.anthropic.claude_code');
const costCounter = meter.createCounter('claude_code.cost.usage', { description: 'Cost of the Claude Code session', unit: 'USD' });
const tokenCounter = meter.createCounter('claude_code.token.usage', { description: 'Number of tokens used', unit: 'tokens' });

let n = 0;
let interrupted = false;
const timer = setInterval(() => {
  if (interrupted) return;
  if (n >= turns) {
    clearInterval(timer);
    void reader.forceFlush().then(() => process.stdout.write('done\r\n> '));
    return;
  }
  n++;
  const attrs = { model: 'claude-scripted', 'session.id': 'scripted-session' };
  costCounter.add(cost, attrs);
  tokenCounter.add(input, { ...attrs, type: 'input' });
  tokenCounter.add(output, { ...attrs, type: 'output' });
  tokenCounter.add(50, { ...attrs, type: 'cacheRead' });
  tokenCounter.add(10, { ...attrs, type: 'cacheCreation' });
  process.stdout.write(`working: turn ${n}\r\n`);
}, turnMs);

function interrupt() {
  if (interrupted) return;
  interrupted = true;
  mark('interrupted');
  void reader.forceFlush().finally(() => process.stdout.write('interrupted\r\n> '));
}
process.on('SIGINT', interrupt);
if (process.stdin.isTTY) {
  process.stdin.setRawMode(true);
  process.stdin.on('data', (b) => {
    if (b.includes(0x1b) || b.includes(0x03)) interrupt();
  });
}
process.on('SIGHUP', () => {
  mark('hangup');
  void provider.shutdown().finally(() => process.exit(0));
});
process.on('SIGTERM', () => void provider.shutdown().finally(() => process.exit(0)));
