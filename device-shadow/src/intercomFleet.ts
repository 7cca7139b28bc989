import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { DeviceInfo, IntercomKind } from '@passcloud/functions/contract/devices';
import { DeviceAgent } from './agent.ts';
import { startAgents, stopAgents } from './fleet.ts';
import { Intercom } from './intercom.ts';

/**
 * A simulated intercom installation: door stations at the entrances (`<prefix>-D001`, …) and
 * indoor monitors in the flats or offices (`<prefix>-M001`, …), bound with the tenant's device
 * binding code like face terminals, with stable identities and, with `stateDir`, the bindings
 * they keep across restarts.
 */
export interface IntercomFleetOptions {
  apiUrl: string;
  userCode: string;
  doorStations: number;
  monitors: number;
  /** Serial numbers are `<prefix>-D<nn>` and `<prefix>-M<nn>`; a prefix per tenant keeps fleets apart. */
  prefix?: string;
  heartbeatMs?: number;
  brokerUrl?: string;
  /** How many devices bind and connect at once. */
  concurrency?: number;
  /** Where each intercom keeps its binding (`<serial>.json`) and unacknowledged calls; in memory when unset. */
  stateDir?: string;
}

interface Model {
  /** The serial number's letter. */
  letter: string;
  model: string;
  firmware: string;
  clientName: string;
  camera: string;
  /** The screen. */
  preview: string;
  storageBytes: number;
}

const MODELS: Record<IntercomKind, Model> = {
  doorStation: {
    letter: 'D',
    model: 'PT-D2',
    firmware: 'PTD2-1.8.3',
    clientName: 'PassTalk Door 2',
    camera: '1280x720',
    preview: '640x480',
    storageBytes: 8e9,
  },
  indoorMonitor: {
    letter: 'M',
    model: 'PT-M7',
    firmware: 'PTM7-2.1.0',
    clientName: 'PassTalk Monitor 7',
    camera: '1280x720',
    preview: '1024x600',
    storageBytes: 16e9,
  },
};

/** The facts of the `n`th simulated intercom of a kind: its serial, network and software. */
export function intercomInfo(prefix: string, kind: IntercomKind, n: number): DeviceInfo {
  const spec = MODELS[kind];
  const serial = `${prefix}-${spec.letter}${String(n).padStart(3, '0')}`;
  const hash = createHash('sha256').update(serial).digest();
  const mac = ['02', ...Array.from(hash.subarray(0, 5), (b) => b.toString(16).padStart(2, '0'))].join(':').toUpperCase();
  return {
    serial,
    mac,
    ip: `10.${hash[5]! % 250}.${kind === 'doorStation' ? 1 : 2}.${(n % 250) + 2}`,
    model: spec.model,
    firmware: spec.firmware,
    appVersion: '3.2.0',
    storage: { freeBytes: Math.round(spec.storageBytes * (0.55 + (hash[6]! % 30) / 100)), totalBytes: spec.storageBytes },
    timezone: 'UTC',
    cameraResolution: spec.camera,
    previewResolution: spec.preview,
    // Door stations, at the building's edge, get a weaker signal than the monitors inside.
    signal: (kind === 'doorStation' ? -78 : -62) + (hash[7]! % 17),
    clientName: spec.clientName,
  };
}

export interface IntercomFleet {
  doorStations: Intercom[];
  monitors: Intercom[];
  /** Every agent, door stations first. */
  agents: DeviceAgent[];
  stop(): Promise<void>;
}

export async function startIntercomFleet(options: IntercomFleetOptions): Promise<IntercomFleet> {
  const prefix = options.prefix ?? 'SIM';
  const make = (kind: IntercomKind, n: number) => {
    const info = intercomInfo(prefix, kind, n);
    return new DeviceAgent({
      kind,
      apiUrl: options.apiUrl,
      userCode: options.userCode,
      info,
      ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
      ...(options.brokerUrl ? { brokerUrl: options.brokerUrl } : {}),
      ...(options.stateDir ? { credentialsFile: join(options.stateDir, `${info.serial}.json`) } : {}),
    });
  };
  const stations = Array.from({ length: options.doorStations }, (_, i) => make('doorStation', i + 1));
  const monitors = Array.from({ length: options.monitors }, (_, i) => make('indoorMonitor', i + 1));
  const agents = [...stations, ...monitors];
  await startAgents(agents, options.concurrency ?? 10);
  return { doorStations: stations.map((a) => Intercom.of(a)), monitors: monitors.map((a) => Intercom.of(a)), agents, stop: () => stopAgents(agents) };
}

/**
 * The numbers an installer would give a fleet, by device key: door stations `01`, `02`, …,
 * monitors `101`, `102`, … (devices not bound yet have none). The console assigns numbers; this is
 * a plan for it, not something the devices know.
 */
export function plannedNumbers(fleet: Pick<IntercomFleet, 'doorStations' | 'monitors'>): Map<string, string> {
  const numbers = new Map<string, string>();
  fleet.doorStations.forEach((d, i) => d.agent.deviceKey && numbers.set(d.agent.deviceKey, String(i + 1).padStart(2, '0')));
  fleet.monitors.forEach((m, i) => m.agent.deviceKey && numbers.set(m.agent.deviceKey, String(101 + i)));
  return numbers;
}
