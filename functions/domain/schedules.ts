import type { ScheduleBody, SchedulePeriod } from '#contract/schedules';

/** Why a schedule is open or closed at a moment: its week, an exception date, or a holiday. */
export type ScheduleReason = 'weekly' | 'exception' | 'holiday';
export interface ScheduleDecision {
  open: boolean;
  /** The period the moment falls in, when open. */
  period: SchedulePeriod | null;
  because: ScheduleReason;
}

/** Minutes after midnight of `HH:MM` (`24:00` is 1440). */
export function clockMinutes(clock: string): number {
  return Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));
}

/** Monday 0 … Sunday 6 of a calendar date. */
export function weekdayIndex(localDate: string): number {
  return (new Date(`${localDate}T00:00:00Z`).getUTCDay() + 6) % 7;
}

/**
 * Whether a schedule lets a person through at a local date and minute of the day (0–1439): an
 * exception date replaces its weekday; otherwise a holiday closes a schedule that `holidaysClosed`;
 * otherwise the weekday's periods decide. A period holds from its start to just before its end.
 */
export function isOpenAt(
  schedule: Pick<ScheduleBody, 'weekly' | 'exceptions' | 'holidaysClosed'>,
  localDate: string,
  localMinutes: number,
  holidays: ReadonlySet<string>,
): ScheduleDecision {
  const exception = schedule.exceptions.find((e) => e.date === localDate);
  if (exception) return decide(exception.periods, localMinutes, 'exception');
  if (schedule.holidaysClosed && holidays.has(localDate)) return { open: false, period: null, because: 'holiday' };
  return decide(schedule.weekly[weekdayIndex(localDate)] ?? [], localMinutes, 'weekly');
}

function decide(periods: readonly SchedulePeriod[], minutes: number, because: ScheduleReason): ScheduleDecision {
  const period = periods.find((p) => clockMinutes(p.from) <= minutes && minutes < clockMinutes(p.to)) ?? null;
  return { open: period !== null, period, because };
}
