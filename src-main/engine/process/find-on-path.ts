import fs from 'node:fs';
import path from 'node:path';

/**
 * Where `program` is on `pathVar` (an executable file), or null; a program given with a slash is checked as
 * that path. The one PATH lookup of the room: the sandbox's bwrap, the agent CLIs.
 */
export function findOnPath(program: string, pathVar: string): string | null {
  if (program.includes('/')) return isExecutable(program) ? path.resolve(program) : null;
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, program);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
