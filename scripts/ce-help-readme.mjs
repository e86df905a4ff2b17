#!/usr/bin/env node
// Writes `ce --help` and every command's `--help` into docs/cli.md between their markers, from the built CLI
// (npm run build first). test/cli/ce-readme.test.ts fails when the page and the CLI disagree.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '..');
const ce = (...args) => execFileSync(process.execPath, [path.join(repo, 'bin/ce.js'), ...args], { encoding: 'utf8', env: { ...process.env, COMMONROOM_ROOM: '' } });

/** The README text the CLI's help should appear as: one block for `ce --help`, one per command. */
export function helpSections() {
  const overall = ce('--help');
  const names = [...overall.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1]);
  const perCommand = names.map((name) => `\`ce ${name} --help\`\n\n\`\`\`\n${ce(name, '--help').trimEnd()}\n\`\`\`\n`).join('\n');
  return { 'ce-help': `\`\`\`\n${overall.trimEnd()}\n\`\`\`\n`, 'ce-command-help': perCommand };
}

export function fill(readme, sections) {
  let out = readme;
  for (const [marker, body] of Object.entries(sections)) {
    const re = new RegExp(`(<!-- ${marker}:start[^>]*-->\\n)[\\s\\S]*?(<!-- ${marker}:end -->)`);
    if (!re.test(out)) throw new Error(`docs/cli.md has no ${marker} markers`);
    out = out.replace(re, (_, start, end) => `${start}${body}${end}`);
  }
  return out;
}

if (process.argv[1] === import.meta.filename) {
  const file = path.join(repo, 'docs', 'cli.md');
  const before = fs.readFileSync(file, 'utf8');
  const after = fill(before, helpSections());
  if (process.argv.includes('--check')) {
    if (after !== before) {
      console.error('docs/cli.md: the ce help sections differ from the built CLI: run "node scripts/ce-help-readme.mjs"');
      process.exit(1);
    }
    console.log('docs/cli.md: ce help sections are current');
  } else {
    fs.writeFileSync(file, after);
    console.log('docs/cli.md: ce help sections written');
  }
}
