import { attendanceDays, engineInputShape, type EngineInput } from '@passcloud/functions/domain/attendance/index';
import { addDays, atLocalTime } from '@passcloud/functions/domain/time';
import { fmt } from './api.ts';

/**
 * The attendance engine alone: a month of 1,000 employees with four punches a day (two periods),
 * then ten times the employees, each computed the way the daily statistics do, one employee at
 * a time.
 */

const FROM = '2026-03-01';
const DAYS = 31;

function employeeInput(seed: number): EngineInput {
  const punches: EngineInput['punches'] = [];
  for (let d = 0; d < DAYS; d++) {
    const date = addDays(FROM, d);
    const jitter = (n: number) => ((seed * 7919 + d * 104_729 + n * 31) % 23) - 8;
    for (const [n, minutes] of [
      [0, 8 * 60 + 55],
      [1, 12 * 60 + 2],
      [2, 12 * 60 + 58],
      [3, 18 * 60 + 5],
    ] as const) {
      punches.push({ at: atLocalTime(date, minutes + jitter(n), 'Asia/Tokyo').toISOString(), temperature: 36.4 });
    }
  }
  return engineInputShape.parse({
    timezone: 'Asia/Tokyo',
    from: FROM,
    to: addDays(FROM, DAYS - 1),
    shifts: {
      A: [
        { onDuty: '09:00', offDuty: '12:00', earliestCheckIn: '07:00', latestCheckOut: '12:30', lateTolerance: 5, earlyLeaveTolerance: 5 },
        { onDuty: '13:00', offDuty: '18:00', earliestCheckIn: '12:30', latestCheckOut: '23:00', lateTolerance: 5, earlyLeaveTolerance: 5 },
      ],
    },
    group: { weekdays: { mon: 'A', tue: 'A', wed: 'A', thu: 'A', fri: 'A', sat: null, sun: null }, workdayOvertimeAfter: '19:00', restDayMinHours: 4 },
    holidays: [{ name: 'Spring', start: '2026-03-20', end: '2026-03-20', workday: false }],
    employee: { since: '2025-01-01', resignedOn: null },
    punches,
  });
}

function timed(employees: number): { ms: number; days: number } {
  const inputs = Array.from({ length: employees }, (_, i) => employeeInput(i));
  const started = performance.now();
  let days = 0;
  for (const input of inputs) days += attendanceDays(input).length;
  return { ms: performance.now() - started, days };
}

export function attendanceBench(): string[] {
  timed(50);
  const small = timed(1000);
  const large = timed(10_000);
  return [
    `attendance engine: 1,000 employees x ${DAYS} days x 4 punches: ${fmt(small.ms)} (budget 2 s), ${small.days} days`,
    `attendance engine: 10,000 employees: ${fmt(large.ms)}, ${(large.ms / small.ms).toFixed(1)} times the time (budget 11)`,
  ];
}
