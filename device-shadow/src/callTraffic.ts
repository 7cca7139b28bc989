import type { DeviceAgent } from './agent.ts';
import { newCallId } from './calls.ts';
import { Intercom } from './intercom.ts';

/**
 * Callers at the simulated door stations, and neighbours calling each other: at `perMinute` calls
 * a minute (spread at random), a door station calls a random indoor monitor, or now and then
 * (`internal`) a monitor calls another. Both ends report the call live while it rings. Then
 * nobody answers (`missed`) and both report it not connected, or the monitor answers (both report
 * it answered) and they talk for a few seconds; during a door station's call the monitor may ask
 * for the door (`openDoor`), which the cloud has the station open. Both report the end; the
 * answering monitor announces a WAV recording of the talk and uploads it. Numbers come from
 * `directory` (device key to the number the console gave it), read at every call: an intercom
 * without a number is left out.
 */
export interface CallTrafficOptions {
  perMinute: number;
  /** Share of calls nobody answers (default 0.25). */
  missed?: number;
  /** Share of answered door-station calls in which the monitor opens the door (default 0.5). */
  openDoor?: number;
  /** Share of calls between two monitors (default 0.15; needs two monitors). */
  internal?: number;
  /** How long a call rings before it is answered or given up, in seconds (default 2 to 6). */
  ringSeconds?: [number, number];
  /** How long an answered call talks, in seconds (default 3 to 12). */
  talkSeconds?: [number, number];
  random?: () => number;
}

/** How one call goes. */
export interface CallScript {
  /** Seconds it rings before it is answered or given up. */
  ringSeconds: number;
  answered: boolean;
  /** Seconds of talk once answered. */
  talkSeconds: number;
  /** Seconds into the talk at which the monitor asks for the door (a door station's call only); absent: it does not. */
  openDoorAfter?: number;
  /** Whether the answering end records the talk (default true). */
  record?: boolean;
}

export interface CallResult {
  callId: string;
  caller: Intercom;
  callee: Intercom;
  answered: boolean;
  /** The monitor asked for the door. */
  doorAsked: boolean;
  /** Cut short by stop(). */
  aborted: boolean;
}

export interface CallTraffic {
  /** Calls placed so far. */
  readonly count: number;
  /** Calls ringing or talking now. */
  readonly active: number;
  /**
   * Places one call now between two idle intercoms with numbers, as the traffic would (or as
   * `script` says) and resolves when both ends have reported its end; undefined when no pair is free.
   */
  callOnce(script?: Partial<CallScript> & { internal?: boolean }): Promise<CallResult | undefined>;
  /** Stops placing calls; calls under way end at once. */
  stop(): void;
}

type Party = Intercom | DeviceAgent;
const asIntercom = (party: Party): Intercom => (party instanceof Intercom ? party : Intercom.of(party));

