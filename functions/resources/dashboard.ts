import {
  DASHBOARD_DAYS,
  FEED_SIZE,
  OFFLINE_ALERT_MINUTES,
  OFFLINE_LIST_MAX,
  captureFeed,
  dashboardView,
  type CaptureFeed,
  type DashboardView,
} from '#contract/dashboard';
import { dayCounts } from '#data/attendanceDays';
import { allFaceTerminals } from '#data/devices';
import { companySyncCountsByList } from '#data/syncCounts';
import { dayCounters } from '#data/passCounters';
import { listRecords, recordFilterOf } from '#data/passRecordLists';
import { activeCount } from '#data/peopleLists';
import { companyTimezone } from '#data/tenants';
import { addDays, dayOf } from '#domain/time';
import { defineResource, ok, sessionRoute } from '#lib/http';
import { declareEnvironment } from '#lib/env';
import { recordItems } from '#views/passRecordItems';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'AUDIT_QUEUE_URL',
  'CAPTURES_BUCKET',
  'EVENTS_TABLE',
  'IMPORTS_BUCKET',
  'MAIN_TABLE',
  'ORIGIN_VERIFY_SECRET',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
]);

/**
 * The figures of the dashboard: one query of the day counters (this month and the last 10 days),
 * the people counters, the devices (their presence as the broker last told it) and the devices'
 * sync counters, and yesterday's attendance counts (one item, counted again from yesterday's days
 * only after they changed). None of it grows with the records.
 */
export async function dashboardOf(tenantId: string, now = new Date()): Promise<DashboardView> {
  const timezone = await companyTimezone(tenantId);
  const today = dayOf(now, timezone);
  const firstOfMonth = `${today.slice(0, 8)}01`;
  const tenDaysAgo = addDays(today, 1 - DASHBOARD_DAYS);
  const from = firstOfMonth < tenDaysAgo ? firstOfMonth : tenDaysAgo;
  const yesterday = addDays(today, -1);
  const [counted, devices, employees, visitors, attended] = await Promise.all([
    dayCounters(tenantId, from, today),
    allFaceTerminals(tenantId),
    activeCount(tenantId, 'employee'),
    activeCount(tenantId, 'visitor'),
    dayCounts(tenantId, yesterday),
  ]);
  const deviceKeys = devices.map((d) => d.deviceKey);
  const { 0: authority, 1: blacklist } = await companySyncCountsByList(tenantId, deviceKeys, [0, 1] as const);
  const month = counted.filter((d) => d.day >= firstOfMonth);
  const online = devices.filter((d) => d.online).length;
  const longAgo = now.getTime() - OFFLINE_ALERT_MINUTES * 60_000;
  const gone = devices
    .filter((d) => !d.online && d.presenceAt < longAgo && (d.presenceAt > 0 || Date.parse(d.createdAt) < longAgo))
    .sort((x, y) => x.presenceAt - y.presenceAt);
  const counts = counted.at(-1)!.counts;
  return {
    timezone,
    today,
    todayCounts: {
      total: counts.total,
      passed: counts.passed,
      refused: counts.refused,
      normal: counts.normal,
      fever: counts.fever,
      employee: counts.employee,
      visitor: counts.visitor,
      stranger: counts.stranger,
      blacklist: counts.blacklist,
    },
    month: { total: month.reduce((sum, d) => sum + d.counts.total, 0), stranger: month.reduce((sum, d) => sum + d.counts.stranger, 0) },
    days: counted.filter((d) => d.day >= tenDaysAgo).map((d) => ({ day: d.day, total: d.counts.total, stranger: d.counts.stranger, fever: d.counts.fever })),
    devices: { total: devices.length, online, offline: devices.length - online },
    users: { employees, visitors, total: employees + visitors },
    sync: { authority: { pending: authority.pending, failed: authority.failed }, blacklist: { pending: blacklist.pending, failed: blacklist.failed } },
    offline: {
      count: gone.length,
      devices: gone
        .slice(0, OFFLINE_LIST_MAX)
        .map((d) => ({ deviceKey: d.deviceKey, name: d.name, since: d.presenceAt > 0 ? new Date(d.presenceAt).toISOString() : null })),
    },
    gettingStarted: {
      terminal: devices.length > 0,
      people: employees + visitors > 0,
      authorized: authority.pending + authority.synced + authority.failed > 0,
      // The counters read cover this month and the last ten days.
      pass: counted.some((d) => d.counts.total > 0),
    },
    attendance: attended.total
      ? {
          day: yesterday,
          total: attended.total,
          normal: attended.normal ?? 0,
          late: attended.late ?? 0,
          earlyLeave: attended.earlyLeave ?? 0,
          missing: attended.missingDays ?? 0,
          absence: attended.absence ?? 0,
        }
      : null,
  };
}

export const dashboard = defineResource('dashboard', {
  'GET /v1/dashboard': sessionRoute({
    answer: dashboardView,
    async handle({ auth }) {
      return ok(await dashboardOf(auth.tenantId));
    },
  }),
  'GET /v1/dashboard/captures': sessionRoute({
    answer: captureFeed,
    async handle({ auth }) {
      const timezone = await companyTimezone(auth.tenantId);
      const today = dayOf(new Date(), timezone);
      const filter = recordFilterOf({ from: addDays(today, 1 - DASHBOARD_DAYS), to: today }, timezone);
      const found = await listRecords(auth.tenantId, filter, FEED_SIZE);
      const feed: CaptureFeed = { items: await recordItems(auth.tenantId, found.items) };
      return ok(feed);
    },
  }),
});

export const handler = dashboard.handler;
