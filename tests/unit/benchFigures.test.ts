import { describe, expect, it } from 'vitest';
import { missed, shortfall, table, type Figure } from '../bench/figures.ts';

const at = (value: number, goal: number | undefined, kind?: 'max' | 'min'): Figure => ({ area: 'test', name: `value ${value}`, value, unit: 'ms', goal, kind });

describe('benchmark figures', () => {
  it('measures how far a figure is from its goal, in either direction', () => {
    expect(shortfall(at(90, 100, 'max'))).toBe(0);
    expect(shortfall(at(100, 100, 'max'))).toBe(0);
    expect(shortfall(at(115, 100, 'max'))).toBeCloseTo(0.15);
    expect(shortfall(at(0.95, 1, 'min'))).toBeCloseTo(0.05);
    expect(shortfall(at(2, 1, 'min'))).toBe(0);
    expect(shortfall(at(1, 0, 'max'))).toBeGreaterThan(1);
    expect(shortfall(at(Number.NaN, 100, 'max'))).toBe(Number.POSITIVE_INFINITY);
    expect(shortfall(at(5000, undefined))).toBe(0);
  });

  it('--check fails only on goals missed by more than 10%', () => {
    const entries = [at(105, 100, 'max'), at(111, 100, 'max'), at(0.89, 1, 'min'), at(0.91, 1, 'min'), at(9999, undefined)];
    expect(missed(entries).map((f) => f.value)).toEqual([111, 0.89]);
  });

  it('prints one row per figure with its goal and verdict', () => {
    const text = table([at(90, 100, 'max'), at(105, 100, 'max'), at(130, 100, 'max'), at(7, undefined)]);
    const rows = text.split('\n').slice(2);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(/90\.0 ms\s+≤ 100 ms\s+met/);
    expect(rows[1]).toMatch(/near/);
    expect(rows[2]).toMatch(/MISSED/);
    expect(rows[3]).not.toMatch(/met|near|MISSED/);
  });
});
