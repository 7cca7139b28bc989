/**
 * Calendar days in a company's time zone (an IANA name), computed with Intl alone: the day a
 * moment falls on, and the moment a day starts.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True for a time zone this runtime knows. */
export function isTimeZone(name: string): boolean {
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

function parts(at: Date, timeZone: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(at)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** Minutes the zone is ahead of UTC at that moment. */
function offsetMinutes(at: Date, timeZone: string): number {
  const p = parts(at, timeZone);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** The day (`YYYY-MM-DD`) a moment falls on in the zone. */
export function dayOf(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** The moment a day (`YYYY-MM-DD`) begins in the zone. */
export function startOfDay(day: string, timeZone: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  // Two rounds settle the offset across a change of daylight saving time.
  let at = new Date(guess - offsetMinutes(new Date(guess), timeZone) * 60_000);
  at = new Date(guess - offsetMinutes(at, timeZone) * 60_000);
  return at;
}

/**
 * The moment a wall-clock time has in the zone: `minutes` from the start of `day` (negative for
 * the day before, past 1440 for the next). A time a change to daylight saving time skips is taken
 * an hour later, one it repeats at its first occurrence.
 */
export function atLocalTime(day: string, minutes: number, timeZone: string): Date {
  const date = addDays(day, Math.floor(minutes / 1440));
  const tod = ((minutes % 1440) + 1440) % 1440;
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d, Math.floor(tod / 60), tod % 60);
  let at = new Date(wall - offsetMinutes(new Date(wall), timeZone) * 60_000);
  at = new Date(wall - offsetMinutes(at, timeZone) * 60_000);
  return at;
}

/** The wall-clock time (`HH:mm`) of a moment in the zone. */
export function clockOf(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${String(p.hour! % 24).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}`;
}

/** The last millisecond of a day in the zone. */
export function endOfDay(day: string, timeZone: string): Date {
  return new Date(startOfDay(addDays(day, 1), timeZone).getTime() - 1);
}

/** The day `n` days after (or before, for negative `n`) a day. */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}
