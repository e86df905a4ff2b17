import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';
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
const KEY = 'sk-ant-api03-scripted-model-key-for-the-room-tests-AAAA';
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  if (reason) return;
  model = await startScriptedModel();
  // in the user's home: Gemini CLI reads no settings file under a folder anyone may write (/tmp)
  const base = path.join(os.homedir(), '.cache', 'commonroom-test-homes');
  fs.mkdirSync(base, { recursive: true });
  home = fs.mkdtempSync(path.join(base, 'spend-'));
  work = path.join(home, 'work');
  fs.mkdirSync(work);
  fs.writeFileSync(
    path.join(home, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, theme: 'dark', customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] }, projects: { [work]: { hasTrustDialogAccepted: true, allowedTools: [] } } }),
  );
  fs.mkdirSync(path.join(home, '.claude'));
  fs.mkdirSync(path.join(home, '.codex'));
  fs.writeFileSync(
    path.join(home, '.codex', 'config.toml'),
    `model_provider = "scripted"\nmodel = "gpt-scripted"\n[model_providers.scripted]\nname = "scripted"\nbase_url = "${model.url}/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n[projects."${work}"]\ntrust_level = "trusted"\n`,
  );
  fs.mkdirSync(path.join(home, '.gemini'));
  fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
  const env = {
    GEMINI_API_KEY: 'scripted-gemini-key',
    GOOGLE_GEMINI_BASE_URL: model.url,
    HOME: home,
    PATH: `${BIN}:${process.env.PATH ?? ''}`,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: KEY,
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
        await expect.poll(async () => (await rowOf())?.inputTokens ?? 0, { timeout: 60_000, interval: 500 }).toBeGreaterThan(0);
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
