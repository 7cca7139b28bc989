import { join } from 'node:path';
import { plannedNumbers, startIntercomFleet, type IntercomFleet } from '@passcloud/device-shadow/intercomFleet';
import { simulateCalls, type CallTraffic } from '@passcloud/device-shadow/callTraffic';
import { allIntercoms, findDevice } from '@passcloud/functions/data/devices';
import { updateIntercom } from '@passcloud/functions/data/intercoms';

/** How often the call simulation reads the numbers again, so numbers changed in the console are dialled. */
const DIRECTORY_REFRESH_MS = 30_000;

export interface DemoIntercomOptions {
  apiUrl: string;
  tenantId: string;
  userCode: string;
  brokerUrl: string;
  doorStations: number;
  monitors: number;
  callsPerMinute: number;
  /** Where the intercoms keep their bindings across restarts; in memory when unset. */
  stateDir?: string;
}

export interface DemoIntercoms {
  fleet: IntercomFleet;
  stop(): Promise<void>;
}

/**
 * The demo company's intercoms: door stations and indoor monitors bound like real ones, each
 * given the number an installer would (door stations 01…, monitors 101…) unless it has one, and
 * calls between them at `callsPerMinute` a minute, with recordings of the answered ones.
 */
export async function startDemoIntercoms(options: DemoIntercomOptions): Promise<DemoIntercoms> {
  const fleet = await startIntercomFleet({
    apiUrl: options.apiUrl,
    userCode: options.userCode,
    doorStations: options.doorStations,
    monitors: options.monitors,
    prefix: 'DEMO',
    brokerUrl: options.brokerUrl,
    ...(options.stateDir ? { stateDir: join(options.stateDir, 'intercoms') } : {}),
  });
  for (const [deviceKey, number] of plannedNumbers(fleet)) {
    const device = await findDevice(options.tenantId, deviceKey);
    if (!device || device.number) continue;
    // A number already taken (given to another intercom in the console) is left to the administrator.
    await updateIntercom(device, device.version, { number }).catch(() => undefined);
  }
  const directory = new Map<string, string>();
  const readDirectory = async () => {
    const intercoms = await allIntercoms(options.tenantId);
    directory.clear();
    for (const device of intercoms) if (device.number) directory.set(device.deviceKey, device.number);
  };
  await readDirectory();
  const refresh = setInterval(() => void readDirectory().catch(() => undefined), DIRECTORY_REFRESH_MS);
  const calls: CallTraffic | undefined =
    options.callsPerMinute > 0 ? simulateCalls(fleet.doorStations, fleet.monitors, directory, { perMinute: options.callsPerMinute }) : undefined;
  return {
    fleet,
    async stop() {
      clearInterval(refresh);
      calls?.stop();
      await fleet.stop();
    },
  };
}
