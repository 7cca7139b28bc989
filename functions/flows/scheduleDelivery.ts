import { currentSeq, notifyDevices } from '#data/authorities';
import { allSchedules } from '#data/schedules';
import { devicesUsingSchedules } from '#data/syncCounts';
import { pool } from '#lib/pool';

/**
 * A schedule was edited, or the holidays that close schedules: every terminal holding a face that
 * uses one is told to sync, as after a face change (`pc/<thing>/faces/notify` with its current
 * sequence number). A terminal reads the schedules its faces name, with the holidays that close
 * them, at every sync (`GET /v1/deviceSync/schedules`) and takes the new version; one that misses
 * the notification reads it at its next connection or 5-minute poll.
 */
export async function scheduleChanged(tenantId: string, scheduleKey: string): Promise<void> {
  await notifyUsers(tenantId, [scheduleKey]);
}

/** The holiday list changed: the terminals using a schedule that holidays close read it again. */
export async function holidaysChanged(tenantId: string): Promise<void> {
  const closing = (await allSchedules(tenantId)).filter((schedule) => schedule.holidaysClosed).map((schedule) => schedule.scheduleKey);
  if (closing.length > 0) await notifyUsers(tenantId, closing);
}

async function notifyUsers(tenantId: string, scheduleKeys: readonly string[]): Promise<void> {
  const devices = [...(await devicesUsingSchedules(tenantId, scheduleKeys))];
  const seqs = new Map<string, number>();
  await pool(devices, 8, async (deviceKey) => {
    seqs.set(deviceKey, Math.max(1, await currentSeq(tenantId, deviceKey)));
  });
  await notifyDevices(tenantId, seqs);
}
