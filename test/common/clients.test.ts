/**
 * A client is one file (src-main/common/clients/<id>.ts) and a line in the index: what the room starts, the
 * snippet a person pastes and the rules its screen is read by all come from that one entry, so adding a fifth
 * agent client touches nothing else.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_CLIENT_IDS, AGENT_CLIENTS } from '../../src-main/common/agent-clients';
import { CLIENTS } from '../../src-main/common/clients/index';
import { connectSnippets } from '../../src-main/common/connect-snippets';
import { SHELL_STATUS_RULES } from '../../src-main/common/shell-status-rules';
import { REPO } from '../helpers/env';

describe('the clients index', () => {
  it('has one file per client, named by its id, each importing nothing but the shared types', () => {
    const dir = path.join(REPO, 'src-main/common/clients');
    const files = fs.readdirSync(dir).filter((f) => f !== 'index.ts' && f !== 'types.ts');
    expect(files.sort()).toEqual(CLIENTS.map((c) => `${c.id}.ts`).sort());
    for (const file of files) {
      const imports = [...fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      expect(imports, file).toEqual(['./types']);
    }
  });

  it('is the only source of the clients the room starts, the snippets it shows and the screen rules it reads', () => {
    const startable = CLIENTS.filter((c) => 'start' in c).map((c) => c.id);
    expect(AGENT_CLIENT_IDS).toEqual(startable);
    expect(Object.keys(AGENT_CLIENTS)).toEqual(startable);
    for (const c of CLIENTS) if ('start' in c) expect(AGENT_CLIENTS[c.id as keyof typeof AGENT_CLIENTS]).toMatchObject({ id: c.id, label: c.label, ...c.start });
    const snippets = connectSnippets('http://127.0.0.1:7391/mcp', 'cr_token');
    expect(snippets.map((s) => s.label)).toEqual(CLIENTS.filter((c) => 'snippet' in c).map((c) => c.snippet('u', 't').label));
    expect(new Set(snippets.map((s) => s.id)).size).toBe(snippets.length);
    for (const s of snippets) expect(s.text).toContain('cr_token');
    const withRules = CLIENTS.filter((c) => 'screen' in c);
    expect(Object.keys(SHELL_STATUS_RULES).sort()).toEqual(['default', ...withRules.map((c) => c.id)].sort());
    for (const c of withRules) expect(SHELL_STATUS_RULES[c.id]).toBe(c.screen);
  });
});
