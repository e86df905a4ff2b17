#!/usr/bin/env node
// Runs the built `commonroom` CLI (npm run build makes out/main).
import { existsSync } from 'node:fs';
const entry = new URL('../out/main/commonroom.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('commonroom: not built yet: run "npm run build" (or "npm start") first');
  process.exit(1);
}
await import(entry.href);
