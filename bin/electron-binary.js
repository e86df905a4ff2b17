// Where Electron's binary is, once its installer ran (node_modules/electron/path.txt names it), or null.
// Shared by `npm start` (bin/start.js) and `npm run smoke:desktop` (scripts/smoke-desktop.mjs).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export function electronBinary(electronPkg) {
  const pathFile = path.join(electronPkg, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = path.join(electronPkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}
