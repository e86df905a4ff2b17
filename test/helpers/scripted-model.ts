import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A model server of the test's own on 127.0.0.1, spoken to by the real agent CLIs as they speak to their
 * vendor (no model is reachable here): the Anthropic Messages API, streamed or not (Claude Code through
 * ANTHROPIC_BASE_URL), the OpenAI Responses API, streamed (Codex through a model_providers entry), and the Gemini
 * API's generateContent, streamed or not (Gemini CLI through GOOGLE_GEMINI_BASE_URL). Its
 * script is simple: when the latest user text names a tool (`call <tool>`, optionally followed by its arguments
 * as JSON: `call Bash {"command":"ls"}`), the answer calls that tool with them (else `{}`); after a tool's result, or for anything else, it answers with one short text. Shaped by the APIs'
 * public reference (their event names and fields), not by what the tests check.
 */
export interface ScriptedModel {
  url: string;
  /** Every request's path and its body's model and latest user text, in order. */
  requests: { path: string; model: string | null; lastUser: string | null; tools: string[]; toolResult: string | null }[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** The latest user turn's text (Anthropic: string or text blocks; Gemini: text parts; tool results are not text). */
function lastUserText(messages: unknown): { text: string | null; afterTool: boolean } {
  if (!Array.isArray(messages)) return { text: null, afterTool: false };
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: string; content?: unknown; type?: string; parts?: { text?: string; functionResponse?: unknown }[] };
    if (Array.isArray(m.parts)) {
      if (m.role !== 'user') continue;
      if (m.parts.some((p) => p.functionResponse !== undefined)) return { text: null, afterTool: true };
      // the person's words are the last part (Gemini CLI puts its session context in the parts before)
      const text = m.parts.filter((p) => (p.text ?? '').trim() !== '').at(-1)?.text;
      if (text !== undefined) return { text, afterTool: false };
      continue;
    }
    if (m.type === 'function_call_output') return { text: null, afterTool: true };
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return { text: m.content, afterTool: false };
    if (Array.isArray(m.content)) {
      const blocks = m.content as { type?: string; text?: string }[];
      if (blocks.some((b) => b.type === 'tool_result')) return { text: null, afterTool: true };
      const text = blocks.filter((b) => b.type === 'text' || b.type === 'input_text').map((b) => b.text ?? '').join('\n');
      return { text, afterTool: false };
    }
  }
  return { text: null, afterTool: false };
}

/** The tool a user text asks for ("call room_info" → the tool whose name ends with room_info), if offered. */
function wantedTool(text: string | null, tools: string[]): string | null {
  const asked = text ? /\bcall ([\w-]+)/.exec(text)?.[1] : undefined;
  if (!asked) return null;
  return tools.find((t) => t === asked || t.endsWith(`__${asked}`) || t.endsWith(`_${asked}`)) ?? null;
}

/** The arguments a user text gives its tool (`call <tool> {…}`), as JSON text; `{}` when none. */
function toolArguments(text: string | null): string {
  const json = text ? /\bcall [\w-]+\s+(\{.*\})\s*$/s.exec(text)?.[1] : undefined;
  if (!json) return '{}';
  try {
    return JSON.stringify(JSON.parse(json));
  } catch {
    return '{}';
  }
}

/** The latest tool result's text in a conversation (Anthropic tool_result, Responses function_call_output, Gemini functionResponse). */
function lastToolResult(messages: unknown): string | null {
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { type?: string; output?: unknown; content?: unknown; parts?: { functionResponse?: { response?: unknown } }[] };
    const answered = m.parts?.find((p) => p.functionResponse !== undefined);
    if (answered) return JSON.stringify(answered.functionResponse?.response ?? null);
    if (m.type === 'function_call_output') return typeof m.output === 'string' ? m.output : JSON.stringify(m.output);
    if (Array.isArray(m.content)) {
      const result = (m.content as { type?: string; content?: unknown }[]).find((b) => b.type === 'tool_result');
      if (result) return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
    }
  }
  return null;
}

/** The names of the tools a request offers (a function tool's name, a namespace's tools as namespace__name, Gemini's function declarations). */
function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t: { name?: string; type?: string; tools?: { name?: string }[]; functionDeclarations?: { name?: string }[] }) => {
    if (Array.isArray(t.functionDeclarations)) return t.functionDeclarations.map((f) => f.name ?? '');
    return Array.isArray(t.tools) ? t.tools.map((inner) => `${t.name ?? ''}__${inner.name ?? ''}`) : t.name ? [t.name] : [];
  });
}

const sse = (res: http.ServerResponse, events: [string, Json][]) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
};

let seq = 0;

