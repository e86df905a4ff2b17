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
 * Prints the slowest test files, what was skipped and why (a suite skipped for a missing tool names the tool and how to get it), then one
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
    const slowest = modules
      .map((m) => ({ file: m.moduleId.replace(`${process.cwd()}/`, ''), project: m.project.name, ms: m.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    if (modules.length > 1) {
      console.log('\nSlowest files:');
      for (const m of slowest) console.log(`  ${(m.ms / 1000).toFixed(1).padStart(6)} s  ${m.file}${m.project === 'default' ? '' : ` (${m.project})`}`);
    }
    if (skips.length > 0) {
      console.log(`\nSkipped (${skips.length}):`);
      for (const line of skips) console.log(`  - ${line}`);
    }
    console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
