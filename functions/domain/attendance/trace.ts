/**
 * The engine's trace: one step per figure, as a code with its parameters, so the console can say
 * each in the reader's language. `explainStep` says it in English, as `npm run attendance --
 * explain` prints it (../shared/ATTENDANCE.md).
 *
 * A step about one period of a shift names it by `onDuty` and `offDuty`, and by its number
 * `period` (from 1) when the shift has more than one.
 */

export const TRACE_CODES = [
  'workday',
  'makeUpWorkday',
  'absentPeriod',
  'late',
  'onTimeIn',
  'missingIn',
  'earlyLeave',
  'onTimeOut',
  'missingOut',
  'work',
  'absence',
  'workdayOvertime',
  'temperature',
  'restDay',
  'holiday',
  'restDayOvertime',
  'holidayOvertime',
  'noOvertime',
] as const;
export type TraceCode = (typeof TRACE_CODES)[number];

/** Parameters by code (times `HH:mm`, minutes and hours as numbers):
 * - workday: `shift`; makeUpWorkday, holiday: `holiday` (its name)
 * - absentPeriod, missingIn, missingOut: the period, `from` and `to` (the window without a punch)
 * - late, onTimeIn: `minutes` (late only), `clockIn`, `onDuty`, `tolerance`
 * - earlyLeave, onTimeOut: `minutes` (earlyLeave only), `clockOut`, `offDuty`, `tolerance`
 * - work: `minutes`, the period, `from`, `to`
 * - absence: `days`, `absent` and `periods` (how many of how many periods)
 * - workdayOvertime: `minutes`, `lastPunch`, `after`
 * - temperature: `temperature`
 * - restDayOvertime, holidayOvertime: `minutes`, `firstPunch`, `lastPunch`, `hours`
 * - noOvertime: `minutes`, `hours`
 */
export type TraceParams = Record<string, string | number>;

export interface TraceStep {
  code: TraceCode;
  params: TraceParams;
}

/** The period a step is about, as its parameters. */
export const periodParams = (index: number, count: number, period: { onDuty: string; offDuty: string }): TraceParams => ({
  ...(count > 1 ? { period: index + 1 } : {}),
  onDuty: period.onDuty,
  offDuty: period.offDuty,
});

const periodLabel = (p: TraceParams): string => (p.period ? `period ${p.period} (${p.onDuty}-${p.offDuty})` : `${p.onDuty}-${p.offDuty}`);

/** A step in English, as the command line prints it. */
export function explainStep({ code, params: p }: TraceStep): string {
  switch (code) {
    case 'workday':
      return `workday, shift ${p.shift}`;
    case 'makeUpWorkday':
      return `make-up workday: holiday ${p.holiday}`;
    case 'absentPeriod':
      return `absent ${periodLabel(p)}: no punch between ${p.from} and ${p.to}`;
    case 'late':
      return `late ${p.minutes} min: clock-in ${p.clockIn}, on duty ${p.onDuty}, tolerance ${p.tolerance}`;
    case 'onTimeIn':
      return `on time: clock-in ${p.clockIn}, on duty ${p.onDuty}, tolerance ${p.tolerance}`;
    case 'missingIn':
      return `missing clock-in for ${periodLabel(p)}: no punch between ${p.from} and ${p.to}`;
    case 'earlyLeave':
      return `leave early ${p.minutes} min: clock-out ${p.clockOut}, off duty ${p.offDuty}, tolerance ${p.tolerance}`;
    case 'onTimeOut':
      return `on time: clock-out ${p.clockOut}, off duty ${p.offDuty}, tolerance ${p.tolerance}`;
    case 'missingOut':
      return `missing clock-out for ${periodLabel(p)}: no punch between ${p.from} and ${p.to}`;
    case 'work':
      return `work ${p.minutes} min in ${periodLabel(p)}: from ${p.from} to ${p.to}`;
    case 'absence':
      return `absence ${p.days} day: ${p.absent} of ${p.periods} period${Number(p.periods) > 1 ? 's' : ''} without a punch`;
    case 'workdayOvertime':
      return `workday overtime ${p.minutes} min: last punch ${p.lastPunch}, overtime after ${p.after}`;
    case 'temperature':
      return `temperature ${p.temperature}: the highest of the day's punches`;
    case 'restDay':
      return 'rest day: no absence';
    case 'holiday':
      return `holiday ${p.holiday}: no absence`;
    case 'restDayOvertime':
    case 'holidayOvertime':
      return `${code === 'holidayOvertime' ? 'holiday' : 'rest-day'} overtime ${p.minutes} min: first punch ${p.firstPunch}, last punch ${p.lastPunch}, at least ${p.hours} h`;
    case 'noOvertime':
      return `no overtime: ${p.minutes} min from first to last punch, less than ${p.hours} h`;
  }
}

/** A day with its trace in English, as the command line prints it. */
export const explained = <T extends { trace: TraceStep[] }>(day: T): Omit<T, 'trace'> & { trace: string[] } => ({ ...day, trace: day.trace.map(explainStep) });
