#!/usr/bin/env node
// What creating a stage log costs in a folder: N empty files created as the runner creates its logs
// (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), a record written, closed; medians of each step, in µs, per folder given.
// On ext4 without a journal the create passes over inodes of files deleted in the last seconds, so it costs far
// more in a folder whose block group just saw many deletions.
// usage: node bench/investigations/fs-create.js DIR... [--n N]   (each DIR gets a fresh subfolder, removed after)
import fs from 'node:fs';
import path from 'node:path';
import { median } from '../lib/stats.js';

const args = process.argv.slice(2);
const at = args.indexOf('--n');
const n = at >= 0 ? Number(args.splice(at, 2)[1]) : 1000;
if (args.length === 0 || !(n > 0)) {
  console.error('usage: node bench/investigations/fs-create.js DIR... [--n N]');
  process.exit(2);
}
const FLAGS = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
const us = (from) => Number(process.hrtime.bigint() - from) / 1000;
for (const parent of args) {
  const dir = fs.mkdtempSync(path.join(parent, 'fs-create-'));
  const steps = { create: [], write: [], close: [] };
  try {
    for (let i = 0; i < n; i++) {
      let t = process.hrtime.bigint();
      const fd = fs.openSync(path.join(dir, `s${i}.log`), FLAGS, 0o600);
      steps.create.push(us(t));
      t = process.hrtime.bigint();
      fs.writeSync(fd, '{"q":1,"s":"r","t":"2026-12-02T00:00:00.000Z","d":"[attempt 1 of 1: true]\\n"}\n');
      steps.write.push(us(t));
      t = process.hrtime.bigint();
      fs.closeSync(fd);
      steps.close.push(us(t));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${parent}: ${n} files, median create ${median(steps.create).toFixed(0)} µs, write ${median(steps.write).toFixed(0)} µs, close ${median(steps.close).toFixed(0)} µs`);
}
