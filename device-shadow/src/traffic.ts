import type { PassRecordUp, PassSource } from '@passcloud/functions/contract/protocol';
import type { DeviceAgent } from './agent.ts';
import { within } from './faces.ts';
import { portrait } from './portraits.ts';
import { newPassRecord } from './records.ts';

/**
 * People walking past the simulated terminals: at `perMinute` passes a minute (spread at random),
 * a terminal sees someone and decides as a real one would from its own face library and settings:
 * a known face inside its validity passes, a stranger is refused (unless the terminal lets
 * strangers pass), a temperature at or above the alarm threshold is refused, a face on its
 * blacklist is refused. Each pass becomes a record with a capture of the person.
 */
export interface TrafficOptions {
  perMinute: number;
  /** Share of passes by strangers, of fevers and of blacklist hits (defaults 0.08, 0.03, 0.02). */
  strangers?: number;
  fevers?: number;
  blacklist?: number;
  random?: () => number;
}

export interface Traffic {
  /** Passes made so far. */
  readonly count: number;
  stop(): void;
}

const STRANGERS = ['Passer-by', 'Courier', 'Walk-in', 'Unknown guest', 'Contractor'];

export function simulateTraffic(agents: DeviceAgent[], options: TrafficOptions): Traffic {
  const random = options.random ?? Math.random;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let count = 0;
  const meanMs = 60_000 / Math.max(options.perMinute, 0.001);
  const next = () => {
    if (stopped) return;
    // Exponential gaps: passes arrive as people do, not on a metronome.
    timer = setTimeout(
      () => {
        const online = agents.filter((a) => a.connected);
        if (online.length > 0) {
          const agent = online[Math.floor(random() * online.length)]!;
          pass(agent, options, random);
          count++;
        }
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
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** One person at one terminal: what the terminal decides and records. */
export function pass(agent: DeviceAgent, options: Omit<TrafficOptions, 'perMinute'>, random = Math.random): PassRecordUp {
  const settings = agent.settings;
  const now = new Date();
  const known = agent.faces.all().filter((f) => f.list === 'pass' && within(f, now));
  const watched = agent.faces.all().filter((f) => f.list === 'blacklist');
  const r = random();
  const blacklistShare = options.blacklist ?? 0.02;
  const strangerShare = options.strangers ?? 0.08;
  const feverShare = options.fevers ?? 0.03;
  const fever = random() < feverShare;
  const temperature = round1(fever ? settings.temperatureThreshold + 0.2 + random() * 1.3 : 36.1 + random() * 0.8);
  const hot = settings.temperatureAlarm && temperature >= settings.temperatureThreshold;
  const mask = random() < 0.8;
  let record: PassRecordUp;
  let seed: string;
  if (watched.length > 0 && r < blacklistShare) {
    const face = watched[Math.floor(random() * watched.length)]!;
    seed = face.name;
    record = newPassRecord({ personKey: face.personKey, name: face.name, temperature, mask, passState: 'refused', source: 'face' });
  } else if (known.length === 0 || r < blacklistShare + strangerShare) {
    seed = `${STRANGERS[Math.floor(random() * STRANGERS.length)]} ${Math.floor(random() * 1000)}`;
    record = newPassRecord({ temperature, mask, passState: settings.strangerPass && !hot ? 'passed' : 'refused', source: 'face' });
  } else {
    const face = known[Math.floor(random() * known.length)]!;
    seed = face.name;
    const source: PassSource = random() < 0.9 ? 'face' : 'card';
    const maskRefused = settings.maskDetection && !mask;
    record = newPassRecord({ personKey: face.personKey, name: face.name, temperature, mask, passState: hot || maskRefused ? 'refused' : 'passed', source });
  }
  agent.records.add(record, portrait(seed, 640, 480, 1 + Math.floor(random() * 1000)));
  return record;
}
