import type { PassDecision, PassRecordUp, PassSource, PassState, RefusalReason } from '@passcloud/functions/contract/protocol';
import type { DeviceAgent } from './agent.ts';
import { within, type Face } from './faces.ts';
import { portrait } from './portraits.ts';
import type { SurveyRequest } from './questionnaires.ts';
import { newPassRecord } from './records.ts';

/**
 * People walking past the simulated terminals: at `perMinute` passes a minute (spread at random),
 * a terminal sees someone and decides as a real one would from its own face library and settings
 * (`decide`): a face on its blacklist is refused whatever else the library holds for that person,
 * a known face inside its validity passes, a stranger is refused (unless the terminal lets
 * strangers pass), a temperature at or above the alarm threshold is refused. Each pass becomes a
 * record with a capture of the person.
 *
 * While a terminal shows questionnaires, a share of the people it lets pass (`surveys`, known
 * people and strangers alike) answer them a few seconds later, on its screen or on their phone
 * through its QR code (questionnaires.ts); a share of those answers (`abnormalSurveys`) choose an
 * option that raises the alarm, so the console sees abnormal results now and then.
 */
export interface TrafficOptions {
  perMinute: number;
  /** Share of passes by strangers, of fevers and of blacklist hits (defaults 0.08, 0.03, 0.02). */
  strangers?: number;
  fevers?: number;
  blacklist?: number;
  /** Share of the people let through who answer the questionnaires the terminal shows (default 0.5). */
  surveys?: number;
  /** Share of those who choose an alarm option, where a questionnaire has one (default 0.125, one in eight). */
  abnormalSurveys?: number;
  random?: () => number;
}

export interface Traffic {
  /** Passes made so far. */
  readonly count: number;
  /** People who went on to answer the questionnaires of their terminal (started so far). */
  readonly surveyCount: number;
  stop(): void;
}

export const DEFAULT_SURVEY_SHARE = 0.5;
export const DEFAULT_ABNORMAL_SHARE = 0.125;

const STRANGERS = ['Passer-by', 'Courier', 'Walk-in', 'Unknown guest', 'Contractor'];

