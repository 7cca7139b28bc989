import { deviceTopics, thingName, type CommandMessage } from '#contract/protocol';
import { allFaceTerminals } from '#data/devices';
import { createCommand } from '#data/deviceEvents';
import { findPackage, latestRelease } from '#data/settings';
import { publish } from '#lib/iot';
import { log, logged } from '#lib/log';
import { pool } from '#lib/pool';
import { presignedGet } from '#lib/storage';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'CAPTURES_BUCKET',
  'EVENTS_TABLE',
  'IMPORTS_BUCKET',
  'IOT_DATA_ENDPOINT',
  'MAIN_TABLE',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
]);

/**
 * Tells every online terminal of a company of a newly released client package with an
 * `updateApp` command (docs/device-protocol.md), outside the request that released it: on AWS the
 * function `PACKAGE_NOTICE_FUNCTION` names, invoked asynchronously; locally in the host's process.
 * A package that is no longer the company's newest by the time this runs is not announced (the
 * newer one is). A terminal that cannot be told is told at the next release, or updates when it
 * asks for the system information at its next connection.
 */
export interface PackageNotice {
  tenantId: string;
  packageKey: string;
}

/** A terminal may start its download within this time (a 200 MB package over a slow link). */
export const DOWNLOAD_SECONDS = 3600;
export const packageObject = (packageKey: string): string => `client/${packageKey}.apk`;

/** Answers how many terminals were told. */
export async function sendPackageNotices(notice: PackageNotice): Promise<number> {
  const { tenantId, packageKey } = notice;
  const pkg = await findPackage(tenantId, packageKey);
  const latest = await latestRelease(tenantId);
  if (!pkg || pkg.state !== 'ready' || !latest || latest.version !== pkg.version || latest.sha256 !== pkg.sha256) return 0;
  const online = (await allFaceTerminals(tenantId)).filter((d) => d.online);
  const url = await presignedGet('packages', tenantId, packageObject(packageKey), DOWNLOAD_SECONDS);
  let told = 0;
  await pool(online, 8, async (device) => {
    try {
      const command = await createCommand(tenantId, device.deviceKey, 'updateApp');
      const message: CommandMessage = {
        commandKey: command.commandKey,
        type: 'updateApp',
        issuedAt: Date.parse(command.createdAt),
        app: { version: latest.version, url, sha256: latest.sha256, size: latest.size },
      };
      await publish(deviceTopics(thingName(tenantId, device.deviceKey)).commands, message);
      told++;
    } catch (error) {
      // One terminal that cannot be told does not undo the release.
      log('warn', 'update command not sent', { deviceKey: device.deviceKey, error: String(error) });
    }
  });
  log('info', 'client package announced', { tenantId, packageKey, told, online: online.length });
  return told;
}

export const handler = logged('packageNotices', async (notice: PackageNotice): Promise<void> => void (await sendPackageNotices(notice)));
