import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';

/** The one snake_case argument kept: the seed names it so (idempotencyKey is accepted beside it). */
const SNAKE_ALLOWED = new Set(['idempotency_key']);

type Schema = Record<string, unknown>;

/**
 * Every problem in one tool's input schema: a property without a description, a snake_case key. Walks nested
 * objects, array items, union branches and $defs references, so a stage of tasks_run is checked like a top-level argument.
 */
function problemsOf(tool: string, root: Schema): string[] {
  const problems: string[] = [];
  const defs = (root.$defs ?? {}) as Record<string, Schema>;
  const resolve = (s: Schema): Schema => (typeof s.$ref === 'string' ? (defs[s.$ref.replace('#/$defs/', '')] ?? s) : s);
  const seen = new Set<Schema>();
  const walk = (node: Schema, where: string) => {
    if (seen.has(node)) return;
    seen.add(node);
    const properties = (node.properties ?? {}) as Record<string, Schema>;
    for (const [key, value] of Object.entries(properties)) {
      const at = `${tool}: ${where}${key}`;
      if (/_/.test(key) && !SNAKE_ALLOWED.has(key)) problems.push(`${at} is snake_case`);
      if (typeof value.description !== 'string' && typeof resolve(value).description !== 'string') problems.push(`${at} has no description`);
      walk(resolve(value), `${where}${key}.`);
    }
    for (const branchKey of ['anyOf', 'oneOf', 'allOf'] as const) {
      for (const [i, branch] of ((node[branchKey] ?? []) as Schema[]).entries()) walk(resolve(branch), `${where}(${branchKey} ${i}).`);
    }
    if (node.items && typeof node.items === 'object') walk(resolve(node.items as Schema), `${where}[].`);
    if (node.additionalProperties && typeof node.additionalProperties === 'object') walk(resolve(node.additionalProperties as Schema), `${where}{}.`);
  };
  walk(root, '');
  return problems;
}

let runner: TestRunner;
let v1: ClientV1;
let v2: ClientV2;

beforeAll(async () => {
  runner = await startTestRunner();
  const headers = { Authorization: `Bearer ${runner.token}` };
  v1 = new ClientV1({ name: 'schema-walk-v1', version: '1' });
  await v1.connect(new TransportV1(runner.running.mcpUrl, { requestInit: { headers } }));
  v2 = new ClientV2({ name: 'schema-walk-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await v2.connect(new TransportV2(runner.running.mcpUrl, { requestInit: { headers } }));
}, 60_000);
afterAll(async () => {
  await v1?.close().catch(() => undefined);
  await v2?.close().catch(() => undefined);
  await runner?.close();
});

describe('every tool, as both SDK eras list it', () => {
  it('has a description on every parameter, no snake_case key but idempotency_key, annotations and an outputSchema', async () => {
    for (const client of [v1, v2] as const) {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThanOrEqual(20);
      const problems: string[] = [];
      for (const tool of tools) {
        problems.push(...problemsOf(tool.name, tool.inputSchema as Schema));
        const a = tool.annotations;
        for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
          if (typeof a?.[hint] !== 'boolean') problems.push(`${tool.name}: no ${hint}`);
        }
        if (tool.outputSchema?.type !== 'object') problems.push(`${tool.name}: no outputSchema`);
        if (!tool.description) problems.push(`${tool.name}: no description`);
      }
      expect(problems).toEqual([]);
    }
  });

  it('the walk catches what it is for (a tool schema with the faults it looks for)', () => {
    const faulty = {
      type: 'object',
      properties: {
        handoff_id: { type: 'string', description: 'snake' },
        limit: { type: 'number' },
        stages: { type: 'array', description: 'x', items: { type: 'object', properties: { dependsOn: { type: 'array' } } } },
        idempotency_key: { type: 'string', description: 'kept' },
      },
    };
    expect(problemsOf('t', faulty)).toEqual(['t: handoff_id is snake_case', 't: limit has no description', 't: stages.[].dependsOn has no description']);
  });

  it('answers structured content (no null or empty field below its top level, accepted by both SDK eras against the outputSchema) and a text summary naming every id in it', async () => {
    const nulls = (value: unknown, at: string, depth: number): string[] => {
      if (Array.isArray(value)) return value.flatMap((v, i) => nulls(v, `${at}[${i}]`, depth + 1));
      if (value === null || typeof value !== 'object') return [];
      return Object.entries(value).flatMap(([k, v]) => (depth > 0 && (v === null || (Array.isArray(v) && v.length === 0)) ? [`${at}.${k}`] : nulls(v, `${at}.${k}`, depth + 1)));
    };
    const ids = (value: unknown): string[] =>
      JSON.stringify(value).match(/"(?:sh|gr|hf|tk)_[A-Za-z0-9_-]+"/g)?.map((id) => id.slice(1, -1)) ?? [];
    for (const client of [v1, v2] as const) {
      const { tools } = await client.listTools(); // the clients check later results against these outputSchemas
      expect(tools.some((t) => t.name === 'room_info')).toBe(true);
      for (const [name, args] of [['room_info', {}], ['tasks_list', { limit: 5 }], ['handoff_list', {}], ['shell_list', {}], ['workspace_history', { limit: 3 }]] as const) {
        const result = (await client.callTool({ name, arguments: args })) as { structuredContent?: unknown; content: { type: string; text: string }[]; isError?: boolean };
        expect(result.isError, name).toBeFalsy();
        expect(nulls(result.structuredContent, name, 0), name).toEqual([]);
        const text = result.content[0]?.text ?? '';
        // not a second copy of the object: a summary with the ids a text-only client needs to act
        expect(text, name).not.toMatch(/^\{/);
        for (const id of ids(result.structuredContent)) expect(text, `${name} names ${id}`).toContain(id);
      }
    }
  });

});
