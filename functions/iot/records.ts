import * as z from 'zod';
import { CAPTURE_MAX_BYTES, CAPTURE_TYPES, deviceTopics, passRecordUp, recordsMessage, thingName, type RecordsAckMessage } from '#contract/protocol';
import type { RecordType } from '#contract/passRecords';
import { isWatched } from '#data/authorities';
import { findDevice, isIntercom } from '#data/devices';
import { storeRecords, type BatchEntry, type PassRecord, type StoredNote } from '#data/passRecords';
import type { PersonKind } from '#contract/people';
import { erasedKind } from '#data/erasures';
import { findPerson, type Person } from '#data/people';
import { privacySettings, retentionTtl } from '#data/settings';
import { companyTimezone } from '#data/tenants';
import { dayOf } from '#domain/time';
import { publish } from '#lib/iot';
import { afterRecordsStored } from './afterRecords.ts';
import { log } from '#lib/log';
import { pool } from '#lib/pool';
import { objectExists, presignedPut } from '#lib/storage';

/**
 * `pc/<thing>/records`: pass records a terminal publishes. Each record is checked on its own (a
 * malformed one is answered in `refused` and the rest go on), stored once per (device, record id)
 * with its day counters, the message's records together in a few transactions
 * (data/passRecords.ts storeRecords), and the whole message is answered with one ack on
 * `pc/<thing>/records/ack` naming every record now stored, new or stored before, each with a
 * presigned PUT for its capture while the company keeps photos.
 *
 * Decisions:
 * - Fever is judged against the device's `temperatureThreshold` whenever a temperature was
 *   measured, whether or not the device's own alarm is switched on: the alarm is what the
 *   terminal does at the door, the fever count is what the company sees afterwards.
 * - The record's day (counters, lists) is the company day of the terminal's verify time, so a
 *   terminal that was offline files its records under the days they happened. A verify time more
 *   than a day ahead of the cloud's clock is refused.
 * - An announced capture of another type or over CAPTURE_MAX_BYTES stores the record without a
 *   capture (no upload is offered); so does a company that keeps no photos.
 * - A pass by a person on the device's blacklist is a blacklist record whatever else the person
 *   holds there: the blacklist wins. The terminal is to refuse them; when it reports `passed`
 *   anyway, the record keeps that (the door did open), carries `violation` and is logged, so the
 *   company sees the terminal broke the rule. The blacklist alert goes out either way.
 */

/** The record as checked, with its capture announcement checked apart so a bad one only drops the capture. */
const recordShape = passRecordUp.omit({ capture: true }).extend({ capture: z.unknown().optional() }).strict();
const captureShape = z.object({ contentType: z.enum(CAPTURE_TYPES), size: z.number().int().min(1).max(CAPTURE_MAX_BYTES) }).strict();

const FUTURE_SLACK_MS = 24 * 3600_000;
/** How long an upload link lasts: a terminal uploads right after the ack, or after its next resend. */
const UPLOAD_SECONDS = 900;
const STORE_WIDTH = 8;

