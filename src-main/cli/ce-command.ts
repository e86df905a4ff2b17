import fs from 'node:fs';
import path from 'node:path';

/**
 * How the person at this machine runs `ce`, for the lines that tell them to: `ce` where the `ce` on their PATH
 * is this Commonroom's (an install, or `npm link`), else this build's own launcher by its full path (a
 * checkout). Never `npx ce`: outside a checkout that fetches and runs an unrelated package of that name.
 */
export function ceCommand(pathVar = process.env.PATH ?? '', started = process.argv[1] ?? ''): string {
  // ce's launcher sits beside the one this process was started by (bin/commonroom.js)
  let own: string;
  try {
    own = fs.realpathSync(path.join(path.dirname(fs.realpathSync(started)), 'ce.js'));
  } catch {
    return 'ce';
  }
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    try {
      if (fs.realpathSync(path.join(dir, 'ce')) === own) return 'ce';
    } catch {
      // not in this folder
    }
  }
  return `node ${own}`;
}
