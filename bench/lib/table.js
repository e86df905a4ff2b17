// The results table: the rows `npm run bench` prints, and the latest table it keeps in BENCHMARKS.md between
// its two markers (as the soak suite keeps RELIABILITY.md's). A run replaces the rows of the benchmarks it ran,
// each benchmark's rows as one block, and leaves every other benchmark's rows and everything outside the
// markers as they were, so `npm run bench -- NAME` refreshes that benchmark alone. A benchmark that failed keeps
// its previous rows.
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

/**
 * The text with the table between the markers updated: `ran` is [{name, rows}] of the benchmarks that ran and
 * succeeded, `when` the run's date (an ISO minute). Rows of other benchmarks keep their place and text; a
 * benchmark seen before takes its old place, a new one goes last. Throws when the markers are missing.
 */
export function replaceTable(text, ran, when) {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`no ${BEGIN} … ${END} markers`);
  const fresh = new Map(ran.map((b) => [b.name, b.rows.map((r) => `${printedRow(r).slice(0, -2)} | ${when} |`)]));
  const kept = text
    .slice(begin + BEGIN.length, end)
    .split('\n')
    .filter((line) => line.startsWith('| ') && !HEADER.includes(line));
  const lines = [];
  const placed = new Set();
  for (const line of kept) {
    const name = benchmarkOf(line.slice(2, line.indexOf(' |')));
    if (!fresh.has(name)) lines.push(line);
    else if (!placed.has(name)) {
      placed.add(name);
      lines.push(...fresh.get(name));
    }
  }
  for (const [name, rows] of fresh) if (!placed.has(name)) lines.push(...rows);
  return `${text.slice(0, begin + BEGIN.length)}\n${[...HEADER, ...lines].join('\n')}\n${text.slice(end)}`;
}

/** Rewrites the table in `file` with the benchmarks that ran; answers how many rows were written. */
export function writeTable(file, ran, when) {
  fs.writeFileSync(file, replaceTable(fs.readFileSync(file, 'utf8'), ran, when));
  return ran.reduce((n, b) => n + b.rows.length, 0);
}
