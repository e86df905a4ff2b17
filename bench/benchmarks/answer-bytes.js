// answer-bytes: what a model is sent for the most used calls. Each call is made once over MCP (2026, raw HTTP:
// the body's bytes as they leave the room) and once through POST /api/<method> for the same object whole; the
// baseline is the answer the room used to send for that object (the object as structuredContent and again as
// its JSON in the text block). Figures: bytes of the whole answer, and of each half (Claude Code and VS Code
// hand the model structuredContent, Gemini CLI and opencode the text). Bytes, not time: one run is exact.
import { Buffer } from 'node:buffer';
import { addParticipant, callApi, makeHome, startRoom } from '../lib/room.js';
import { fmt } from '../lib/stats.js';

const bytes = (s) => Buffer.byteLength(s);

function mcp(room, token) {
  let id = 0;
  return async (name, args) => {
    const response = await globalThis.fetch(room.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: {
          name,
          arguments: args,
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    });
    const body = await response.text();
    const answer = JSON.parse(body);
    if (!answer.result || answer.result.isError) throw new Error(`${name}: ${body.slice(0, 300)}`);
    return { body, result: answer.result };
  };
}

const api = (room, token) => (name, args) => callApi(room, token, name, args);

export default {
  name: 'answer-bytes',
  async run({ log }) {
    const home = makeHome('answers');
    const room = await startRoom(home);
    const rows = [];
    try {
      const token = addParticipant(home, 'agent', 'read,write');
      const call = mcp(room, token);
      const whole = api(room, token);
      // a populated agent's day: a shell with output, a 50-stage graph that ran, handoffs and their events
      const { shell } = (await call('shell_open', {})).result.structuredContent;
      const { shell: twin } = (await call('shell_open', {})).result.structuredContent; // the whole copy of shell_run runs here
      await call('shell_run', { shellId: shell.id, command: 'seq 1 40', timeoutMs: 10_000 });
      const stages = Array.from({ length: 50 }, (_, i) => ({ id: `step-${i}`, command: ['true'], ...(i > 0 ? { dependsOn: [`step-${i - 1}`] } : {}) }));
      const { graphId } = (await call('tasks_run', { name: 'fifty', stages })).result.structuredContent;
      await whole('tasks_status', { graphId, waitMs: 25_000, until: 'ended', stages: false });
      let handoffId = '';
      for (let i = 0; i < 5; i++) handoffId = (await call('handoff_create', { summary: `review change ${i}: the parser's error messages`, to: 'operator', constraints: 'do not push' })).result.structuredContent.handoff.id;

      const calls = [
        ['room_info', {}],
        ['shell_open', {}],
        ['shell_run', { shellId: shell.id, command: 'ls -la /usr/lib | head -30', timeoutMs: 10_000 }],
        ['shell_list', {}],
        ['tasks_run', { name: 'fifty again', stages }],
        ['tasks_status', { graphId }],
        ['tasks_status', { graphId, stageId: 'step-7' }],
        ['tasks_list', {}],
        ['handoff_get', { handoffId }],
        ['handoff_list', {}],
        ['workspace_history', { limit: 20 }],
      ];
      for (const [name, args] of calls) {
        // the same call twice: once as MCP sends it, once whole (a read answers the same object; shell_open,
        // shell_run and tasks_run make a second shell or graph of the same shape)
        const sent = await call(name, args);
        const object = await whole(name, name === 'shell_run' ? { ...args, shellId: twin.id } : args);
        // the same envelope (_meta and all), with the answer the room used to put in it
        const before = JSON.stringify({ ...JSON.parse(sent.body), result: { ...sent.result, content: [{ type: 'text', text: JSON.stringify(object) }], structuredContent: object } });
        const text = sent.result.content?.[0]?.text ?? '';
        const structured = JSON.stringify(sent.result.structuredContent);
        const was = JSON.stringify(object);
        const ratio = bytes(sent.body) / bytes(before);
        // the floor: the same envelope and structured half with no text at all, or, where the data is the answer
        // (a command's output, a log slice), with only that data as the text
        const data = name === 'shell_run' ? sent.result.structuredContent.output : args.stageId ? sent.result.structuredContent.log.records.map((r) => r.text).join('') : '';
        const floorBytes = bytes(sent.body) - bytes(JSON.stringify(text)) + bytes(JSON.stringify(data));
        const label = `answer-bytes ${name}${args.stageId ? ' (a stage and its log)' : name === 'tasks_status' ? ' (50 stages)' : ''}`;
        log(`${label}: ${bytes(sent.body)} B vs ${bytes(before)} B`);
        rows.push({
          name: label,
          ours: `${bytes(sent.body)} B (structured ${bytes(structured)}, text ${bytes(text)})`,
          baseline: `${bytes(before)} B (structured ${bytes(was)}, text ${bytes(was)})`,
          ratio: `${fmt(ratio, 2)}× (structured ${fmt(bytes(structured) / bytes(was), 2)}×, text ${fmt(bytes(text) / bytes(was), 2)}×)`,
          goal: '≤ 0.5×, or ≤ 1.2× its floor',
          met: ratio <= 0.5 || bytes(sent.body) <= 1.2 * floorBytes,
          floor: floorBytes / bytes(before),
          figures: { bytes: bytes(sent.body), baseline: bytes(before), structured: bytes(structured), text: bytes(text), object: bytes(was), floorBytes },
        });
      }
    } finally {
      await room.stop();
      home.cleanup();
    }
    return rows;
  },
};
