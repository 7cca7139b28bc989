import { deviceTopics } from '@passcloud/functions/contract/protocol';
import { WEBHOOK_HEADERS } from '@passcloud/functions/contract/webhooks';
import { newPassRecord } from '@passcloud/device-shadow/records';
import { startWebhookReceiver } from '../support/webhookReceiver.ts';
import { adminSession, percentile } from './api.ts';
import { figure } from './figures.ts';
import { withOwnHost, type OwnHost } from './host.ts';
import { bindDevices, ingest } from './records.ts';

/**
 * Webhooks against a host of its own (as `npm start` runs it, with the local switch that lets a
 * receiver listen on loopback): pass records through MQTT, every one a `pass.record` event for a
 * receiver on loopback over https.
 * - Event to delivery: 100 records a second for WEBHOOK_BENCH_SECONDS (10 unless set), each
 *   timed from its publication to its arrival at the receiver: p50 and p95.
 * - Ingest with webhooks on against off: the records ingest stores per second, alternately
 *   without a subscription and with one, twice each (the mean of each), as a ratio (goal 0.9).
 * `npm run bench -- --webhooks-only` runs these alone.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SECONDS = Number(process.env.WEBHOOK_BENCH_SECONDS ?? 10);
const RATE = 100;
const PER_DEVICE = Number(process.env.WEBHOOK_BENCH_INGEST ?? 600);

function out(lines: string[], line: string): void {
  lines.push(line);
  console.log(`  ${line}`);
}

async function bench(host: OwnHost): Promise<string[]> {
  const lines: string[] = [];
  const receiver = await startWebhookReceiver();
  const { devices, agents } = await bindDevices(host.url, host.env.DEMO_USER_CODE!);
  const session = await adminSession(host.url);
  const api = async (method: string, path: string, body?: unknown, confirm = false) => {
    const res = await fetch(`${host.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json', ...(confirm ? { 'x-confirm-password': await session.confirm() } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as { code: number; message: string; data: Record<string, unknown> };
  };
  let subscription: { webhookKey: string; version: number } | undefined;
  const subscribe = async () => {
    const made = await api('POST', '/v1/webhooks', { url: receiver.url('/bench'), events: ['pass.record'] }, true);
    if (made.code !== 201) throw new Error(`webhook not made: ${made.message}`);
    subscription = (made.data as { webhook: { webhookKey: string; version: number } }).webhook;
  };
  const unsubscribe = async () => {
    if (!subscription) return;
    const gone = await api('DELETE', `/v1/webhooks/${subscription.webhookKey}?version=${subscription.version}`);
    if (gone.code !== 204) throw new Error(`webhook not deleted: ${gone.message}`);
    subscription = undefined;
  };
  try {
    // Warm the host's handlers up.
    await ingest(devices.slice(0, 1), 100, false);

    // Event to delivery at 100 events a second: ten records every 100 ms, spread over the devices.
    await subscribe();
    const sentAt = new Map<string, number>();
    const arrivedBefore = receiver.received.length;
    const started = Date.now();
    for (let tick = 0; tick < SECONDS * 10; tick++) {
      const device = devices[tick % devices.length]!;
      const records = Array.from({ length: RATE / 10 }, () => newPassRecord({ temperature: 36.5 }));
      const now = Date.now();
      for (const r of records) sentAt.set(`${device.deviceKey}.${r.recordId}`, now);
      device.client.publish(deviceTopics(device.thing).records, JSON.stringify({ records }), { qos: 1 });
      const next = started + (tick + 1) * 100;
      await sleep(Math.max(0, next - Date.now()));
    }
    const total = SECONDS * RATE;
    const end = Date.now() + 60_000;
    while (receiver.received.length - arrivedBefore < total && Date.now() < end) await sleep(50);
    const latencies: number[] = [];
    for (const r of receiver.received.slice(arrivedBefore)) {
      const key = (JSON.parse(r.body) as { data: { recordKey: string } }).data.recordKey;
      const at = sentAt.get(key);
      if (at !== undefined && r.headers[WEBHOOK_HEADERS.type] === 'pass.record') latencies.push(r.at - at);
    }
    const p50 = percentile(latencies, 50) ?? Number.NaN;
    const p95 = percentile(latencies, 95) ?? Number.NaN;
    figure({ area: 'webhooks', name: 'event to delivery p50', value: p50, unit: 'ms', note: `${RATE} events/s for ${SECONDS} s, receiver on loopback over https` });
    figure({ area: 'webhooks', name: 'event to delivery p95', value: p95, unit: 'ms', note: `${latencies.length} of ${total} delivered` });
    out(lines, `webhooks: ${RATE} pass records/s for ${SECONDS} s through MQTT, each a pass.record event to a receiver on loopback: ${latencies.length} of ${total} delivered, event to delivery p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms`);
    await unsubscribe();

    // Ingest with webhooks off and on, alternately.
    const rates: { on: number[]; off: number[] } = { on: [], off: [] };
    for (const on of [false, true, false, true]) {
      if (on) await subscribe();
      // The host's cache of subscriptions is dropped by the change itself (same process).
      const run = await ingest(devices, PER_DEVICE, false);
      rates[on ? 'on' : 'off'].push((devices.length * PER_DEVICE) / run.seconds);
      if (on) await unsubscribe();
      // Let the deliveries of the run end before the next.
      const quiet = Date.now() + 30_000;
      while (Date.now() < quiet) {
        const before = receiver.received.length;
        await sleep(500);
        if (receiver.received.length === before) break;
      }
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const off = mean(rates.off);
    const on = mean(rates.on);
    figure({ area: 'webhooks', name: 'ingest rate, webhooks off', value: off, unit: '/s', note: `${devices.length} devices x ${PER_DEVICE} records, mean of 2 runs` });
    figure({ area: 'webhooks', name: 'ingest rate, webhooks on', value: on, unit: '/s', note: 'one subscription to every pass record' });
    figure({ area: 'webhooks', name: 'ingest on / off', value: on / off, unit: 'x', goal: 0.9, kind: 'min', note: 'same host, alternating runs' });
    out(lines, `webhooks: ingest ${off.toFixed(0)} records/s with webhooks off (${rates.off.map((r) => r.toFixed(0)).join(', ')}), ${on.toFixed(0)} /s with every record a webhook event (${rates.on.map((r) => r.toFixed(0)).join(', ')}): ratio ${(on / off).toFixed(2)} (goal 0.9)`);
  } finally {
    await unsubscribe().catch(() => undefined);
    await Promise.allSettled(devices.map((d) => d.client.endAsync(true)));
    await Promise.allSettled(agents.map((a) => a.stop()));
    await receiver.stop();
  }
  return lines;
}

/** On a host of its own, started with the local switch that lets the receiver listen on loopback. */
export async function webhooksBench(): Promise<string[]> {
  const saved = process.env.SMTP_ALLOW_PRIVATE;
  process.env.SMTP_ALLOW_PRIVATE = '1';
  try {
    return await withOwnHost(bench);
  } finally {
    if (saved === undefined) delete process.env.SMTP_ALLOW_PRIVATE;
    else process.env.SMTP_ALLOW_PRIVATE = saved;
  }
}
