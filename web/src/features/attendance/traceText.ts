import { plural } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import type { TraceStepJson } from '@passcloud/functions/contract/attendance';
import { formatNumber, formatTemperature } from '../../app/format.ts';

/**
 * A step of a day's trace as a sentence in the reader's language: the server answers each step as
 * a code with its figures (functions/domain/attendance/trace.ts), never as English.
 */
export function useTraceText(): (step: TraceStepJson) => string {
  const { t } = useLingui();
  return ({ code, params: p }) => {
    const text = (name: string): string => String(p[name] ?? '');
    const number = (name: string): string => formatNumber(Number(p[name] ?? 0));
    const onDuty = text('onDuty');
    const offDuty = text('offDuty');
    const periodNumber = number('period');
    // A shift of several periods names the period by its number too.
    const period = p.period ? t`period ${periodNumber} (${onDuty}–${offDuty})` : `${onDuty}–${offDuty}`;
    const from = text('from');
    const to = text('to');
    const minutes = number('minutes');
    const tolerance = number('tolerance');
    switch (code) {
      case 'workday': {
        const shift = text('shift');
        return t`Workday, shift ${shift}`;
      }
      case 'makeUpWorkday': {
        const holiday = text('holiday');
        return t`Make-up workday for the holiday ${holiday}`;
      }
      case 'absentPeriod':
        return t`Absent for ${period}: no punch between ${from} and ${to}`;
      case 'late': {
        const clockIn = text('clockIn');
        return t`Late ${minutes} min: clock-in ${clockIn}, on duty ${onDuty}, tolerance ${tolerance} min`;
      }
      case 'onTimeIn': {
        const clockIn = text('clockIn');
        return t`On time: clock-in ${clockIn}, on duty ${onDuty}, tolerance ${tolerance} min`;
      }
      case 'missingIn':
        return t`Missing clock-in for ${period}: no punch between ${from} and ${to}`;
      case 'earlyLeave': {
        const clockOut = text('clockOut');
        return t`Left ${minutes} min early: clock-out ${clockOut}, off duty ${offDuty}, tolerance ${tolerance} min`;
      }
      case 'onTimeOut': {
        const clockOut = text('clockOut');
        return t`On time: clock-out ${clockOut}, off duty ${offDuty}, tolerance ${tolerance} min`;
      }
      case 'missingOut':
        return t`Missing clock-out for ${period}: no punch between ${from} and ${to}`;
      case 'work':
        return t`Worked ${minutes} min in ${period}: from ${from} to ${to}`;
      case 'absence': {
        const days = formatNumber(Number(p.days ?? 0), { maximumFractionDigits: 3 });
        const absent = number('absent');
        const periods = Number(p.periods ?? 0);
        return plural(periods, {
          one: `Absence ${days} day: ${absent} of # period without a punch`,
          other: `Absence ${days} day: ${absent} of # periods without a punch`,
        });
      }
      case 'workdayOvertime': {
        const lastPunch = text('lastPunch');
        const after = text('after');
        return t`Workday overtime ${minutes} min: last punch ${lastPunch}, overtime counted after ${after}`;
      }
      case 'temperature': {
        const temperature = formatTemperature(Number(p.temperature ?? 0));
        return t`Temperature ${temperature}: the highest of the day's punches`;
      }
      case 'restDay':
        return t`Rest day: no absence`;
      case 'holiday': {
        const holiday = text('holiday');
        return t`Holiday ${holiday}: no absence`;
      }
      case 'restDayOvertime':
      case 'holidayOvertime': {
        const firstPunch = text('firstPunch');
        const lastPunch = text('lastPunch');
        const hours = formatNumber(Number(p.hours ?? 0));
        return code === 'holidayOvertime'
          ? t`Holiday overtime ${minutes} min: first punch ${firstPunch}, last punch ${lastPunch}, at least ${hours} h`
          : t`Rest-day overtime ${minutes} min: first punch ${firstPunch}, last punch ${lastPunch}, at least ${hours} h`;
      }
      case 'noOvertime': {
        const hours = formatNumber(Number(p.hours ?? 0));
        return t`No overtime: ${minutes} min from the first to the last punch, less than ${hours} h`;
      }
      case 'text': {
        // A day computed before its steps had codes: the engine's English, as it was stored.
        const line = text('text');
        return t`${line} (as computed then, in English)`;
      }
    }
  };
}
