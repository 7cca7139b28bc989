import { describe, expect, it } from 'vitest';
import { scheduleBody } from '@passcloud/functions/contract/schedules';
import { isOpenAt } from '@passcloud/functions/domain/schedules';

const at = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const weekdays = [{ from: '07:00', to: '19:00' }];
/** Monday to Friday 07:00–19:00, Saturday 08:00–12:00 and 13:00–24:00, Sunday closed. */
const office = {
  weekly: [
    weekdays,
    weekdays,
    weekdays,
    weekdays,
    weekdays,
    [
      { from: '08:00', to: '12:00' },
      { from: '13:00', to: '24:00' },
    ],
    [],
  ],
  exceptions: [
    { date: '2026-12-24', periods: [{ from: '09:00', to: '12:00' }] },
    { date: '2026-12-31', periods: [] },
    { date: '2026-01-01', periods: [{ from: '10:00', to: '11:00' }] },
  ],
  holidaysClosed: true,
};
const none = new Set<string>();
// 2026-11-30 is a Monday.
const MONDAY = '2026-11-30';
const SATURDAY = '2026-12-05';
const SUNDAY = '2026-12-06';

describe('isOpenAt', () => {
  it('opens within a weekday’s period, from its start to just before its end', () => {
    expect(isOpenAt(office, MONDAY, at('06:59'), none)).toEqual({ open: false, period: null, because: 'weekly' });
    expect(isOpenAt(office, MONDAY, at('07:00'), none)).toEqual({ open: true, period: { from: '07:00', to: '19:00' }, because: 'weekly' });
    expect(isOpenAt(office, MONDAY, at('18:59'), none).open).toBe(true);
    expect(isOpenAt(office, MONDAY, at('19:00'), none)).toEqual({ open: false, period: null, because: 'weekly' });
  });

  it('takes the weekday of the date, Monday first, and a day without periods is closed', () => {
    expect(isOpenAt(office, SATURDAY, at('12:30'), none).open).toBe(false);
    expect(isOpenAt(office, SATURDAY, at('13:00'), none)).toEqual({ open: true, period: { from: '13:00', to: '24:00' }, because: 'weekly' });
    expect(isOpenAt(office, SUNDAY, at('10:00'), none)).toEqual({ open: false, period: null, because: 'weekly' });
  });

  it('keeps a period that ends at 24:00 open to the last minute of the day', () => {
    expect(isOpenAt(office, SATURDAY, at('23:59'), none).open).toBe(true);
    expect(isOpenAt(office, SUNDAY, 0, none).open).toBe(false);
    const always = { weekly: Array.from({ length: 7 }, () => [{ from: '00:00', to: '24:00' }]), exceptions: [], holidaysClosed: false };
    expect(isOpenAt(always, SUNDAY, 0, none).open).toBe(true);
    expect(isOpenAt(always, SUNDAY, 1439, none).open).toBe(true);
  });

  it('lets an exception date replace its weekday: its own periods, or closed', () => {
    // 2026-12-24 is a Thursday: 09:00–12:00 instead of 07:00–19:00.
    expect(isOpenAt(office, '2026-12-24', at('08:00'), none)).toEqual({ open: false, period: null, because: 'exception' });
    expect(isOpenAt(office, '2026-12-24', at('11:59'), none)).toEqual({ open: true, period: { from: '09:00', to: '12:00' }, because: 'exception' });
    expect(isOpenAt(office, '2026-12-24', at('12:00'), none).open).toBe(false);
    expect(isOpenAt(office, '2026-12-31', at('10:00'), none)).toEqual({ open: false, period: null, because: 'exception' });
  });

  it('closes on a holiday when the schedule says so, and an exception date wins over the holiday', () => {
    const holidays = new Set([MONDAY, '2026-01-01']);
    expect(isOpenAt(office, MONDAY, at('10:00'), holidays)).toEqual({ open: false, period: null, because: 'holiday' });
    expect(isOpenAt({ ...office, holidaysClosed: false }, MONDAY, at('10:00'), holidays)).toEqual({
      open: true,
      period: { from: '07:00', to: '19:00' },
      because: 'weekly',
    });
    expect(isOpenAt(office, '2026-01-01', at('10:30'), holidays)).toEqual({ open: true, period: { from: '10:00', to: '11:00' }, because: 'exception' });
  });
});

describe('the schedule body', () => {
  const valid = { name: 'Office hours', weekly: office.weekly, exceptions: office.exceptions, holidaysClosed: true };
  const paths = (body: unknown) => {
    const result = scheduleBody.safeParse(body);
    return result.success ? [] : result.error.issues.map((i) => [i.path.join('.'), i.message]);
  };

  it('accepts a week of up to four periods a day, sorted by their start, and dates in order', () => {
    const parsed = scheduleBody.parse({
      ...valid,
      weekly: [
        [
          { from: '13:00', to: '24:00' },
          { from: '08:00', to: '12:00' },
        ],
        [],
        [],
        [],
        [],
        [],
        [],
      ],
    });
    expect(parsed.weekly[0]).toEqual([
      { from: '08:00', to: '12:00' },
      { from: '13:00', to: '24:00' },
    ]);
    expect(parsed.exceptions.map((e) => e.date)).toEqual(['2026-01-01', '2026-12-24', '2026-12-31']);
  });

  it('names the field of each broken rule', () => {
    const week = (monday: unknown) => ({ ...valid, weekly: [monday, [], [], [], [], [], []] });
    expect(paths(week([{ from: '7:00', to: '19:00' }]))).toEqual([['weekly.0.0.from', 'schedules.timeFormat']]);
    expect(paths(week([{ from: '24:00', to: '24:00' }]))).toEqual([['weekly.0.0.to', 'schedules.periodReversed']]);
    expect(paths(week([{ from: '19:00', to: '07:00' }]))).toEqual([['weekly.0.0.to', 'schedules.periodReversed']]);
    expect(
      paths(
        week([
          { from: '08:00', to: '12:00' },
          { from: '11:00', to: '13:00' },
        ]),
      ),
    ).toEqual([['weekly.0.1.from', 'schedules.periodsOverlap']]);
    expect(
      paths(
        week([
          { from: '08:00', to: '12:00' },
          { from: '12:00', to: '13:00' },
        ]),
      ),
    ).toEqual([]);
    const five = ['01', '03', '05', '07', '09'].map((h) => ({ from: `${h}:00`, to: `${h}:30` }));
    expect(paths(week(five))).toEqual([['weekly.0', 'schedules.tooManyPeriods']]);
    expect(paths({ ...valid, weekly: valid.weekly.slice(0, 6) })).toEqual([['weekly', 'schedules.sevenDays']]);
    expect(paths({ ...valid, exceptions: [{ date: '2026-02-30', periods: [] }] })).toEqual([['exceptions.0.date', 'schedules.dateFormat']]);
    expect(
      paths({
        ...valid,
        exceptions: [
          { date: '2026-03-01', periods: [] },
          { date: '2026-03-01', periods: [] },
        ],
      }),
    ).toEqual([['exceptions.1.date', 'schedules.dateTwice']]);
  });
});
