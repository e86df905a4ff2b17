/**
 * What a refusal quotes of git (issue 45, item 7): git names the files it is about on the lines after a line
 * that ends with a colon; the refusal says them in full, not the first line alone (which cut the names off).
 */
import { describe, expect, it } from 'vitest';
import { gitProblem } from '../../../src-main/engine/workspaces/git';

const out = (stderr: string) => ({ status: 1, stdout: '', stderr });

describe("a refusal's words from git", () => {
  it('names the files git lists after its line, in full', () => {
    const stderr =
      'error: Your local changes to the following files would be overwritten by checkout:\n\tdocs/guides/a rather long folder name/and a file name.md\n\tsrc/app.ts\nPlease commit your changes or stash them before you switch branches.\nAborting\n';
    expect(gitProblem(out(stderr))).toBe('Your local changes to the following files would be overwritten by checkout: docs/guides/a rather long folder name/and a file name.md, src/app.ts');
  });

  it('keeps a one-line problem as it is, and says the status when git said nothing', () => {
    expect(gitProblem(out("fatal: invalid reference: nope\n"))).toBe('invalid reference: nope');
    expect(gitProblem(out(''))).toBe('git exited with status 1');
  });

  it('names the first 20 of a long list and how many more', () => {
    const names = Array.from({ length: 25 }, (_, i) => `\tfile-${i}.txt`).join('\n');
    expect(gitProblem(out(`error: The following untracked working tree files would be overwritten by merge:\n${names}\n`))).toMatch(/file-19\.txt and 5 more$/);
  });
});
