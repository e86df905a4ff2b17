import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/env';

describe('the README documents the ce the build ships', () => {
  it('its ce --help and every command\'s --help equal the built CLI\'s', () => {
    const r = spawnSync(process.execPath, [path.join(REPO, 'scripts/ce-help-readme.mjs'), '--check'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
    for (const name of ['answer', 'shell', 'logs', 'init', 'handoff-cancel']) expect(readme).toContain(`usage: ce ${name}`);
    // never tell a person to hand the operator token to an agent
    expect(readme).not.toMatch(/\$\(cat [^)]*operator/);
  }, 120_000);
});
