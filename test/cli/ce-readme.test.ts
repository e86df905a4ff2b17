import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/env';

describe('docs/cli.md documents the ce the build ships', () => {
  it('its ce --help and every command\'s --help equal the built CLI\'s', () => {
    const r = spawnSync(process.execPath, [path.join(REPO, 'scripts/ce-help-readme.mjs'), '--check'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const cli = fs.readFileSync(path.join(REPO, 'docs', 'cli.md'), 'utf8');
    for (const name of ['answer', 'shell', 'logs', 'init', 'handoff-cancel']) expect(cli).toContain(`usage: ce ${name}`);
    // never tell a person to hand the operator token to an agent, in the README or any docs page
    for (const page of ['README.md', ...fs.readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))]) {
      expect(fs.readFileSync(path.join(REPO, page), 'utf8'), page).not.toMatch(/\$\(cat [^)]*operator/);
    }
    // the README points to the page
    expect(fs.readFileSync(path.join(REPO, 'README.md'), 'utf8')).toContain('(docs/cli.md)');
  }, 120_000);
});
