import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';
import { SCRIPTED_KEY, scriptedHome, signInClaude, signInCodex, signInGemini } from '../helpers/scripted-homes';
import { realClients } from '../helpers/real-clients';

/**
 * The real CLIs' own usage metrics reach the room: each is started by the room (agent_start, on a task, so its
 * first turn goes to the scripted model of test/helpers/scripted-model.ts, which reports 10 input and 5 output
 * tokens an answer) with only the per-run telemetry configuration the room gives it, and its OTLP export
 * arrives at the room's door with the run's token, recorded for that run and its handoff.
 */
const { bin: BIN, reason } = realClients(['claude', 'codex', 'gemini']);

let model: ScriptedModel;
let runner: TestRunner;
let work: string;
let home: string;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  if (reason) return;
  model = await startScriptedModel();
  // in the user's home: Gemini CLI reads no settings file under a folder anyone may write (/tmp)
  ({ home, work } = scriptedHome('spend'));
  signInClaude({ home, work });
  signInCodex({ home, work }, model.url);
  signInGemini({ home, work });
  const env = {
    GEMINI_API_KEY: 'scripted-gemini-key',
    GOOGLE_GEMINI_BASE_URL: model.url,
    HOME: home,
    PATH: `${BIN}:${process.env.PATH ?? ''}`,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: SCRIPTED_KEY,
    OPENAI_API_KEY: 'sk-scripted',
    TMPDIR: home,
  };
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  runner = await startTestRunner();
}, 60_000);

afterAll(async () => {
  await runner?.close();
  await model?.close();
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

const op = () => runner.running.engine.operator();

describe.skipIf(reason !== '')(`a real CLI's OpenTelemetry metrics arrive at the room${reason ? ` (skipped: ${reason})` : ''}`, () => {
  for (const client of ['claude-code', 'codex', 'gemini-cli'] as const) {
    it(`${client}: its token usage is recorded for its run and handoff`, { timeout: 120_000 }, async () => {
      const { agent } = await runner.running.engine.call(op(), 'agent_start', { client, cwd: work, task: 'say hello', cols: 120, rows: 40 });
      try {
        await expect.poll(() => model.requests.length, { timeout: 60_000, interval: 250 }).toBeGreaterThan(0);
        const rowOf = async () => (await runner.running.engine.call(op(), 'spend_report', {})).rows.find((r) => r.run === agent.shellId);
        try {
          await expect.poll(async () => (await rowOf())?.inputTokens ?? 0, { timeout: 60_000, interval: 500 }).toBeGreaterThan(0);
        } catch (error) {
          // what to look at when it did not come (seen once under load): the client's screen, what it asked the model, what the room recorded
          const screen = (await runner.running.engine.call(op(), 'shell_io', { shellId: agent.shellId, format: 'screen' })).output;
          console.error(`${client}: no tokens recorded\n--- its screen\n${screen}\n--- model requests ${JSON.stringify(model.requests.map((r) => [r.path, r.model, r.lastUser?.slice(0, 60)]))}\n--- spend rows ${JSON.stringify((await runner.running.engine.call(op(), 'spend_report', {})).rows)}`);
          throw error;
        }
        const row = await rowOf();
        console.log(`${client}: ${JSON.stringify(row)}`);
        expect(row).toMatchObject({ participant: agent.participant, handoffId: agent.handoffId });
        expect(row?.outputTokens).toBeGreaterThan(0);
      } finally {
        await runner.running.engine.call(op(), 'agent_stop', { shellId: agent.shellId, revoke: true });
      }
    });
  }
});
