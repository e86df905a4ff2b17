import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunningRoom } from '../../src-main/server/runner';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let running: RunningRoom;
let token: string;
let runner: TestRunner;
beforeAll(async () => {
  runner = await startTestRunner();
  ({ running, token } = runner);
});
afterAll(() => runner?.close());

/** The official v2 SDK client, offering exactly one 2025-era protocol version in initialize. */
async function clientOn(version: string): Promise<Client> {
  const client = new Client({ name: `on-${version}`, version: '1' }, { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: [version] });
  await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

const Anything = z.looseObject({});

describe('the tasks capability follows the negotiated protocol version (seed 003)', () => {
  it.each(['2024-11-05', '2025-03-26', '2025-06-18'])('%s: no tasks capability, no execution.taskSupport, tasks/* refused, tools still work', async (version) => {
    const client = await clientOn(version);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      const caps = client.getServerCapabilities() as Record<string, unknown>;
      expect(caps.tools).toBeDefined();
      expect(caps.tasks).toBeUndefined();
      const tools = (await client.listTools()).tools as { name: string; execution?: unknown }[];
      expect(tools.map((t) => t.name)).toContain('tasks_run');
      expect(tools.filter((t) => t.execution !== undefined).map((t) => t.name)).toEqual([]);
      // a graph run is an ordinary tool result on these versions, its task id there to poll with tasks_status
      const run = (await client.callTool({ name: 'tasks_run', arguments: { stages: [{ id: 'one', command: 'true' }] } })) as { structuredContent?: { taskId?: string } };
      const taskId = run.structuredContent?.taskId ?? '';
      expect(taskId).not.toBe('');
      const refused = await client.request({ method: 'tasks/get', params: { taskId } }, Anything).then(
        () => null,
        (error: { code?: number; message?: string }) => error,
      );
      expect(refused?.code).toBe(-32601);
      expect(refused?.message).toMatch(/2025-11-25/);
    } finally {
      await client.close();
    }
  });

  it('2025-11-25: the tasks capability and execution.taskSupport on the task tools', async () => {
    const client = await clientOn('2025-11-25');
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const caps = client.getServerCapabilities() as { tasks?: { list?: object; cancel?: object; requests?: { tools?: { call?: object } } } };
      expect(caps.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const tools = (await client.listTools()).tools as { name: string; execution?: { taskSupport?: string } }[];
      expect(tools.find((t) => t.name === 'tasks_run')?.execution?.taskSupport).toBe('optional');
      expect(tools.find((t) => t.name === 'room_info')?.execution).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
