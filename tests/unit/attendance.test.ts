import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { attendanceDays, engineInputShape, explained, shiftProblems, type DayResult, type EngineInput, type Period } from '@passcloud/functions/domain/attendance/index';
import { addDays, atLocalTime } from '@passcloud/functions/domain/time';

/**
 * The attendance engine against ../shared/ATTENDANCE.md: every worked example, the night shift,
 * days around a change of daylight saving time, and properties over random punches (fast-check).
 */

const A: Period = { onDuty: '09:00', offDuty: '18:00', earliestCheckIn: '07:00', latestCheckOut: '23:00', lateTolerance: 5, earlyLeaveTolerance: 5 };
const N: Period = { onDuty: '22:00', offDuty: '06:00', earliestCheckIn: '21:00', latestCheckOut: '08:00', lateTolerance: 0, earlyLeaveTolerance: 0 };
const MONDAY = '2026-03-02';
const SATURDAY = '2026-03-07';

function input(overrides: Partial<EngineInput> = {}): EngineInput {
  return engineInputShape.parse({
    timezone: 'Asia/Tokyo',
    from: MONDAY,
    to: MONDAY,
    shifts: { A: [A], N: [N] },
    group: { weekdays: { mon: 'A', tue: 'A', wed: 'A', thu: 'A', fri: 'A', sat: null, sun: null }, workdayOvertimeAfter: '19:00', restDayMinHours: 4 },
    holidays: [],
    employee: { since: '2026-01-01', resignedOn: null },
    punches: [],
    ...overrides,
  });
}

/** Punches at local times of a date in the input's zone. */
const at = (date: string, ...times: string[]) => times.map((t) => ({ at: atLocalTime(date, Number(t.slice(0, 2)) * 60 + Number(t.slice(3)), 'Asia/Tokyo').toISOString() }));

function day(date: string, times: string[], overrides: Partial<EngineInput> = {}): DayResult {
  const days = attendanceDays(input({ from: date, to: date, punches: at(date, ...times), ...overrides }));
  expect(days).toHaveLength(1);
  return days[0]!;
}

const figures = (d: DayResult) => ({
  status: d.status,
  late: d.late,
  earlyLeave: d.earlyLeave,
  work: d.work,
  absence: d.absence,
  missingIn: d.missingIn,
  missingOut: d.missingOut,
  overtimeWorkday: d.overtimeWorkday,
  overtimeRestDay: d.overtimeRestDay,
  overtimeHoliday: d.overtimeHoliday,
});
const zero = { late: 0, earlyLeave: 0, work: 0, absence: 0, missingIn: 0, missingOut: 0, overtimeWorkday: 0, overtimeRestDay: 0, overtimeHoliday: 0 };

