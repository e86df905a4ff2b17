import fs from 'node:fs';
import path from 'node:path';
import { findOnPath } from '../engine/index';

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
  // the ce a shell would run is the first on the PATH: it must be this one (not merely one of them)
  const first = findOnPath('ce', pathVar);
  try {
    if (first && fs.realpathSync(first) === own) return 'ce';
  } catch {
    // a dangling link
  }
  return `node ${own}`;
}
