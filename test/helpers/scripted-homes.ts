import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A home folder for the real agent CLIs run against a model server of the test's own (test/helpers/scripted-model.ts
 * or a server the test writes): each CLI signed in with a key for it, its first-run questions answered, the work
 * folder trusted, as its own documented settings files say. Shared by the live client tests (prompts-live,
 * tasks-live, spend-live, limit-live); a test picks the CLIs it runs and sets its own environment.
 */

/** An Anthropic-shaped key: Claude Code asks once whether to use a key from its environment, answered by its last 20 characters. */
export const SCRIPTED_KEY = 'sk-ant-api03-scripted-model-key-for-the-room-tests-AAAA';

export interface ScriptedHome {
  home: string;
  /** The folder the agents work in (inside the home). */
  work: string;
}

/**
 * A fresh home in the user's own home folder: Gemini CLI reads no settings file under a folder anyone may write
 * (/tmp), the room's per-run one included.
 */
export function scriptedHome(prefix: string): ScriptedHome {
  const base = path.join(os.homedir(), '.cache', 'commonroom-test-homes');
  fs.mkdirSync(base, { recursive: true });
  const home = fs.mkdtempSync(path.join(base, `${prefix}-`));
  const work = path.join(home, 'work');
  fs.mkdirSync(work);
  return { home, work };
}

/**
 * Claude Code: onboarding done, the key approved, the work folder trusted, its auto-updater off (unsandboxed, it
 * installs the newest release from the registry globally, as `npm i -g`, in the middle of a test); its state
 * folder made (writable in the agent sandbox).
 */
export function signInClaude({ home, work }: ScriptedHome): void {
  fs.writeFileSync(
    path.join(home, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, autoUpdates: false, theme: 'dark', customApiKeyResponses: { approved: [SCRIPTED_KEY.slice(-20)], rejected: [] }, projects: { [work]: { hasTrustDialogAccepted: true, allowedTools: [] } } }),
  );
  fs.mkdirSync(path.join(home, '.claude'));
}

/** Codex: the model server as a provider of its own (the Responses API, key from OPENAI_API_KEY). */
export function signInCodex({ home, work }: ScriptedHome, modelUrl: string, options: { approvalPolicy?: string; trustWork?: boolean } = {}): void {
  const lines = [
    ...(options.approvalPolicy ? [`approval_policy = "${options.approvalPolicy}"`] : []),
    'model_provider = "scripted"',
    'model = "gpt-scripted"',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = "${modelUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "OPENAI_API_KEY"',
    ...(options.trustWork === false ? [] : [`[projects."${work}"]`, 'trust_level = "trusted"']),
  ];
  fs.mkdirSync(path.join(home, '.codex'));
  fs.writeFileSync(path.join(home, '.codex', 'config.toml'), `${lines.join('\n')}\n`);
}

/** Gemini CLI: signed in with an API key (GEMINI_API_KEY; the server from GOOGLE_GEMINI_BASE_URL), no update checks unless `settings` says otherwise. */
export function signInGemini({ home }: ScriptedHome, settings: object = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { disableAutoUpdate: true, disableUpdateNag: true } }): void {
  fs.mkdirSync(path.join(home, '.gemini'));
  fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
}

/** opencode: the model server as a provider of its own (Anthropic's API), no update or sharing; `permission` as its config says. */
export function signInOpencode({ home }: ScriptedHome, modelUrl: string, permission?: Record<string, string>): void {
  fs.mkdirSync(path.join(home, '.config', 'opencode'), { recursive: true });
  fs.writeFileSync(
    path.join(home, '.config', 'opencode', 'opencode.json'),
    JSON.stringify({
      model: 'scripted/claude-scripted',
      autoupdate: false,
      share: 'disabled',
      ...(permission ? { permission } : {}),
      provider: { scripted: { npm: '@ai-sdk/anthropic', name: 'scripted', options: { baseURL: `${modelUrl}/v1`, apiKey: SCRIPTED_KEY }, models: { 'claude-scripted': { name: 'claude-scripted', tool_call: true } } } },
    }),
  );
}
