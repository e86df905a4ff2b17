import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { BASH } from '../engine/shells/helpers';

let running: RunningRoom;
let token: string;

let runner: TestRunner;
beforeAll(async () => {
  runner = await startTestRunner();
  ({ running, token } = runner);
});
afterAll(() => runner?.close());

async function modernClient(): Promise<Client> {
  const client = new Client({ name: 'reader', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

interface Page {
  records: { seq: number; text?: string }[];
  nextSeq: number;
  more: boolean;
}
const pageOf = (r: { contents: unknown[] }) => JSON.parse((r.contents[0] as { text?: string } | undefined)?.text ?? '{}') as Page;

describe('resources', () => {
  it('lists the room file and the log templates, and reads the room file', async () => {
    const client = await modernClient();
    try {
      const list = await client.listResources();
      const room = list.resources.find((r) => r.mimeType === 'text/markdown');
      expect(room?.uri).toMatch(/^file:\/\/.*default\.md$/);
      const templates = await client.listResourceTemplates();
      expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['task-log://{taskId}', 'shell-log://{shellId}']);
      const read = await client.readResource({ uri: room?.uri ?? '' });
      expect((read.contents[0] as { text: string }).text).toContain('# default');
    } finally {
      await client.close();
    }
  });

  it('the room file needs "read" like everything else: refused on both eras and on a listen stream for a participant without it', async () => {
    const engine = running.engine;
    const writer = await engine.call(engine.operator(), 'participant_add', { name: 'writes-only', capabilities: ['write'] });
    const uri = pathToFileURL(engine.room.location.markdownPath).toString();
    for (const mode of ['auto', 'legacy'] as const) {
      const client = new Client({ name: `no-read-${mode}`, version: '1' }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${writer.token}` } } }));
      try {
        await expect(client.readResource({ uri })).rejects.toThrow(/needs the "read" capability/);
        await expect(client.listResources()).rejects.toThrow(/needs the "read" capability/);
        if (mode === 'legacy') await expect(client.subscribeResource({ uri })).rejects.toThrow(/needs the "read" capability/);
      } finally {
        await client.close();
      }
    }
    const listen = await fetch(running.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${writer.token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'room-file',
        method: 'subscriptions/listen',
        params: { notifications: { resourceSubscriptions: [uri] }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      }),
    });
    expect(listen.status).toBe(403);
    expect(await listen.text()).toMatch(/needs the \\"read\\" capability/);
  });

  it('a task-log reader that disconnects mid-stream and resumes from its last seq sees every record exactly once', async () => {
    const engine = running.engine;
    const run = await engine.call(engine.operator(), 'tasks_run', {
      stages: [{ id: 'count', command: 'for i in $(seq 1 60); do echo line-$i; sleep 0.01; done' }],
    });
    const uri = (from: number) => `task-log://${encodeURIComponent(`${run.graphId}:count`)}?from=${from}&limit=7`;
    const seen: string[] = [];
    const seqs: number[] = [];
    let next = 0;
    for (let reconnects = 0; reconnects < 100; reconnects++) {
      const client = await modernClient(); // a new connection each round: the cursor is all the reader keeps
      try {
        const page = pageOf(await client.readResource({ uri: uri(next) }));
        for (const r of page.records) {
          seqs.push(r.seq);
          // a record is a chunk of the stage's output, one or more lines
          for (const line of (r.text ?? '').split('\n')) if (line.startsWith('line-')) seen.push(line.trim());
        }
        next = page.nextSeq;
      } finally {
        await client.close();
      }
      const state = (await engine.call(engine.operator(), 'tasks_status', { graphId: run.graphId })).graph.state;
      if (seen.length === 60 && state === 'completed') break;
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => `line-${i + 1}`));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });

  it('a graph run’s task-log is its ordered events', async () => {
    const engine = running.engine;
    const run = await engine.call(engine.operator(), 'tasks_run', { stages: [{ id: 'one', command: 'true' }] });
    await engine.tasks.waitFor(run.taskId, (t) => t.status === 'completed');
    const client = await modernClient();
    try {
      const page = pageOf(await client.readResource({ uri: `task-log://${run.taskId}` }));
      const kinds = page.records.map((r) => (r as unknown as { kind: string }).kind);
      expect(kinds[0]).toBe('graph.submitted');
      expect(kinds).toContain('graph.ended');
    } finally {
      await client.close();
    }
  });

  it('a task log read from before what the 2,000-event ring still holds says records were dropped, and from where', async () => {
    const engine = running.engine;
    const old = engine.tasks.create({ operation: 'test.ring', owner: 'operator', ttlMs: null, pollIntervalMs: 1000 });
    // more than the ring holds, from elsewhere in the room: the old task's first events fall out of it
    const flood = engine.room.db.transaction(() => {
      for (let i = 0; i < 2100; i++) engine.room.events.append({ at: new Date().toISOString(), kind: 'test.noise', actor: null, subject: `noise-${i}`, data: {} });
    });
    flood();
    engine.tasks.transition(old.id, { statusMessage: 'still here after the flood' });
    const client = await modernClient();
    try {
      const first = pageOf(await client.readResource({ uri: `task-log://${old.id}?from=0` })) as Page & { truncated?: boolean; droppedBefore?: number };
      expect(first.truncated).toBe(true);
      expect(first.droppedBefore).toBe(engine.room.events.oldestId());
      expect(first.records.length).toBeGreaterThan(0);
      expect(first.records.every((r) => r.seq >= (first.droppedBefore ?? Infinity))).toBe(true);
      // from the oldest seq still there, nothing is missing
      const on = pageOf(await client.readResource({ uri: `task-log://${old.id}?from=${first.droppedBefore}` })) as Page & { truncated?: boolean };
      expect(on.truncated).toBeUndefined();
      // a task made after the flood lost nothing, even read from 0
      const fresh = engine.tasks.create({ operation: 'test.ring', owner: 'operator', ttlMs: null, pollIntervalMs: 1000 });
      const whole = pageOf(await client.readResource({ uri: `task-log://${fresh.id}?from=0` })) as Page & { truncated?: boolean };
      expect(whole.truncated).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('shell-log gives a shell’s lines by seq', async () => {
    const engine = running.engine;
    const { shell } = await engine.call(engine.operator(), 'shell_open', BASH);
    // typed before the first prompt, the command's echo and the prompt would interleave with its output
    const ready = await engine.call(engine.operator(), 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: 'PROMPT> ', timeoutMs: 30_000 } });
    expect(ready.wait?.reason).toBe('matched');
    await engine.call(engine.operator(), 'shell_io', { shellId: shell.id, text: "printf 'AL%s\\nBE%s\\n' PHA TA\n", wait: { until: 'match', pattern: 'BETA' } });
    const client = await modernClient();
    try {
      const page = pageOf(await client.readResource({ uri: `shell-log://${shell.id}` }));
      const texts = page.records.map((r) => r.text);
      expect(texts).toEqual(expect.arrayContaining(['ALPHA', 'BETA']));
      const again = pageOf(await client.readResource({ uri: `shell-log://${shell.id}?from=${page.nextSeq}` }));
      expect(again.records.map((r) => r.text)).not.toContain('ALPHA');
    } finally {
      await client.close();
      await engine.call(engine.operator(), 'shell_close', { shellId: shell.id });
    }
  });

  it('a 2025 client subscribed to the room file gets notifications/resources/updated when someone edits it', async () => {
    const file = running.engine.room.location.markdownPath;
    const uri = pathToFileURL(file).toString();
    const client = new ClientV1({ name: 'legacy-room-sub', version: '1' });
    const updated: string[] = [];
    client.setNotificationHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).ResourceUpdatedNotificationSchema,
      (n) => void updated.push(n.params.uri),
    );
    await client.connect(new TransportV1(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      await client.subscribeResource({ uri });
      // an editor that replaces the file (write a copy, rename over it), as most do
      const copy = `${file}.tmp-${Date.now()}`;
      fs.writeFileSync(copy, `${fs.readFileSync(file, 'utf8')}\nan edit from outside\n`);
      fs.renameSync(copy, file);
      for (let i = 0; i < 100 && !updated.includes(uri); i++) await new Promise((r) => setTimeout(r, 50));
      expect(updated).toContain(uri);
    } finally {
      await client.close();
    }
  });

  it('a 2025 client subscribed to a task-log gets notifications/resources/updated when it grows', async () => {
    const engine = running.engine;
    // the stage writes again only once the test has subscribed (no race with the client's connect)
    const go = path.join(path.dirname(engine.room.location.markdownPath), `go-${Date.now()}`);
    const run = await engine.call(engine.operator(), 'tasks_run', {
      stages: [{ id: 'slow', command: `while [ ! -e '${go}' ]; do sleep 0.05; done; echo later`, timeoutMs: 30_000 }],
    });
    const client = new ClientV1({ name: 'legacy-sub', version: '1' });
    const updated: string[] = [];
    client.setNotificationHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).ResourceUpdatedNotificationSchema,
      (n) => void updated.push(n.params.uri),
    );
    await client.connect(new TransportV1(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      const uri = `task-log://${encodeURIComponent(`${run.graphId}:slow`)}`;
      await client.subscribeResource({ uri });
      fs.writeFileSync(go, '');
      for (let i = 0; i < 100 && !updated.includes(uri); i++) await new Promise((r) => setTimeout(r, 50));
      expect(updated).toContain(uri);
    } finally {
      await client.close();
    }
  });
});
