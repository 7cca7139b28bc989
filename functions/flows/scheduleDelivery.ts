import { currentSeq, notifyDevices } from '#data/authorities';
import { devicesUsingSchedule } from '#data/syncCounts';
import { pool } from '#lib/pool';

/**
 * A schedule was edited: every terminal holding a face that uses it is told to sync, as after a
 * face change (`pc/<thing>/faces/notify` with its current sequence number). A terminal reads the
 * schedules its faces name at every sync (`GET /v1/deviceSync/schedules`) and takes the new
 * version; one that misses the notification reads it at its next connection or 5-minute poll.
 */
export async function scheduleChanged(tenantId: string, scheduleKey: string): Promise<void> {
  const devices = [...(await devicesUsingSchedule(tenantId, scheduleKey))];
  const seqs = new Map<string, number>();
  await pool(devices, 8, async (deviceKey) => {
    seqs.set(deviceKey, Math.max(1, await currentSeq(tenantId, deviceKey)));
  });
  await notifyDevices(tenantId, seqs);
}
