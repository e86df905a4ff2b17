import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** A skipped test's line: its file, then the names of its suites and itself (which carry the reason, by convention). */
function skippedLine(test: TestCase): string {
  const names: string[] = [];
  let parent: TestCase['parent'] | TestCase = test;
  while (parent.type !== 'module') {
    names.unshift(parent.name);
    parent = parent.parent;
  }
  return `${test.module.moduleId.replace(`${process.cwd()}/`, '')}: ${names.join(' › ')}`;
}

/**
 * Prints what was skipped and why (a suite skipped for a missing tool names the tool and how to get it), then one
 * plain closing line, "N passed, N failed, N skipped", that any CI log reader understands.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const skips: string[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else {
          skipped++;
          skips.push(skippedLine(test));
        }
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
    }
    if (skips.length > 0) {
      console.log(`\nSkipped (${skips.length}):`);
      for (const line of skips) console.log(`  - ${line}`);
    }
    console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
