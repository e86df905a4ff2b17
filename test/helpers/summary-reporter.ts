import path from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { UserConsoleLog } from 'vitest';

/**
 * Prints one plain closing line, "N passed, N failed, N skipped", that any CI log reader understands, and
 * above it the ten slowest test files and why tests were skipped: each reason once (a `ctx.skip(reason)` note, or the title of the skipped
 * suite, which says why), with its file and how many tests it skipped. Above those, what each failed test wrote to
 * stderr (its diagnostics: a screen, the requests a model saw), its last few thousand characters: a CI log is
 * often read from its tail only, and there a failure's own words are otherwise hundreds of lines up.
 */
const STDERR_KEPT = 4000;

export default class SummaryReporter implements Reporter {
  private readonly stderr = new Map<string, string>();

  onUserConsoleLog(log: UserConsoleLog): void {
    if (log.type !== 'stderr' || !log.taskId) return;
    this.stderr.set(log.taskId, `${this.stderr.get(log.taskId) ?? ''}${log.content}`.slice(-STDERR_KEPT));
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const failures: string[] = [];
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const reasons = new Map<string, number>();
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') {
          failed++;
          const said = this.stderr.get(test.id);
          if (said) failures.push(`--- ${path.relative(process.cwd(), module.moduleId)} > ${test.fullName}\n${said.trimEnd()}`);
        }
        else {
          skipped++;
          const why = `${path.relative(process.cwd(), module.moduleId)}: ${skipReason(test, result.state === 'skipped' ? result.note : undefined)}`;
          reasons.set(why, (reasons.get(why) ?? 0) + 1);
        }
      }
      // a file that failed outside its tests (its import, a beforeAll) counts once, whatever its tests read
      if (module.state() === 'failed' && ![...module.children.allTests()].some((t) => t.result().state === 'failed')) failed++;
    }
    const slowest = modules
      .map((m) => ({ file: path.relative(process.cwd(), m.moduleId), project: m.project.name, ms: m.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    if (modules.length > 1) {
      console.log('\nslowest files:');
      for (const m of slowest) console.log(`  ${(m.ms / 1000).toFixed(1).padStart(6)} s  ${m.file}${m.project === 'default' ? '' : ` (${m.project})`}`);
    }
    if (failures.length > 0) {
      console.log('\nwhat the failed tests wrote to stderr (the last ' + STDERR_KEPT + ' characters of each):');
      for (const f of failures) console.log(f);
    }
    if (reasons.size > 0) {
      console.log('\nskipped:');
      for (const [why, count] of reasons) console.log(`  ${why}${count > 1 ? ` (${count} tests)` : ''}`);
    }
    console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}

/** The note given to ctx.skip, else the outermost skipped suite's title (where describe.skipIf puts the reason). */
function skipReason(test: TestCase, note: string | undefined): string {
  if (note) return note;
  let title = test.name;
  for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) {
    if (parent.options.mode === 'skip') title = parent.name;
  }
  return title;
}
