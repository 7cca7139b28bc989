import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Every budget of the project as one figure: a measured value beside its goal. The benchmark
 * modules call `figure` as they measure; `npm run bench` ends with the table of all of them and
 * writes it as JSON; `--check` fails the run when a goal is missed by more than 10%.
 */
export interface Figure {
  /** What is measured, as a reader of the table names it ("login p95"). */
  name: string;
  /** The part of the bench it comes from ("api", "people", "records"). */
  area: string;
  value: number;
  unit: string;
  /** The budget; none for a figure that is shown beside others (a raw rate a ratio is made from). */
  goal?: number;
  /** `max`: the value must not exceed the goal; `min`: it must reach it. */
  kind?: 'max' | 'min';
  /** A word on how it was measured, shown after the value. */
  note?: string;
}

export const figures: Figure[] = [];

/** Records a figure; returns it so a detail line can use the value. */
export function figure(entry: Figure): Figure {
  if (entry.goal !== undefined && !entry.kind) throw new Error(`${entry.name}: a goal needs a kind (max or min)`);
  figures.push(entry);
  return entry;
}

/** How far a figure is from its goal: 0 when met, else the shortfall as a share of the goal. */
export function shortfall(entry: Figure): number {
  if (entry.goal === undefined || !Number.isFinite(entry.value)) return entry.goal === undefined ? 0 : Number.POSITIVE_INFINITY;
  if (entry.kind === 'max') return entry.value <= entry.goal ? 0 : (entry.value - entry.goal) / Math.max(entry.goal, Number.EPSILON);
  return entry.value >= entry.goal ? 0 : (entry.goal - entry.value) / Math.max(entry.goal, Number.EPSILON);
}

/** The tolerance `--check` allows before it fails. */
export const CHECK_TOLERANCE = 0.1;

const number = (value: number): string => {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  return abs >= 100 ? value.toFixed(0) : abs >= 10 ? value.toFixed(1) : value.toFixed(2);
};

/** The table printed at the end of `npm run bench`. */
export function table(entries: readonly Figure[] = figures): string {
  const rows = entries.map((f) => {
    const miss = shortfall(f);
    const verdict = f.goal === undefined ? '' : miss === 0 ? 'met' : miss <= CHECK_TOLERANCE ? 'near' : 'MISSED';
    const goal = f.goal === undefined ? '' : `${f.kind === 'max' ? '≤' : '≥'} ${number(f.goal)} ${f.unit}`;
    return [f.area, f.name, `${number(f.value)} ${f.unit}`, goal, verdict, f.note ?? ''];
  });
  const head = ['area', 'budget', 'measured', 'goal', '', 'how'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => [...r[i]!].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c + ' '.repeat(widths[i]! - [...c].length))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Where the JSON of the last run goes. */
export const FIGURES_FILE = resolve(import.meta.dirname, '../.artifacts/bench.json');

export function writeFigures(entries: readonly Figure[] = figures, file = FIGURES_FILE): void {
  mkdirSync(join(file, '..'), { recursive: true });
  const data = entries.map((f) => ({ ...f, met: f.goal === undefined ? null : shortfall(f) === 0, shortfall: shortfall(f) }));
  writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), figures: data }, null, 2)}\n`);
}

/** The figures `--check` fails on: goals missed by more than the tolerance. */
export const missed = (entries: readonly Figure[] = figures): Figure[] => entries.filter((f) => shortfall(f) > CHECK_TOLERANCE);
