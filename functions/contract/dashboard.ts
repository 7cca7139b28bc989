import type { PassRecordItem } from './passRecords.ts';

/**
 * `GET /v1/dashboard`: the first screen's figures, read from counters alone (the per-day pass
 * counters, the people counters and the company's devices), so it costs the same with a thousand
 * records or a million. Days are the company's, in its time zone.
 */
export interface DashboardView {
  /** The company's time zone, and today in it (`YYYY-MM-DD`). */
  timezone: string;
  today: string;
  /** Today's passes. `employee` and `visitor` are faces verified as such; `stranger` and `blacklist` faces identified as such. */
  todayCounts: { total: number; passed: number; refused: number; normal: number; fever: number; employee: number; visitor: number; stranger: number; blacklist: number };
  /** This month so far. */
  month: { total: number; stranger: number };
  /** The last 10 days, oldest first, today last. */
  days: { day: string; total: number; stranger: number; fever: number }[];
  devices: { total: number; online: number; offline: number };
  /** Active employees and visitors. */
  users: { employees: number; visitors: number; total: number };
}

/** `GET /v1/dashboard/captures`: the newest passes of the last 10 days, newest first. */
export interface CaptureFeed {
  items: PassRecordItem[];
}

export const DASHBOARD_DAYS = 10;
export const FEED_SIZE = 50;