const hourFormats = new Map<string, Intl.DateTimeFormat>();
function hourOf(at: Date, timeZone: string): number {
  let format = hourFormats.get(timeZone);
  if (!format) hourFormats.set(timeZone, (format = new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', hourCycle: 'h23' })));
  return Number(format.format(at)) % 24;
}

const extensionOf = (contentType: string): string => (contentType === 'image/png' ? 'png' : 'jpg');

async function upload(tenantId: string, note: StoredNote): Promise<{ url: string; headers: Record<string, string> } | undefined> {
  if (!note.captureKey || !note.captureType || !note.captureSize) return undefined;
  // Only where no object is: once the capture arrived, or an erasure closed the key, S3 refuses the link (412).
  const url = await presignedPut('captures', tenantId, note.captureKey, note.captureType, UPLOAD_SECONDS, { contentLength: note.captureSize, onlyIfAbsent: true });
  return { url, headers: { 'content-type': note.captureType, 'content-length': String(note.captureSize), 'if-none-match': '*' } };
}

/** The issues of a refused message as one line: `path: message; …`. */
export const issuesLine = (error: z.ZodError): string =>
  error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || 'message'}: ${i.code === 'unrecognized_keys' ? `unknown field ${(i as { keys?: string[] }).keys?.join(', ')}` : i.message}`)
    .join('; ');

export async function ingestRecords(tenantId: string, deviceKey: string, message: unknown): Promise<void> {
  const parsed = recordsMessage.safeParse(message);
  if (!parsed.success) {
    // The whole message is refused: every record whose id can be read is answered refused, with why.
    const entries = Array.isArray((message as { records?: unknown }).records) ? ((message as { records: unknown[] }).records as unknown[]) : [];
    const ids = entries.map((e) => (e as { recordId?: unknown } | null)?.recordId).filter((id): id is string => typeof id === 'string' && id.length > 0).map((id) => id.slice(0, 64));
    if (ids.length > 0) await publish(deviceTopics(thingName(tenantId, deviceKey)).recordsAck, { stored: [], refused: ids.map((recordId) => ({ recordId, reason: issuesLine(parsed.error) })) } satisfies RecordsAckMessage);
    throw parsed.error;
  }
  const raw = parsed.data.records;
  const [device, privacy, timeZone] = await Promise.all([findDevice(tenantId, deviceKey), privacySettings(tenantId), companyTimezone(tenantId)]);
  // Intercoms report calls, not passes.
  if (!device || isIntercom(device)) {
    log('warn', 'records from a device that is not a face terminal of the company', { tenantId, deviceKey, known: !!device });
    return;
  }
  const ack: RecordsAckMessage = { stored: [], refused: [] };
  const now = new Date();
  const checked: z.output<typeof recordShape>[] = [];
  for (const entry of raw) {
    const result = recordShape.safeParse(entry);
    const recordId = typeof (entry as { recordId?: unknown })?.recordId === 'string' ? String((entry as { recordId: string }).recordId).slice(0, 64) : '';
    let reason: string | undefined;
    if (!result.success) reason = result.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ');
    else if (result.data.verifyTime > now.getTime() + FUTURE_SLACK_MS) reason = 'verifyTime: in the future';
    if (reason !== undefined || !result.success) {
      log('warn', 'pass record refused', { tenantId, deviceKey, recordId, reason });
      ack.refused.push({ recordId, reason: reason ?? 'invalid' });
      continue;
    }
    checked.push(result.data);
  }

  // Who each person is, and whether the device watches for them: once per person of the message.
  const personKeys = [...new Set(checked.map((r) => r.personKey).filter((k): k is string => !!k))];
  const known = new Map<string, { person?: Person; watched: boolean; erased?: PersonKind }>();
  await pool(personKeys, STORE_WIDTH, async (personKey) => {
    const [employee, visitor, watched] = await Promise.all([
      findPerson(tenantId, 'employee', personKey),
      findPerson(tenantId, 'visitor', personKey),
      isWatched(tenantId, personKey, deviceKey, now),
    ]);
    const person = employee ?? visitor;
    // An erased person's key is a tombstone: what a terminal sends of them later (an offline backlog) is kept without them.
    const erased = person ? undefined : await erasedKind(tenantId, personKey);
    known.set(personKey, { ...(person ? { person } : {}), watched, ...(erased ? { erased } : {}) });
  });

  const threshold = device.settings.temperatureThreshold;
  const ttl = retentionTtl(privacy, 'passRecords', now);
  const entries: BatchEntry[] = checked.map((up) => {
    const verifyAt = new Date(up.verifyTime);
    const about = up.personKey ? known.get(up.personKey) : undefined;
    if (about?.erased) return { record: erasedRecord(up, about.erased), hour: hourOf(verifyAt, timeZone) };
    const person = about?.person;
    const type: RecordType = about?.watched ? 'blacklist' : (person?.kind ?? 'stranger');
    const violation = type === 'blacklist' && up.passState === 'passed';
    const capture = privacy.savePhotos ? captureShape.safeParse(up.capture) : undefined;
    if (up.capture !== undefined && !capture?.success) log('info', 'capture not wanted', { tenantId, deviceKey, recordId: up.recordId, kept: privacy.savePhotos });
    const name = person?.kind === 'visitor' && !privacy.saveVisitorName ? undefined : (up.name ?? person?.name);
    const measured = up.temperature !== undefined;
    const record: PassRecord = {
      tenantId,
      deviceKey,
      recordId: up.recordId,
      time: now.toISOString(),
      verifyTime: verifyAt.toISOString(),
      day: dayOf(verifyAt, timeZone),
      ...(person ? { personKey: person.personKey, personKind: person.kind, groupKey: person.groupKey } : up.personKey ? { personKey: up.personKey } : {}),
      ...(name ? { name, nameLower: name.toLowerCase() } : {}),
      type,
      ...(measured && privacy.saveTemperature ? { temperature: up.temperature } : {}),
      measured,
      fever: measured && up.temperature! >= threshold,
      ...(up.mask !== undefined ? { mask: up.mask } : {}),
      passState: up.passState,
      source: up.source,
      ...(up.passState === 'refused' && up.refusedFor ? { refusedFor: up.refusedFor } : {}),
      ...(up.decision ? { decision: up.decision } : {}),
      ...(violation ? { violation: true as const } : {}),
      ...(capture?.success
        ? { captureKey: `capture/${now.toISOString().slice(0, 10)}/${deviceKey}/${up.recordId}.${extensionOf(capture.data.contentType)}`, captureType: capture.data.contentType, captureSize: capture.data.size }
        : {}),
      ...(privacy.savePhotos && person?.avatar ? { avatarKey: person.avatar } : {}),
      ttl,
    };
    return { record, hour: hourOf(verifyAt, timeZone) };
  });

  /** A pass of an erased person, as erasure leaves their earlier ones: when, where and the outcome, nobody named, nothing to upload. */
  function erasedRecord(up: z.output<typeof recordShape>, kind: PersonKind): PassRecord {
    const verifyAt = new Date(up.verifyTime);
    return {
      tenantId,
      deviceKey,
      recordId: up.recordId,
      time: now.toISOString(),
      verifyTime: verifyAt.toISOString(),
      day: dayOf(verifyAt, timeZone),
      personKind: kind,
      type: kind,
      measured: up.temperature !== undefined,
      fever: up.temperature !== undefined && up.temperature >= threshold,
      ...(up.mask !== undefined ? { mask: up.mask } : {}),
      passState: up.passState,
      source: up.source,
      ...(up.passState === 'refused' && up.refusedFor ? { refusedFor: up.refusedFor } : {}),
      erased: true,
      ttl,
    };
  }
  // The message's records are written together, a few transactions in all (data/passRecords.ts storeRecords).
  const outcomes = await storeRecords(entries);
  const fresh: PassRecord[] = [];
  const answers = await pool(entries, STORE_WIDTH, async ({ record }, i) => {
    const outcome = outcomes[i]!;
    if (outcome.stored === 'failed') {
      // Neither stored nor refused: the terminal sends it again.
      log('error', 'pass record not stored', { tenantId, deviceKey, recordId: record.recordId, error: String(outcome.error) });
      return undefined;
    }
    try {
      if (outcome.stored === 'new') fresh.push(record);
      if (outcome.stored === 'new' && record.violation) log('warn', 'blacklisted person let through', { tenantId, deviceKey, recordId: record.recordId, personKey: record.personKey });
      const note = outcome.stored === 'new' ? record : outcome.note;
      // A record sent again whose capture already arrived is told so, instead of a new link.
      if (outcome.stored !== 'new' && note.captureKey && (await objectExists('captures', tenantId, note.captureKey))) return { recordId: record.recordId, captureStored: true as const };
      const link = privacy.savePhotos ? await upload(tenantId, note) : undefined;
      return { recordId: record.recordId, ...(link ? { upload: link } : {}) };
    } catch (error) {
      log('error', 'pass record stored, its upload link not made', { tenantId, deviceKey, recordId: record.recordId, error: String(error) });
      return { recordId: record.recordId };
    }
  });
  ack.stored = answers.filter((a): a is NonNullable<typeof a> => !!a);
  if (ack.stored.length > 0 || ack.refused.length > 0) await publish(deviceTopics(thingName(tenantId, deviceKey)).recordsAck, ack);

  // After the ack: what follows a stored record (iot/afterRecords.ts); an alert may wait there for the capture it will attach.
  await afterRecordsStored(tenantId, deviceKey, fresh);
}
