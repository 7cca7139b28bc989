import * as z from 'zod';
import { passRecordItem } from './passRecords.ts';

export const OFFLINE_ALERT_MINUTES = 60;
export const OFFLINE_LIST_MAX = 10;
export const DASHBOARD_DAYS = 10;
export const FEED_SIZE = 50;

const count = z.number().int();

/**
 * `GET /v1/dashboard`: the first screen's figures, read from counters alone (the per-day pass
 * counters, the people counters and the company's devices), so it costs the same with a thousand
 * records or a million. Days are the company's, in its time zone.
 */
export const dashboardView = z.object({
  timezone: z.string().meta({ description: 'The company’s time zone (IANA), which `today` and every day here are in' }),
  today: z.iso.date(),
  todayCounts: z
    .object({
      total: count,
      passed: count,
      refused: count,
      normal: count,
      fever: count,
      employee: count,
      visitor: count,
      stranger: count,
      blacklist: count,
    })
    .meta({
      description:
        'Today’s passes. `employee` and `visitor` are passes of known employees and visitors, by any means (face, IC card, QR code, remote opening); `stranger` and `blacklist` faces identified as such',
    }),
  month: z.object({ total: count, stranger: count }).meta({ description: 'This month so far' }),
  days: z
    .array(z.object({ day: z.iso.date(), total: count, stranger: count, fever: count }))
    .meta({ description: `The last ${DASHBOARD_DAYS} days, oldest first, today last` }),
  devices: z.object({ total: count, online: count, offline: count }),
  users: z.object({ employees: count, visitors: count, total: count }).meta({ description: 'Active employees and visitors' }),
  sync: z
    .object({
      authority: z.object({ pending: count, failed: count }),
      blacklist: z.object({ pending: count, failed: count }),
    })
    .meta({
      description:
        'Face × terminal pairs not yet on their terminal (`pending`) and refused there (`failed`), per list, from the per-device counters kept with every change of state',
    }),
  offline: z
    .object({
      count,
      devices: z.array(
        z.object({
          deviceKey: z.string(),
          name: z.string(),
          since: z.iso.datetime().nullable().meta({ description: 'When the broker saw it leave; null for a terminal that was bound but never connected' }),
        }),
      ),
    })
    .meta({ description: `Terminals offline for more than ${OFFLINE_ALERT_MINUTES} minutes: how many, and the longest-offline first (at most ${OFFLINE_LIST_MAX})` }),
  gettingStarted: z
    .object({
      terminal: z.boolean().meta({ description: 'A face terminal is bound' }),
      people: z.boolean().meta({ description: 'An active employee or visitor exists' }),
      authorized: z.boolean().meta({ description: 'Someone is authorized on a face terminal' }),
      pass: z.boolean().meta({ description: 'A pass was recorded this month or in the last 10 days' }),
    })
    .meta({
      description:
        'The first steps of a company, each done or not from its data. The console shows them as a checklist while no face terminal is bound or no one has been added, in place of the health sentences that would be vacuously true',
    }),
  attendance: z
    .object({ day: z.iso.date(), total: count, normal: count, late: count, earlyLeave: count, missing: count, absence: count })
    .nullable()
    .meta({ description: 'Yesterday’s attendance (company calendar): how many employee-days were counted, and how many had each status; null when none were' }),
});
export type DashboardView = z.output<typeof dashboardView>;

/** `GET /v1/dashboard/captures`: the newest passes of the last 10 days, newest first. */
export const captureFeed = z.object({
  items: z.array(passRecordItem).meta({ description: `At most ${FEED_SIZE} passes of the last ${DASHBOARD_DAYS} days, newest first` }),
});
export type CaptureFeed = z.output<typeof captureFeed>;