export function simulateTraffic(agents: DeviceAgent[], options: TrafficOptions): Traffic {
  const random = options.random ?? Math.random;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let count = 0;
  let surveyCount = 0;
  const answering = new Set<NodeJS.Timeout>();
  const meanMs = 60_000 / Math.max(options.perMinute, 0.001);
  const next = () => {
    if (stopped) return;
    // Exponential gaps: passes arrive as people do, not on a metronome.
    timer = setTimeout(
      () => {
        const online = agents.filter((a) => a.connected);
        if (online.length > 0) {
          const agent = online[Math.floor(random() * online.length)]!;
          const record = pass(agent, options, random);
          count++;
          const survey = surveyAfterPass(agent, record, options, random);
          if (survey) {
            surveyCount++;
            const wait = setTimeout(() => {
              answering.delete(wait);
              if (!stopped) void agent.answerSurveys(survey).catch(() => undefined);
            }, survey.afterMs);
            wait.unref();
            answering.add(wait);
          }
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
    get surveyCount() {
      return surveyCount;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const wait of answering) clearTimeout(wait);
      answering.clear();
    },
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Whether the person of this record goes on to answer the questionnaires the terminal shows, and
 * how: only someone let through sees them (at `surveys`), choosing an alarm option at
 * `abnormalSurveys`, after reading and tapping for a while within the first survey's display time.
 * Undefined when they don't.
 */
export function surveyAfterPass(
  agent: DeviceAgent,
  record: PassRecordUp,
  options: Pick<TrafficOptions, 'surveys' | 'abnormalSurveys'>,
  random = Math.random,
): (SurveyRequest & { afterMs: number }) | undefined {
  const shown = agent.questionnaires.items;
  if (record.passState !== 'passed' || shown.length === 0 || random() >= (options.surveys ?? DEFAULT_SURVEY_SHARE)) return undefined;
  const abnormal = random() < (options.abnormalSurveys ?? DEFAULT_ABNORMAL_SHARE);
  const afterMs = Math.round(Math.min(20, shown[0]!.displaySeconds) * (0.3 + 0.6 * random()) * 1000);
  return { ...(record.personKey ? { personKey: record.personKey } : {}), abnormal, random, afterMs };
}

/** Someone in front of a terminal: who the face matched (absent for a stranger) and what was measured. */
export interface Sighting {
  personKey?: string | undefined;
  temperature?: number | undefined;
  mask?: boolean | undefined;
  source?: PassSource | undefined;
}

/**
 * What the terminal decides for one sighting, from its face library, schedules and settings, as
 * the device protocol says, and why (`refusedFor`, and the trace in `decision`): the blacklist wins,
 * so a person on it is refused (and recorded under their key, which makes a blacklist record) even
 * when they also hold pass authority; a pass face outside its validity is refused for `validity`,
 * one whose schedule is closed at that moment (in the terminal's time zone) for `schedule`; then a
 * fever or a missing mask refuses it; anyone else is a stranger.
 */
export function decide(agent: DeviceAgent, sighting: Sighting, at = new Date()): PassRecordUp {
  const settings = agent.settings;
  const { personKey, temperature, mask, source = 'face' } = sighting;
  const measured = { ...(temperature !== undefined ? { temperature } : {}), ...(mask !== undefined ? { mask } : {}) };
  const hot = settings.temperatureAlarm && temperature !== undefined && temperature >= settings.temperatureThreshold;
  const maskRefused = settings.maskDetection && mask === false;
  const rules = {
    doorMode: null,
    temperature: { alarm: settings.temperatureAlarm, threshold: settings.temperatureThreshold },
    maskRequired: settings.maskDetection,
  };
  const record = (passState: PassState, refusedFor: Exclude<RefusalReason, 'unknown'> | undefined, decision: PassDecision, face?: Face) =>
    newPassRecord({
      ...(face ? { personKey: face.personKey, name: face.name } : {}),
      ...measured,
      passState,
      ...(passState === 'refused' && refusedFor ? { refusedFor } : {}),
      source,
      verifyTime: at.getTime(),
      decision,
    });
  const traced = (face: Face | undefined, schedule: PassDecision['schedule'] = null): PassDecision => ({
    list: face?.list ?? null,
    validFrom: face?.validFrom ?? null,
    validTo: face?.validTo ?? null,
    schedule,
    ...rules,
  });
  if (personKey && agent.faces.watches(personKey, at)) {
    const face = agent.faces.find('blacklist', personKey)!;
    return record('refused', 'blacklist', traced(face), face);
  }
  const face = personKey ? agent.faces.find('pass', personKey) : undefined;
  if (face) {
    if (!within(face, at)) return record('refused', 'validity', traced(face), face);
    const schedule = face.scheduleId ? agent.schedules.check(face.scheduleId, at) : null;
    if (schedule && !schedule.open) return record('refused', 'schedule', traced(face, schedule), face);
    const refusedFor = hot ? 'temperature' : maskRefused ? 'mask' : undefined;
    return record(refusedFor ? 'refused' : 'passed', refusedFor, traced(face, schedule), face);
  }
  // A stranger: refused as a stranger (no reason of the list above), or for a fever where strangers may pass.
  const passes = settings.strangerPass && !hot;
  return record(passes ? 'passed' : 'refused', settings.strangerPass && hot ? 'temperature' : undefined, traced(undefined));
}

/** One person at one terminal: what the terminal decides and records. */
export function pass(agent: DeviceAgent, options: Omit<TrafficOptions, 'perMinute'>, random = Math.random): PassRecordUp {
  const settings = agent.settings;
  const now = new Date();
  const known = agent.faces.all().filter((f) => f.list === 'pass' && within(f, now));
  const watched = agent.faces.all().filter((f) => f.list === 'blacklist' && within(f, now));
  const r = random();
  const blacklistShare = options.blacklist ?? 0.02;
  const strangerShare = options.strangers ?? 0.08;
  const feverShare = options.fevers ?? 0.03;
  const fever = random() < feverShare;
  const temperature = round1(fever ? settings.temperatureThreshold + 0.2 + random() * 1.3 : 36.1 + random() * 0.8);
  const mask = random() < 0.8;
  let face: Face | undefined;
  let source: PassSource = 'face';
  if (watched.length > 0 && r < blacklistShare) face = watched[Math.floor(random() * watched.length)]!;
  else if (known.length > 0 && r >= blacklistShare + strangerShare) {
    face = known[Math.floor(random() * known.length)]!;
    source = random() < 0.9 ? 'face' : 'card';
  }
  const seed = face?.name ?? `${STRANGERS[Math.floor(random() * STRANGERS.length)]} ${Math.floor(random() * 1000)}`;
  const record = agent.doorMode.judge(decide(agent, { personKey: face?.personKey, temperature, mask, source }, now));
  agent.records.add(record, portrait(seed, 640, 480, 1 + Math.floor(random() * 1000)));
  return record;
}