describe('the worked examples of ATTENDANCE.md', () => {
  const examples: [string, string, string[], Partial<ReturnType<typeof figures>>][] = [
    ['Mon 08:55, 18:02: normal, work 540', MONDAY, ['08:55', '18:02'], { status: ['normal'], work: 540 }],
    ['Mon 09:04, 18:00: normal within tolerance, work 536', MONDAY, ['09:04', '18:00'], { status: ['normal'], work: 536 }],
    ['Mon 09:12, 18:00: late 12, work 528', MONDAY, ['09:12', '18:00'], { status: ['late'], late: 12, work: 528 }],
    ['Mon 08:50, 17:40: leave early 20, work 520', MONDAY, ['08:50', '17:40'], { status: ['earlyLeave'], earlyLeave: 20, work: 520 }],
    ['Mon 09:00: missing clock-out', MONDAY, ['09:00'], { status: ['missingOut'], missingOut: 1 }],
    ['Mon 17:30: missing clock-in, leave early 30', MONDAY, ['17:30'], { status: ['earlyLeave', 'missingIn'], earlyLeave: 30, missingIn: 1 }],
    ['Mon 06:50, 18:00: missing clock-in (before the earliest check-in)', MONDAY, ['06:50', '18:00'], { status: ['missingIn'], missingIn: 1 }],
    ['Mon, no punch: absence 1', MONDAY, [], { status: ['absence'], absence: 1 }],
    ['Mon 09:00, 20:30: normal, workday overtime 90', MONDAY, ['09:00', '20:30'], { status: ['normal'], work: 540, overtimeWorkday: 90 }],
    ['Sat 10:00, 13:00: no overtime (3 h < 4 h)', SATURDAY, ['10:00', '13:00'], { status: [] }],
    ['Sat 10:00, 15:30: rest-day overtime 330', SATURDAY, ['10:00', '15:30'], { status: [], overtimeRestDay: 330 }],
    ['Mon 09:00, 09:00, 18:00: as 09:00, 18:00, normal', MONDAY, ['09:00', '09:00', '18:00'], { status: ['normal'], work: 540 }],
  ];
  for (const [name, date, times, expected] of examples) {
    it(name, () => {
      expect(figures(day(date, times))).toEqual({ ...zero, ...expected });
    });
  }

  it('Shift N: Mon 21:58 and Tue 06:03 make Monday normal with 480 minutes of work', () => {
    const overrides = { group: { weekdays: { mon: 'N', tue: null, wed: null, thu: null, fri: null, sat: null, sun: null }, workdayOvertimeAfter: '19:00', restDayMinHours: 4 } };
    const days = attendanceDays(input({ from: MONDAY, to: addDays(MONDAY, 1), punches: [...at(MONDAY, '21:58'), ...at(addDays(MONDAY, 1), '06:03')], ...overrides }));
    expect(figures(days[0]!)).toEqual({ ...zero, status: ['normal'], work: 480 });
    expect(days[0]).toMatchObject({ firstIn: '21:58', lastOut: '06:03' });
    // The night's punches are Monday's: Tuesday (a rest day) has no overtime from them.
    expect(figures(days[1]!)).toEqual({ ...zero, status: [] });
  });

  it('prints the example output of the format section, trace included', () => {
    const [monday] = attendanceDays(input({ punches: [{ at: '2026-03-02T00:12:00Z', temperature: 36.5 }] }));
    expect(monday).toMatchObject({ date: MONDAY, kind: 'workday', status: ['late', 'missingOut'], firstIn: '09:12', lastOut: null, late: 12, missingOut: 1, temperature: 36.5 });
    expect(monday!.trace).toContainEqual({ code: 'late', params: { minutes: 12, clockIn: '09:12', onDuty: '09:00', tolerance: 5 } });
    expect(explained(monday!).trace).toContain('late 12 min: clock-in 09:12, on duty 09:00, tolerance 5');
  });

  it('says every step of a day off in English for the command line, as it said them before they had codes', () => {
    const days = attendanceDays(input({ from: SATURDAY, to: addDays(SATURDAY, 1), punches: [...at(SATURDAY, '10:00', '10:27'), ...at(addDays(SATURDAY, 1), '10:00', '15:30')] }));
    expect(days[0]!.trace.map((s) => s.code)).toEqual(['restDay', 'noOvertime']);
    expect(days.flatMap((d) => explained(d).trace)).toEqual([
      'rest day: no absence',
      'no overtime: 27 min from first to last punch, less than 4 h',
      'rest day: no absence',
      'rest-day overtime 330 min: first punch 10:00, last punch 15:30, at least 4 h',
    ]);
  });
});

describe('the calendar', () => {
  it('makes a day-off holiday a holiday with overtime only, and a make-up workday a workday under its shift', () => {
    const holidays = [
      { name: 'Spring', start: '2026-03-04', end: '2026-03-04', workday: false },
      { name: 'Make-up', start: SATURDAY, end: SATURDAY, workday: true, shift: 'A' },
    ];
    const days = attendanceDays(input({ from: MONDAY, to: '2026-03-08', holidays, punches: at('2026-03-04', '10:00', '16:00') }));
    expect(days.map((d) => d.kind)).toEqual(['workday', 'workday', 'holiday', 'workday', 'workday', 'workday', 'restDay']);
    expect(days[2]).toMatchObject({ overtimeHoliday: 360, absence: 0 });
    expect(days[5]).toMatchObject({ status: ['absence'], absence: 1 });
    expect(explained(days[5]!).trace).toContain('make-up workday: holiday Make-up');
  });

  it('produces nothing before the employee’s first day and after resignation', () => {
    const days = attendanceDays(input({ from: MONDAY, to: '2026-03-08', employee: { since: '2026-03-03', resignedOn: '2026-03-05' } }));
    expect(days.map((d) => d.date)).toEqual(['2026-03-03', '2026-03-04', '2026-03-05']);
  });

  it('counts a partly absent day as absent periods over periods', () => {
    const split = { A: [{ ...A, offDuty: '12:00', latestCheckOut: '12:30' }, { ...A, onDuty: '13:00', earliestCheckIn: '12:30', offDuty: '18:00' }] };
    const result = day(MONDAY, ['08:58', '12:01'], { shifts: split });
    expect(figures(result)).toEqual({ ...zero, status: ['absence'], absence: 0.5, work: 180 });
  });

  it('keeps the wall clock across a change to daylight saving time', () => {
    // Europe/Berlin moves from 02:00 to 03:00 on Sunday 2026-03-29; Monday 09:00 is then UTC+2.
    const zone = 'Europe/Berlin';
    const days = attendanceDays(
      input({ timezone: zone, from: '2026-03-27', to: '2026-03-30', punches: [{ at: '2026-03-27T08:00:00Z' }, { at: '2026-03-27T17:00:00Z' }, { at: '2026-03-30T07:00:00Z' }, { at: '2026-03-30T16:00:00Z' }] }),
    );
    expect(days.map((d) => [d.date, d.firstIn, d.lastOut, d.work, d.status.join()])).toEqual([
      ['2026-03-27', '09:00', '18:00', 540, 'normal'],
      ['2026-03-28', null, null, 0, ''],
      ['2026-03-29', null, null, 0, ''],
      ['2026-03-30', '09:00', '18:00', 540, 'normal'],
    ]);
  });
});

