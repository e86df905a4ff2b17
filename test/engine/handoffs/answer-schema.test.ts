/**
 * An answer is checked against the schema its request asked for, on arrival at the room (issue 35, item 2):
 * agents played by real MCP SDK clients over HTTP. A value below the minimum, a choice not offered and a
 * missing required field are refused with a message naming each field and what it takes, and nothing is
 * recorded (the task still waits for input); the same answer put right goes through. A requestedSchema the
 * room cannot check answers with is refused when it is asked.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../../src-main/common/handoff-dto';
import { startRunner, type RunningRoom } from '../../../src-main/server/runner';
import { makeHome, type TestHome } from '../../helpers/env';

let home: TestHome;
let running: RunningRoom;
let owner: Client;
let worker: Client;

async function connect(name: string): Promise<Client> {
  const { token } = await running.engine.call(running.engine.operator(), 'participant_add', { name, capabilities: ['read', 'write'] });
  const client = new Client({ name, version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

type Answer = { isError?: boolean; content: { text: string }[]; structuredContent: { handoff: HandoffView } };
const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Answer;

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
  owner = await connect('owner');
  worker = await connect('worker');
});
afterAll(async () => {
  await owner.close();
  await worker.close();
  await running.close();
  home.cleanup();
});

const SCHEMA = {
  type: 'object',
  properties: {
    target: { type: 'string', title: 'Target', enum: ['staging', 'production'] },
    replicas: { type: 'integer', title: 'Replicas', minimum: 2, maximum: 9 },
    note: { type: 'string', maxLength: 10 },
  },
  required: ['target', 'replicas'],
};

describe('answers checked against the request schema', () => {
  it('refuses an answer that does not fit, per field, records nothing, and takes it once put right', async () => {
    const { handoff } = (await call(owner, 'handoff_create', { summary: 'Deploy', to: 'worker' })).structuredContent;
    await call(worker, 'handoff_accept', { handoffId: handoff.id });
    const asked = await call(worker, 'handoff_request_input', { handoffId: handoff.id, requests: { deploy: { message: 'Where and how many?', requestedSchema: SCHEMA } } });
    expect(asked.isError).toBeFalsy();

    const below = await call(owner, 'handoff_answer_input', { handoffId: handoff.id, answers: { deploy: { action: 'accept', content: { target: 'staging', replicas: 1 } } } });
    expect(below.isError).toBe(true);
    expect(below.content[0]?.text).toBe(
      'INVALID_INPUT: the answer to input "deploy" does not match what was asked: “Replicas” must be at least 2 (got 1). Nothing was recorded: answer again with content that fits its requestedSchema, or decline',
    );

    const wrong = await call(owner, 'handoff_answer_input', { handoffId: handoff.id, answers: { deploy: { action: 'accept', content: { target: 'prod', note: 'far too long a note' } } } });
    expect(wrong.isError).toBe(true);
    const text = wrong.content[0]?.text ?? '';
    expect(text).toContain('“Replicas” is required');
    expect(text).toContain('“Target” must be one of "staging", "production" (got "prod")');
    expect(text).toContain('“note” must be at most 10 characters (got 19)');

    // nothing was recorded: the task still waits, the answer is not on the handoff
    const still = (await call(worker, 'handoff_get', { handoffId: handoff.id })).structuredContent.handoff;
    expect(still.task?.status).toBe('input_required');
    expect(still.inputAnswers ?? {}).toEqual({});

    const right = await call(owner, 'handoff_answer_input', { handoffId: handoff.id, answers: { deploy: { action: 'accept', content: { target: 'staging', replicas: 3 } } } });
    expect(right.isError).toBeFalsy();
    const read = (await call(worker, 'handoff_get', { handoffId: handoff.id })).structuredContent.handoff;
    expect(read.inputAnswers.deploy).toMatchObject({ action: 'accept', content: { target: 'staging', replicas: 3 }, answeredBy: 'owner' });
  });

  it('a decline needs no content, and a schema that cannot check answers is refused when asked', async () => {
    const { handoff } = (await call(owner, 'handoff_create', { summary: 'Pick', to: 'worker' })).structuredContent;
    await call(worker, 'handoff_accept', { handoffId: handoff.id });
    const bad = await call(worker, 'handoff_request_input', { handoffId: handoff.id, requests: { pick: { message: 'Pick', requestedSchema: { $ref: '#/nowhere' } } } });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/^INVALID_INPUT: input "pick": its requestedSchema cannot check answers \(.+\); send a JSON Schema of an object$/);
    await call(worker, 'handoff_request_input', { handoffId: handoff.id, requests: { pick: { message: 'Pick', requestedSchema: SCHEMA } } });
    const declined = await call(owner, 'handoff_answer_input', { handoffId: handoff.id, answers: { pick: { action: 'decline' } } });
    expect(declined.isError).toBeFalsy();
    expect(declined.structuredContent.handoff.inputAnswers.pick?.action).toBe('decline');
  });

  it('a field\'s pattern is matched with RE2 in the room; a pattern it cannot match in linear time, or not on a field, is refused when asked', async () => {
    const { handoff } = (await call(owner, 'handoff_create', { summary: 'Tag', to: 'worker' })).structuredContent;
    await call(worker, 'handoff_accept', { handoffId: handoff.id });
    const ask = (schema: Record<string, unknown>) => call(worker, 'handoff_request_input', { handoffId: handoff.id, requests: { tag: { message: 'Which tag?', requestedSchema: schema } } });
    const backref = await ask({ type: 'object', properties: { tag: { type: 'string', pattern: '^(a)\\1$' } } });
    expect(backref.content[0]?.text).toMatch(/^INVALID_INPUT: input "tag": its requestedSchema cannot check answers \(the pattern of "tag" cannot be used: .*backreferences .*are not supported \(RE2 syntax\)\); send a JSON Schema of an object$/);
    const nested = await ask({ type: 'object', properties: { tags: { type: 'array', items: { type: 'string', pattern: '^v' } } } });
    expect(nested.content[0]?.text).toContain('a pattern is checked on a field only (properties.NAME.pattern), not at /properties/tags/items/pattern');
    // ^(a+)+$ on a run of a's and a "!": exponential for a backtracking engine (the 40 here: days), linear for RE2
    expect((await ask({ type: 'object', properties: { tag: { type: 'string', title: 'Tag', pattern: '^(a+)+$' } }, required: ['tag'] })).isError).toBeFalsy();
    const slow = await call(owner, 'handoff_answer_input', { handoffId: handoff.id, answers: { tag: { action: 'accept', content: { tag: `${'a'.repeat(40)}!` } } } });
    expect(slow.content[0]?.text).toContain('“Tag” must match the pattern ^(a+)+$');
    const fine = await call(owner, 'handoff_answer_input', { handoffId: handoff.id, answers: { tag: { action: 'accept', content: { tag: 'aaaa' } } } });
    expect(fine.isError).toBeFalsy();
  });
});
