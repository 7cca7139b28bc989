import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import type { RecordsAckMessage } from '@passcloud/functions/contract/protocol';
import { issueLicenceCode } from '@passcloud/functions/domain/licence';
import { dayCounters } from '@passcloud/functions/data/passCounters';
import { dayOf } from '@passcloud/functions/domain/time';
import { resetClients } from '@passcloud/functions/lib/aws';
import { adminToken, fmt, percentile, resultLines } from './api.ts';
import { mb, rssOf, type OwnHost } from './host.ts';
import { figure } from './figures.ts';

/**
 * A thousand terminals against one local host (API, broker, shadow service, rules and DynamoDB
 * Local on one machine) at the traffic docs/scale.md states per terminal: a heartbeat a minute
 * and, at the peak hour of an entrance, a pass every 30 seconds. Reports whether the host keeps
 * up: every pass stored and counted once, how long a pass waits for its acknowledgement, and how
 * long the backlog takes to drain once the passes stop.
 */

export const FLEET_TERMINALS = 1000;
/** Per terminal: one pass every PASS_EVERY_MS at the peak, one heartbeat every HEARTBEAT_MS. */
export const PASS_EVERY_MS = 30_000;
export const HEARTBEAT_MS = 60_000;
const RUN_MS = 120_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system) a process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function fleetBench(host: OwnHost, terminals = FLEET_TERMINALS): Promise<string[]> {
  const { url, pid } = host;
  Object.assign(process.env, host.env);
  resetClients();
  const lines = resultLines();
  const token = await adminToken(url);
  const now = new Date();
  const terms = { id: randomUUID(), seats: terminals + 100, expiresAt: new Date(now.getTime() + 86_400_000).toISOString(), issuedAt: now.toISOString() };
  const activated = await fetch(`${url}/v1/licences`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ activationCode: issueLicenceCode(readFileSync(host.env.LICENCE_PRIVATE_KEY_FILE!, 'utf8'), terms) }),
  });
  if (((await activated.json()) as { code: number }).code >= 300) throw new Error('the bench licence was not activated');

  const started = performance.now();
  let fleet: Fleet | undefined;
  try {
    fleet = await startFleet({
      apiUrl: url,
      userCode: host.env.DEMO_USER_CODE!,
      count: terminals,
      prefix: `FLEET${Date.now().toString(36).toUpperCase()}`,
      heartbeatMs: HEARTBEAT_MS,
      concurrency: 25,
    });
    const boundSeconds = (performance.now() - started) / 1000;
    lines.push(`fleet: ${terminals} terminals bound and connected in ${boundSeconds.toFixed(1)} s; host RSS ${mb(rssOf(pid))}`);
    figure({ area: 'fleet', name: `${terminals} terminals bound and connected`, value: boundSeconds, unit: 's' });

    // Each acknowledgement: how long after its record was added.
    const addedAt = new Map<string, number>();
    const waits: number[] = [];
    for (const agent of fleet.agents) {
      const onAck = agent.records.onAck.bind(agent.records);
      agent.records.onAck = (message: RecordsAckMessage) => {
        const at = performance.now();
        for (const { recordId } of message.stored ?? []) {
          const added = addedAt.get(recordId);
          if (added !== undefined) {
            waits.push(at - added);
            addedAt.delete(recordId);
          }
        }
        onAck(message);
      };
    }

    const tenantId = host.env.DEMO_TENANT!;
    const today = dayOf(new Date(), 'UTC');
    const before = (await dayCounters(tenantId, today, today))[0]!.counts.total;
    const cpuBefore = cpuSeconds(pid);
    const runStarted = performance.now();
    let sent = 0;
    let peakRss = rssOf(pid);
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(pid))), 500);
    await Promise.all(
      fleet.agents.map(async (agent, i) => {
        // Spread over the interval, as people arrive at different doors.
        await sleep((i * PASS_EVERY_MS) / terminals);
        while (performance.now() - runStarted < RUN_MS) {
          const record = newPassRecord({ temperature: 36.5 });
          addedAt.set(record.recordId, performance.now());
          agent.records.add(record);
          sent++;
          await sleep(PASS_EVERY_MS);
        }
      }),
    );
    const sendingEnded = performance.now();
    while (fleet.agents.some((a) => a.records.pending > 0)) {
      if (performance.now() - sendingEnded > 300_000) break;
      await sleep(100);
    }
    const drainSeconds = (performance.now() - sendingEnded) / 1000;
    clearInterval(sampler);
    const runSeconds = (performance.now() - runStarted) / 1000;
    const cpuShare = (cpuSeconds(pid) - cpuBefore) / runSeconds;
    const counted = (await dayCounters(tenantId, today, today))[0]!.counts.total - before;
    const rate = sent / ((sendingEnded - runStarted) / 1000);
    const keptUp = counted === sent && drainSeconds <= 10;
    lines.push(
      `fleet: ${terminals} terminals, a pass each every ${PASS_EVERY_MS / 1000} s and a heartbeat each every ${HEARTBEAT_MS / 1000} s for ${RUN_MS / 1000} s: ${sent} passes (${rate.toFixed(1)}/s), ${counted} counted; acknowledged p50 ${fmt(percentile(waits, 50))}, p95 ${fmt(percentile(waits, 95))}; drained ${drainSeconds.toFixed(1)} s after the last; host CPU ${(cpuShare * 100).toFixed(0)}% of one core, peak RSS ${mb(peakRss)}: ${keptUp ? 'kept up' : 'did NOT keep up'}`,
    );
    figure({
      area: 'fleet',
      name: `${terminals} terminals: passes counted / sent`,
      value: sent ? counted / sent : 0,
      unit: 'x',
      goal: 1,
      kind: 'min',
      note: `${rate.toFixed(1)} passes/s`,
    });
    figure({
      area: 'fleet',
      name: `${terminals} terminals: acknowledgement p95`,
      value: percentile(waits, 95) ?? Number.NaN,
      unit: 'ms',
      goal: 1000,
      kind: 'max',
    });
    figure({ area: 'fleet', name: `${terminals} terminals: backlog drained after the last pass`, value: drainSeconds, unit: 's', goal: 10, kind: 'max' });
    figure({ area: 'fleet', name: `${terminals} terminals: host process CPU`, value: cpuShare * 100, unit: '% core', note: 'DynamoDB Local apart' });
    figure({ area: 'fleet', name: `${terminals} terminals: host peak RSS`, value: peakRss / 1024 / 1024, unit: 'MB' });
  } finally {
    await fleet?.stop();
  }
  return lines;
}