export function simulateCalls(doorStations: Party[], monitors: Party[], directory: Map<string, string>, options: CallTrafficOptions): CallTraffic {
  const stations = doorStations.map(asIntercom);
  const flats = monitors.map(asIntercom);
  const random = options.random ?? Math.random;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let count = 0;
  let active = 0;
  const meanMs = 60_000 / Math.max(options.perMinute, 0.001);
  const between = ([low, high]: [number, number]) => low + random() * (high - low);
  const numbered = (i: Intercom) => i.agent.connected && !i.busy && !!i.agent.deviceKey && directory.has(i.agent.deviceKey);
  const pick = <T>(list: T[]): T | undefined => list[Math.floor(random() * list.length)];

  const callOnce = async (script: Partial<CallScript> & { internal?: boolean } = {}): Promise<CallResult | undefined> => {
    if (abort.signal.aborted) return undefined;
    const idleMonitors = flats.filter(numbered);
    const internal = script.internal ?? (idleMonitors.length >= 2 && random() < (options.internal ?? 0.15));
    const caller = internal ? pick(idleMonitors) : pick(stations.filter(numbered));
    const callee = pick(idleMonitors.filter((m) => m !== caller));
    if (!caller || !callee) return undefined;
    const answered = script.answered ?? random() >= (options.missed ?? 0.25);
    const talkSeconds = script.talkSeconds ?? Math.round(between(options.talkSeconds ?? [3, 12]) * 10) / 10;
    const asksDoor = !internal && answered && random() < (options.openDoor ?? 0.5);
    const { internal: _internal, ...given } = script;
    const full: CallScript = {
      ringSeconds: Math.round(between(options.ringSeconds ?? [2, 6]) * 10) / 10,
      // Early enough that the door has opened before the station reports the end.
      ...(asksDoor ? { openDoorAfter: Math.max(0.5, Math.min(talkSeconds * (0.3 + 0.4 * random()), talkSeconds - 1.5)) } : {}),
      ...given,
      answered,
      talkSeconds,
    };
    count++;
    active++;
    try {
      return await playCall(caller, callee, directory, full, abort.signal);
    } finally {
      active--;
    }
  };

  const next = () => {
    if (abort.signal.aborted) return;
    // Exponential gaps: callers arrive as people do, not on a metronome.
    timer = setTimeout(
      () => {
        callOnce().catch((error: unknown) => console.error('simulated call failed', error));
        next();
      },
      Math.min(10 * meanMs, -Math.log(1 - random()) * meanMs),
    );
    timer.unref();
  };
  next();
  return {
    get count() {
      return count;
    },
    get active() {
      return active;
    },
    callOnce,
    stop() {
      clearTimeout(timer);
      abort.abort();
    },
  };
}

/** Waits `ms`; false when `signal` aborted it. */
function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      resolve(ok);
    };
    const stop = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', stop);
  });
}

/**
 * One call from `caller` to `callee`, played in real time as `script` says: both ends ring, then
 * both miss it or both answer; the monitor may ask for the door; both end it, the callee with a
 * recording of the talk. Numbers come from `directory`. Aborted, a call still ringing is missed
 * and one talking ends at once (without a recording).
 */
export async function playCall(
  caller: Intercom,
  callee: Intercom,
  directory: Map<string, string>,
  script: CallScript,
  signal?: AbortSignal,
): Promise<CallResult> {
  const numberOf = (party: Intercom) => {
    const number = party.agent.deviceKey ? directory.get(party.agent.deviceKey) : undefined;
    if (!number) throw new Error(`${party.agent.options.info.serial} has no intercom number`);
    return number;
  };
  const callerNumber = numberOf(caller);
  const calleeNumber = numberOf(callee);
  const callId = newCallId();
  const result: CallResult = { callId, caller, callee, answered: false, doorAsked: false, aborted: false };
  caller.ring(calleeNumber, { callId });
  callee.ring(callerNumber, { callId, direction: 'incoming' });
  if (!(await pause(script.ringSeconds * 1000, signal)) || !script.answered) {
    result.aborted = !!signal?.aborted;
    const at = Date.now();
    caller.miss(callId, at);
    callee.miss(callId, at);
    return result;
  }
  const answeredAt = Date.now();
  callee.answer(callId, answeredAt);
  caller.answer(callId, answeredAt);
  result.answered = true;
  let talking = true;
  const doorAfter = script.openDoorAfter;
  if (doorAfter !== undefined && callee.kind === 'indoorMonitor' && caller.kind === 'doorStation' && doorAfter < script.talkSeconds) {
    talking = await pause(doorAfter * 1000, signal);
    if (talking) {
      result.doorAsked = true;
      await callee.openDoor(callId);
      talking = await pause(Math.max(0, answeredAt + script.talkSeconds * 1000 - Date.now()), signal);
    }
  } else {
    talking = await pause(script.talkSeconds * 1000, signal);
  }
  result.aborted = !talking;
  const endedAt = Date.now();
  caller.end(callId, { at: endedAt });
  callee.end(callId, { at: endedAt, recording: talking && script.record !== false });
  return result;
}
