import * as z from 'zod';
import { fromDocument } from '#contract/shadow';
import {
  DUPLICATE_CLIENT_ID,
  commandResultMessage,
  deviceTopics,
  heartbeatMessage,
  logMessage,
  parseThingName,
  thingName,
  type RuleEvent,
} from '#contract/protocol';
import { findDevice, recordHeartbeat, recordReported, setPresence } from '#data/devices';
import { appendLogs, finishCommand, findCommand } from '#data/deviceEvents';
import { releaseLiveClient } from '#data/identity';
import { log, withLogContext } from '#lib/log';
import { deleteObject, objectSize } from '#lib/storage';
import { CAPTURE_MAX_BYTES } from '#contract/protocol';
import { ingestRecords, issuesLine } from './records.ts';
import { ingestCalls, ingestOpenDoor } from './calls.ts';
import { doorOpenedDuringCall } from './openDoor.ts';
// Alert mails (fever, blacklist) hook into every newly stored record.
// Webhook events (pass records and what they raise, presence, calls) likewise.
import { deviceStateEvent } from './webhookProducers.ts';
import { recordReportedDoorMode } from './doorModes.ts';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'CAPTURES_BUCKET',
  'CONSOLE_URL',
  'EVENTS_TABLE',
  'IMPORTS_BUCKET',
  'IOT_DATA_ENDPOINT',
  'MAIL_FROM',
  'MAIL_WORKER_FUNCTION',
  'MAIN_TABLE',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
  'WEBHOOK_QUEUE_URL',
]);

/**
 * What the IoT topic rules hand over (`ruleSql`): the device's payload, base64-encoded, and the
 * topic it came on. The tenant and device come from the topic, which the broker policy holds each
 * device to; the payload is decoded apart from it, so nothing in it can name another device.
 */
export type IngestEvent = RuleEvent;

/** The device's message: a JSON object, else undefined (refused). */
function messageOf(event: IngestEvent): Record<string, unknown> | undefined {
  try {
    const message: unknown = JSON.parse(Buffer.from(event.payload, 'base64').toString('utf8'));
    if (typeof message === 'object' && message !== null && !Array.isArray(message)) return message as Record<string, unknown>;
  } catch {
    // refused below
  }
  return undefined;
}

/**
 * A refused message goes into the device's own log with the reason (`messageRefused`), where the
 * console's device detail shows it to whoever integrates the terminal.
 */
async function refuse(tenantId: string, deviceKey: string, topic: string, reason: string): Promise<void> {
  log('warn', 'device message refused', { tenantId, deviceKey, topic, reason });
  // Presence events are the broker's, not the terminal's; a device that is gone has no log.
  if (topic.startsWith('$aws/events/') || !(await findDevice(tenantId, deviceKey))) return;
  await appendLogs(tenantId, deviceKey, [
    { time: Date.now(), level: 'warn', code: 'messageRefused', params: { topic: topic.slice(0, 256), error: reason.slice(0, 500) } },
  ]);
}

const presence = z.object({
  clientId: z.string(),
  timestamp: z.number(),
  eventType: z.enum(['connected', 'disconnected']),
  disconnectReason: z.string().optional(),
});
const documents = z.object({
  current: z.object({ state: z.object({ reported: z.record(z.string(), z.unknown()).nullish() }).loose(), version: z.number().int() }),
});

type Handler = (tenantId: string, deviceKey: string, message: unknown) => Promise<void>;

