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
  /**
   * Face × terminal pairs not yet on their terminal (`pending`) and refused there (`failed`), per
   * list, from the per-device counters kept with every change of state.
   */
  sync: { authority: { pending: number; failed: number }; blacklist: { pending: number; failed: number } };
  /**
   * Terminals offline for more than OFFLINE_ALERT_MINUTES: how many, and the longest-offline
   * first (at most OFFLINE_LIST_MAX). `since` is when the broker saw them leave; null for a
   * terminal that was bound but never connected.
   */
  offline: { count: number; devices: { deviceKey: string; name: string; since: string | null }[] };
  /**
   * Yesterday's attendance (company calendar): how many employee-days were counted, and how many
   * had each status; null when none were.
   */
  attendance: { day: string; total: number; normal: number; late: number; earlyLeave: number; missing: number; absence: number } | null;
}

export const OFFLINE_ALERT_MINUTES = 60;
export const OFFLINE_LIST_MAX = 10;

/** `GET /v1/dashboard/captures`: the newest passes of the last 10 days, newest first. */
export interface CaptureFeed {
  items: PassRecordItem[];
}

export const DASHBOARD_DAYS = 10;
export const FEED_SIZE = 50;
