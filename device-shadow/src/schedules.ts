import { SCHEDULES_PER_PULL, deviceSchedules, type DeviceSchedule, type PassDecision } from '@passcloud/functions/contract/protocol';
import { clockMinutes, isOpenAt } from '@passcloud/functions/domain/schedules';
import { clockOf, dayOf, isTimeZone } from '@passcloud/functions/domain/time';
import type { DeviceAgent } from './agent.ts';
import { flashFile, readFlash, saveFlash } from './flash.ts';

/**
 * The access schedules the terminal's faces name, and the company's holiday dates that close
 * them, kept in flash beside the face library so that a terminal offline (or restarted offline)
 * keeps deciding by them. Read again at every face sync (`GET /v1/deviceSync/schedules`), so an
 * edited schedule reaches the terminal with the notification the cloud sends after the edit.
 * The terminal decides in its own time zone, the one it reports in `info.timezone`.
 */
interface Flash {
  schedules: DeviceSchedule[];
  holidays: string[];
}

export type ScheduleTrace = NonNullable<PassDecision['schedule']>;

export class ScheduleBook {
  private schedules = new Map<string, DeviceSchedule>();
  private holidays = new Set<string>();

  constructor(private readonly agent: DeviceAgent) {
    const flash = this.read();
    if (flash) this.keep(flash);
  }

  /** The schedule held under this id, if any. */
  find(scheduleId: string): DeviceSchedule | undefined {
    return this.schedules.get(scheduleId);
  }

  /**
   * Reads the schedules named (the faces' schedules) and the holidays that close them, and keeps
   * them in place of what was held. Nothing named: nothing held, and nothing asked.
   */
  async refresh(named: Iterable<string>): Promise<void> {
    const ids = [...new Set(named)].sort();
    if (ids.length === 0) return this.keep({ schedules: [], holidays: [] });
    const schedules: DeviceSchedule[] = [];
    let holidays: string[] = [];
    for (let i = 0; i < ids.length; i += SCHEDULES_PER_PULL) {
      const part = ids.slice(i, i + SCHEDULES_PER_PULL);
      const answer = deviceSchedules.parse(await this.agent.call<unknown>('GET', `/v1/deviceSync/schedules?ids=${part.join(',')}`));
      schedules.push(...answer.schedules);
      holidays = answer.holidays;
    }
    this.keep({ schedules, holidays });
  }

  /**
   * Whether the schedule lets a person through at `at`, in the terminal's time zone. A schedule
   * the terminal does not hold (not read yet) keeps the door closed.
   */
  check(scheduleId: string, at: Date): ScheduleTrace {
    const timezone = this.timezone;
    const { date, minutes, localTime } = localClock(at, timezone);
    const schedule = this.schedules.get(scheduleId);
    if (!schedule) return { scheduleId, localTime, timezone, open: false, because: 'weekly', period: null };
    const decided = isOpenAt(schedule, date, minutes, this.holidays);
    return { scheduleId, localTime, timezone, open: decided.open, because: decided.because, period: decided.period };
  }

  /** The zone the terminal keeps its clock in (its `info.timezone`), UTC when it names none it knows. */
  get timezone(): string {
    const zone = this.agent.options.info.timezone;
    return isTimeZone(zone) ? zone : 'UTC';
  }

  private keep(flash: Flash): void {
    this.schedules = new Map(flash.schedules.map((s) => [s.scheduleId, s]));
    this.holidays = new Set(flash.holidays);
    this.save(flash);
  }

  private file(): string | undefined {
    return flashFile(this.agent.options.credentialsFile, 'schedules');
  }

  private read(): Flash | undefined {
    return readFlash<Flash>(this.file());
  }

  private save(flash: Flash): void {
    saveFlash(this.file(), flash);
  }
}

/** The local date, minute of the day and `YYYY-MM-DDTHH:MM` of a moment in a time zone. */
export function localClock(at: Date, timeZone: string): { date: string; minutes: number; localTime: string } {
  const date = dayOf(at, timeZone);
  const clock = clockOf(at, timeZone);
  return { date, minutes: clockMinutes(clock), localTime: `${date}T${clock}` };
}
