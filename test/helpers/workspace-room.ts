import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, type TestHome } from './env';
import { makeRepo as makeGitRepo } from './git-repo';

/**
 * A real room for the workspace suites, set up in the calling file's beforeAll and closed in its afterAll: the
 * runner on a loopback port in a home of its own, two agents `lead` and `dev` (read, write) and the operator,
 * each with a real MCP SDK client over HTTP; tool calls as each; repositories made in the home.
 */
export interface WorkspaceRoom {
  readonly home: TestHome;
  readonly running: RunningRoom;
  /** A repository with one commit on main, its folder named `name` (spaces and all). */
  makeRepo(name: string, files?: Record<string, string>): string;
  /** A tool call as `who` (operator, lead, dev): its structured answer, or an Error with the refusal's text. */
  call<T>(who: string, name: string, args: Record<string, unknown>): Promise<T>;
  /** A tool call as `who` that must be refused: the refusal's text. */
  refused(who: string, name: string, args: Record<string, unknown>): Promise<string>;
  /** Created by lead for dev with a workspace on `repo`, accepted by dev: the handoff, its worktree ready. */
  started(repo: string, summary: string): Promise<HandoffView>;
}

export function workspaceRoom(): WorkspaceRoom {
  let home: TestHome | undefined;
  let running: RunningRoom | undefined;
  const clients: Record<string, Client> = {};
  beforeAll(async () => {
    home = makeHome();
    running = await startRunner({ port: 0, paths: home.paths });
    const op = running.engine.operator();
    const tokens: Record<string, string> = { operator: fs.readFileSync(running.tokenFile, 'utf8').trim() };
    for (const name of ['lead', 'dev']) tokens[name] = (await running.engine.call(op, 'participant_add', { name, capabilities: ['read', 'write'] })).token;
    for (const [who, token] of Object.entries(tokens)) {
      const client = new Client({ name: who, version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      clients[who] = client;
    }
  }, 60_000);
  afterAll(async () => {
    for (const c of Object.values(clients)) await c.close();
    await running?.close();
    home?.cleanup();
  });
  const call = async <T>(who: string, name: string, args: Record<string, unknown>): Promise<T> => {
    const result = (await clients[who]?.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
    if (result.isError) throw new Error(result.content[0]?.text ?? 'tool error');
    return result.structuredContent;
  };
  return {
    get home() {
      if (!home) throw new Error('the workspace room is made in beforeAll');
      return home;
    },
    get running() {
      if (!running) throw new Error('the workspace room is made in beforeAll');
      return running;
    },
    makeRepo(name, files = { 'README.md': '# app\n', 'src/app.txt': 'one\ntwo\nthree\n' }) {
      return makeGitRepo(path.join(this.home.root, name), files);
    },
    call,
    async refused(who, name, args) {
      const result = (await clients[who]?.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
      expect(result.isError, `${name} should have been refused`).toBe(true);
      return result.content[0]?.text ?? '';
    },
    async started(repo, summary) {
      const { handoff } = await call<{ handoff: HandoffView }>('lead', 'handoff_create', { summary, to: 'dev', workspace: { repo } });
      return (await call<{ handoff: HandoffView }>('dev', 'handoff_accept', { handoffId: handoff.id })).handoff;
    },
  };
}