const ROUTES: [RegExp, Handler][] = [
  [
    /^\$aws\/events\/presence\/(?:connected|disconnected)\/([^/]+)$/,
    async (tenantId, deviceKey, message) => {
      const event = presence.parse(message);
      // The terminal connected again under its client id, and the broker closed the older connection: still online.
      if (event.disconnectReason === DUPLICATE_CLIENT_ID) return;
      const online = event.eventType === 'connected';
      if (await setPresence(tenantId, deviceKey, online, event.timestamp)) await deviceStateEvent(tenantId, deviceKey, online, event.timestamp);
    },
  ],
  [
    /^pc\/([^/]+)\/heartbeat$/,
    async (tenantId, deviceKey, message) => {
      const { info } = heartbeatMessage.parse(message);
      const { serial: _serial, ...rest } = info;
      await recordHeartbeat(tenantId, deviceKey, rest);
    },
  ],
  [
    /^pc\/([^/]+)\/logs$/,
    async (tenantId, deviceKey, message) => {
      await appendLogs(tenantId, deviceKey, logMessage.parse(message).entries);
    },
  ],
  [
    /^pc\/([^/]+)\/commands\/result$/,
    async (tenantId, deviceKey, message) => {
      const result = commandResultMessage.parse(message);
      const command = await findCommand(tenantId, deviceKey, result.commandKey);
      if (!command) return;
      // A photo counts only when the picture really arrived, and at most CAPTURE_MAX_BYTES (a larger one is removed).
      let error = result.ok ? undefined : (result.error ?? 'failed');
      if (result.ok && command.type === 'capturePhoto') {
        const size = command.objectKey ? await objectSize('captures', tenantId, command.objectKey) : undefined;
        if (size === undefined) error = 'no photo arrived';
        else if (size > CAPTURE_MAX_BYTES) {
          error = `photo larger than ${CAPTURE_MAX_BYTES / 1024 / 1024} MB`;
          await deleteObject('captures', tenantId, command.objectKey!);
        }
      }
      const finished = await finishCommand(tenantId, deviceKey, command.commandKey, error ? 'failed' : 'succeeded', error);
      if (finished && !error && command.type === 'openDoor') await doorOpenedDuringCall(tenantId, command, new Date());
    },
  ],
  [/^pc\/([^/]+)\/records$/, ingestRecords],
  [/^pc\/([^/]+)\/calls$/, ingestCalls],
  [
    /^pc\/([^/]+)\/calls\/open$/,
    async (tenantId, deviceKey, message) => {
      const refusal = await ingestOpenDoor(tenantId, deviceKey, message);
      if (refusal) await refuse(tenantId, deviceKey, deviceTopics(thingName(tenantId, deviceKey)).callOpenDoor, refusal);
    },
  ],
  [
    /^\$aws\/things\/([^/]+)\/shadow\/update\/documents$/,
    async (tenantId, deviceKey, message) => {
      const { current } = documents.parse(message);
      const { settings } = fromDocument(current.state.reported ?? {});
      await recordReported(tenantId, deviceKey, settings, current.version);
      await recordReportedDoorMode(tenantId, deviceKey, current.state.reported ?? {}, current.version);
    },
  ],
];

export async function ingest(event: IngestEvent): Promise<void> {
  const { topic } = event;
  // A console tab left the live channel: its session no longer counts it.
  const consoleGone = /^\$aws\/events\/presence\/disconnected\/(console-[^/]+)$/.exec(topic);
  if (consoleGone) {
    const gone = presence.safeParse(messageOf(event));
    return releaseLiveClient(consoleGone[1]!, gone.success ? gone.data.timestamp : Date.now(), gone.success ? gone.data.disconnectReason : undefined);
  }
  for (const [pattern, handle] of ROUTES) {
    const match = pattern.exec(topic);
    if (!match) continue;
    const ids = parseThingName(match[1]!);
    if (!ids) return;
    const message = messageOf(event);
    // Every line of this message names its company, device and topic.
    return withLogContext({ work: 'ingest', tenantId: ids.tenantId, route: topic }, async () => {
      if (!message) return refuse(ids.tenantId, ids.deviceKey, topic, 'not a JSON object');
      try {
        await handle(ids.tenantId, ids.deviceKey, message);
      } catch (error) {
        if (error instanceof z.ZodError) return refuse(ids.tenantId, ids.deviceKey, topic, issuesLine(error));
        throw error;
      }
    });
  }
  log('warn', 'no rule for topic', { topic });
}

export const handler = ingest;
