import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/env';

// The README is the front page: every docs page is reachable from it, and no page links to a file that is not
// there (a section moved without its links).
const read = (page: string) => fs.readFileSync(path.join(REPO, page), 'utf8');
const DOCS = fs.readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
const PAGES = ['README.md', 'BENCHMARKS.md', 'RELIABILITY.md', 'bench/investigations/README.md', ...DOCS];

/** The relative targets of a page's markdown links and images, without their #anchor. */
function targets(page: string): string[] {
  const out: string[] = [];
  for (const m of read(page).matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) if (!/^[a-z]+:/.test(m[1] as string)) out.push(m[1] as string);
  return out;
}

describe('the README and the docs pages', () => {
  it('the README links every docs page, BENCHMARKS.md and RELIABILITY.md', () => {
    const linked = new Set(targets('README.md'));
    for (const page of [...DOCS, 'BENCHMARKS.md', 'RELIABILITY.md']) expect(linked, page).toContain(page);
  });

  it.each(PAGES)('%s links only to files that exist', (page) => {
    for (const target of targets(page)) expect(fs.existsSync(path.join(REPO, path.dirname(page), target)), `${page} → ${target}`).toBe(true);
  });

  it('the README stays a front page: short, with how to start, connect Claude Code and approve', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    for (const needed of ['npm install', 'npm start', 'npm test', 'claude mcp add', 'ce agent start claude-code', 'ce approve', 'docs/images/']) expect(readme).toContain(needed);
  });

  it('BENCHMARKS.md is the method and the table, not a notebook', () => {
    expect(read('BENCHMARKS.md').split('\n').length).toBeLessThan(300);
  });
});
