// The results table: the rows `npm run bench` prints, and the latest table it keeps in BENCHMARKS.md between
// its two markers (as the soak suite keeps RELIABILITY.md's). A run replaces the rows of the benchmarks it ran,
// each benchmark's rows as one block, and leaves every other benchmark's rows and everything outside the
// markers as they were, so `npm run bench -- NAME` refreshes that benchmark alone. A benchmark that failed has
// each of its rows marked failed on that run's date, its figures gone (never the old figures kept as if they
// still held), with what failed; one that had no rows gets one saying so.
import fs from 'node:fs';

export const BEGIN = '<!-- bench:begin -->';
export const END = '<!-- bench:end -->';
export const HEADER = ['| benchmark | ours | baseline | ratio | goal | met? | run at |', '| --- | --- | --- | --- | --- | --- | --- |'];

const cell = (value) => String(value ?? '').replaceAll('|', '\\|').replaceAll('\n', ' ');

/** "yes", "no", "n/a", or "no (its floor: X×)" where a row measured the goal on its floor too. */
export function metCell(row) {
  if (row.met === null) return 'n/a';
  if (row.met) return 'yes';
  return row.floor === undefined ? 'no' : `no (its floor: ${row.floor.toFixed(2)}×)`;
}

/** A row as printed (no date): | benchmark | ours | baseline | ratio | goal | met? | */
export function printedRow(row) {
  return `| ${[row.name, row.ours, row.baseline, row.ratio, row.goal, metCell(row)].map(cell).join(' | ')} |`;
}

/** The benchmark a row belongs to: every row's name starts with its benchmark's name and a space. */
export function benchmarkOf(rowName) {
  return rowName.split(' ')[0];
}

/** The first line of an error, short enough for a cell. */
export function failureOf(error) {
  const first = String(error ?? 'failed').split('\n')[0].trim();
  return first.length > 200 ? `${first.slice(0, 199)}…` : first;
}

/** The cells of a table line, unescaped enough to read back a row's name and goal. */
const cellsOf = (line) => line.slice(2, -2).split(/(?<!\\) \| /).map((c) => c.replaceAll('\\|', '|'));

/** A failed benchmark's row: its name and goal kept, its figures replaced by what failed, dated. */
const failedLine = (name, goal, error, when) => `| ${[name, `FAILED: ${failureOf(error)}`, '', '', goal, 'no (failed)'].map(cell).join(' | ')} | ${when} |`;

/**
 * The text with the table between the markers updated: `ran` is [{name, rows}] of the benchmarks that ran and
 * succeeded, `failed` [{name, error}] those that threw, `when` the run's date (an ISO minute). Rows of other
 * benchmarks keep their place and text; a benchmark seen before takes its old place, a new one goes last. A
 * failed benchmark's rows stay by name and goal, marked failed on `when` with the error. Throws when the
 * markers are missing.
 */
export function replaceTable(text, ran, when, failed = []) {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`no ${BEGIN} … ${END} markers`);
  const fresh = new Map(ran.map((b) => [b.name, b.rows.map((r) => `${printedRow(r).slice(0, -2)} | ${when} |`)]));
  // a row named as one this run measured is that benchmark's, whatever its name starts with ('task start …' of
  // task-start was otherwise kept beside its new figures)
  const measuredBy = new Map(ran.flatMap((b) => b.rows.map((r) => [r.name, b.name])));
  const failures = new Map(failed.map((b) => [b.name, b.error]));
  const kept = text
    .slice(begin + BEGIN.length, end)
    .split('\n')
    .filter((line) => line.startsWith('| ') && !HEADER.includes(line));
  const lines = [];
  const placed = new Set();
  for (const line of kept) {
    const rowName = line.slice(2, line.indexOf(' |'));
    const name = measuredBy.get(rowName) ?? benchmarkOf(rowName);
    if (failures.has(name)) {
      placed.add(name);
      lines.push(failedLine(rowName, cellsOf(line)[4] ?? '', failures.get(name), when));
    } else if (!fresh.has(name)) lines.push(line);
    else if (!placed.has(name)) {
      placed.add(name);
      lines.push(...fresh.get(name));
    }
  }
  for (const [name, rows] of fresh) if (!placed.has(name)) lines.push(...rows);
  for (const [name, error] of failures) if (!placed.has(name)) lines.push(failedLine(name, '', error, when));
  return `${text.slice(0, begin + BEGIN.length)}\n${[...HEADER, ...lines].join('\n')}\n${text.slice(end)}`;
}

/** Rewrites the table in `file` with the benchmarks that ran and those that failed; answers how many rows were written. */
export function writeTable(file, ran, when, failed = []) {
  fs.writeFileSync(file, replaceTable(fs.readFileSync(file, 'utf8'), ran, when, failed));
  return ran.reduce((n, b) => n + b.rows.length, 0);
}