function anthropic(body: Json, res: http.ServerResponse): void {
  const tools = toolNames(body.tools);
  const { text, afterTool } = lastUserText(body.messages);
  const tool = afterTool ? null : wantedTool(text, tools);
  const id = `msg_${++seq}`;
  const model = typeof body.model === 'string' ? body.model : 'claude-scripted';
  const args = toolArguments(text);
  const content: Json[] = tool ? [{ type: 'tool_use', id: `toolu_${seq}`, name: tool, input: JSON.parse(args) as Json }] : [{ type: 'text', text: afterTool ? 'Done: the tool answered.' : 'Hello from the scripted model.' }];
  const stop = tool ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage }));
    return;
  }
  const block = content[0] as Json;
  const events: [string, Json][] = [['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } }]];
  if (tool) {
    events.push(['content_block_start', { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } }]);
    events.push(['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: args } }]);
  } else {
    events.push(['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }]);
    events.push(['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: block.text } }]);
  }
  events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  sse(res, events);
}

/** A namespace's tool (`mcp__server__tool`, as toolNames lists it) is called by its namespace and its own name. */
function namespaced(tool: string): { name: string; namespace?: string } {
  const at = tool.lastIndexOf('__');
  return at > 0 && tool.startsWith('mcp__') ? { namespace: tool.slice(0, at), name: tool.slice(at + 2) } : { name: tool };
}

function responses(body: Json, res: http.ServerResponse): void {
  const tools = toolNames(body.tools);
  const { text, afterTool } = lastUserText(body.input);
  const tool = afterTool ? null : wantedTool(text, tools);
  const id = `resp_${++seq}`;
  const model = typeof body.model === 'string' ? body.model : 'gpt-scripted';
  const item: Json = tool
    ? { type: 'function_call', id: `fc_${seq}`, call_id: `call_${seq}`, ...namespaced(tool), arguments: toolArguments(text), status: 'completed' }
    : { type: 'message', id: `msg_${seq}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: afterTool ? 'Done: the tool answered.' : 'Hello from the scripted model.', annotations: [] }] };
  const response = (status: string, output: Json[]) => ({ id, object: 'response', created_at: Math.floor(Date.now() / 1000), status, model, output, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } });
  sse(res, [
    ['response.created', { type: 'response.created', response: response('in_progress', []) }],
    ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } }],
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    ['response.completed', { type: 'response.completed', response: response('completed', [item]) }],
  ]);
}

/** Gemini API generateContent (one JSON answer) and streamGenerateContent (the same as one SSE event). */
function gemini(body: Json, res: http.ServerResponse, stream: boolean): void {
  const tools = toolNames(body.tools);
  const { text, afterTool } = lastUserText(body.contents);
  const tool = afterTool ? null : wantedTool(text, tools);
  seq++;
  // Gemini CLI's own side questions (which model to route to, who speaks next) ask for JSON: the one answer says
  // "the flash model" and "the person"
  const config = body.generationConfig as { responseMimeType?: string } | undefined;
  const json = config?.responseMimeType === 'application/json' ? { text: JSON.stringify({ reasoning: 'scripted', model_choice: 'flash', next_speaker: 'user' }) } : null;
  const part: Json = json ?? (tool ? { functionCall: { name: tool, args: JSON.parse(toolArguments(text)) as Json } } : { text: afterTool ? 'Done: the tool answered.' : 'Hello from the scripted model.' });
  const answer = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: 'gemini-scripted', responseId: `gem_${seq}` };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const requests: ScriptedModel['requests'] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (raw += d));
    req.on('end', () => {
      let body: Json = {};
      try {
        body = raw ? (JSON.parse(raw) as Json) : {};
      } catch {
        body = {};
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const conversation = body.messages ?? body.input ?? body.contents;
      requests.push({ path: url.pathname, model: typeof body.model === 'string' ? body.model : null, lastUser: lastUserText(conversation).text, tools: toolNames(body.tools), toolResult: lastToolResult(conversation) });
      if (req.method === 'POST' && url.pathname.endsWith('/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 10 }));
      } else if (req.method === 'POST' && url.pathname.endsWith('/messages')) anthropic(body, res);
      else if (req.method === 'POST' && url.pathname.endsWith('/responses')) responses(body, res);
      else if (req.method === 'POST' && url.pathname.endsWith(':countTokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: 10 }));
      } else if (req.method === 'POST' && /:(stream)?[gG]enerateContent$/.test(url.pathname)) gemini(body, res, url.pathname.endsWith(':streamGenerateContent'));
      else if (url.pathname.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [], object: 'list' }));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'not_found_error', message: `the scripted model has no ${req.method} ${url.pathname}` } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