describe('a shift', () => {
  it('names the period and field that makes it unusable', () => {
    expect(shiftProblems([A])).toEqual([]);
    expect(shiftProblems([N])).toEqual([]);
    expect(shiftProblems([A, { ...A, onDuty: '17:00', offDuty: '20:00' }])).toEqual([{ period: 1, field: 'onDuty', code: 'periodsOverlap', other: 1, message: 'overlaps period 1' }]);
    expect(shiftProblems([{ ...A, offDuty: '12:00', latestCheckOut: '14:00' }, { ...A, onDuty: '13:00', earliestCheckIn: '12:30' }])).toEqual([
      { period: 1, field: 'earliestCheckIn', code: 'windowIntoPeriod', other: 1, message: 'before the latest check-out of period 1' },
    ]);
    expect(shiftProblems([{ ...A, lateTolerance: 600 }])).toEqual([{ period: 0, field: 'lateTolerance', code: 'toleranceTooLong', message: 'longer than the period' }]);
    const refused = engineInputShape.safeParse({ ...input(), shifts: { A: [A, A, A, A] } });
    expect(refused.success).toBe(false);
  });
});

describe('properties over random punches', () => {
  const punchTimes = fc.array(fc.integer({ min: 0, max: 3 * 1440 - 1 }), { maxLength: 12 });
  const asPunches = (minutes: number[]) => minutes.map((m) => ({ at: atLocalTime(MONDAY, m, 'Asia/Tokyo').toISOString() }));
  const run = (minutes: number[], shifts: EngineInput['shifts'] = { A: [A], N: [N] }) =>
    attendanceDays(input({ from: MONDAY, to: addDays(MONDAY, 2), shifts, punches: asPunches(minutes) }));
  const twoPeriods = { A: [{ ...A, offDuty: '12:00', latestCheckOut: '12:30' }, { ...A, onDuty: '13:00', earliestCheckIn: '12:30', offDuty: '18:00' }], N: [N] };

  it('never gives a negative figure, nor more work than the shift holds', () => {
    fc.assert(
      fc.property(punchTimes, (minutes) => {
        for (const d of [...run(minutes), ...run(minutes, twoPeriods)]) {
          for (const value of Object.values(figures(d)).filter((v): v is number => typeof v === 'number')) expect(value).toBeGreaterThanOrEqual(0);
          expect(d.work).toBeLessThanOrEqual(540);
          expect(d.absence).toBeLessThanOrEqual(1);
        }
      }),
    );
  });

  it('does not depend on the order of the punches or on punches sent twice', () => {
    fc.assert(
      fc.property(punchTimes, fc.integer(), (minutes, seed) => {
        const shuffled = [...minutes, ...minutes.slice(0, 3)].sort((a, b) => ((a * 7919 + seed) % 97) - ((b * 7919 + seed) % 97));
        expect(run(shuffled)).toEqual(run(minutes));
        expect(run(shuffled, twoPeriods)).toEqual(run(minutes, twoPeriods));
      }),
    );
  });

  it('counts a punch in at most one period', () => {
    fc.assert(
      fc.property(punchTimes, (minutes) => {
        // A clock-in or clock-out found is a punch of its own: over all days, no more are found than there are punches.
        let found = 0;
        for (const d of run(minutes, twoPeriods)) found += 2 * (2 - Math.round(d.absence * 2)) - d.missingIn - d.missingOut;
        expect(found).toBeLessThanOrEqual(new Set(minutes).size);
      }),
    );
  });
});

describe('npm run attendance -- explain', () => {
  const dir = mkdtempSync(join(tmpdir(), 'attendance-'));
  const explain = (body: unknown) => {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
    return spawnSync(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, '../../infra/tools/attendance.ts'), 'explain', file], { encoding: 'utf8' });
  };

  it('prints the days of a file as JSON', () => {
    const out = explain({ ...input(), to: '2026-03-03', punches: at(MONDAY, '08:55', '18:02') });
    expect(out.status, out.stderr).toBe(0);
    const { days } = JSON.parse(out.stdout) as { days: DayResult[] };
    expect(days.map((d) => [d.date, d.status])).toEqual([
      [MONDAY, ['normal']],
      ['2026-03-03', ['absence']],
    ]);
  });

  it('exits 2 naming the field and why', () => {
    const out = explain({ ...input(), shifts: { A: [{ ...A, onDuty: '9am' }] } });
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('shifts.A.0.onDuty: a time of day as HH:mm');
    expect(explain('{').status).toBe(2);
  });
});
