import type { ErasureReceipt } from '#contract/erasures';
import type { PersonKind } from '#contract/people';
import { noteRulesChanged } from '#data/attendanceRules';
import { personAuthorities } from '#data/authorities';
import type { Locale } from '#contract/locales';
import { findErasure, leaseErasure, receiptOf, removePersonItems, reopenErasure, saveErasure, startErasure, type StoredErasure } from '#data/erasures';
import { scrubPersonMails } from '#data/mailRecords';
import { exportJobsPage, findExportJob, updateExportJob, type ExportJob } from '#data/exportJobs';
import { erasePass, passesOf } from '#data/passErasure';
import { deletePerson, findPerson } from '#data/people';
import { ConflictError, NotFoundError } from '#lib/errors';
import { translate } from '#lib/i18n';
import { deleteObject, objectExists, putObjectIfAbsent } from '#lib/storage';
import { pool } from '#lib/pool';
import { ATTENDANCE_DAY, ATTENDANCE_MONTH, QUESTIONNAIRE_RESULT, WEBHOOK_DELIVERY } from '#data/keys/events';

/**
 * Erasing a person (GDPR-style erasure), as opposed to deleting them (people.ts removePerson):
 *
 * - the person's record, unique claims and search terms go, and their authorizations (pass list
 *   and blacklist) are revoked: every terminal holding the face is told to delete it;
 * - every photo of them goes: the current one and each earlier one a pass record still links;
 * - every pass record of theirs stays as the company's access history (when, which door, the
 *   outcome; the day's counters stay true) but loses who it was: personKey, name, temperature,
 *   capture and photo link are removed and the record is marked `erased`; the capture objects go;
 * - their own copies of their passes (attendance punches), the attendance days and months
 *   computed for them and the questionnaire answers they gave go;
 * - the webhook deliveries of events that named them go from every delivery log (each keeps the
 *   event's body for replays); what receivers were sent is theirs to erase;
 * - the mail records of alerts about them are scrubbed (name, subject and text), and such a mail
 *   not yet sent is not sent;
 * - every export made or under way before this point (it may hold them) is withdrawn with its file;
 * - their key becomes a tombstone: a pass a terminal sends of them later (an offline backlog) is
 *   stored without them (iot/records.ts), and the captures of their passes are closed: each key
 *   holds a placeholder, and upload links are `If-None-Match: *`, so a link given before the
 *   erasure is refused by storage;
 * - last, a check: a pass of theirs stored while it ran sends the erasure back to the passes, and
 *   asking again for a done erasure that finds one goes on the same way, so the receipt is not
 *   `done` while anything of them remains.
 *
 * A receipt (data/erasures.ts) counts what went, is kept 400 days and is answered again by a
 * repeated request. The work is bounded: a request works at most WORK_BUDGET_MS and answers 202
 * with the receipt as it stands; asking again goes on where it stopped (the console does until
 * it is done). One request at a time works on an erasure (a lease on the receipt).
 */

/** How long one request works on an erasure, well inside API Gateway's 29 s. */
const WORK_BUDGET_MS = 15_000;
/** How long a request holds an erasure: longer than it works, so a crashed one is taken over soon after. */
const LEASE_MS = 30_000;
const PASS_PAGE = 50;
const ITEM_PAGE = 500;

/**
 * Whether there is a person of this kind to erase: one on record, or one deleted who left passes.
 * The route's kind decides the permission, so a key of the other kind (on record, or whose passes
 * say so) is not found here: an account for visitors cannot erase an employee's passes.
 */
async function somethingToErase(tenantId: string, kind: PersonKind, personKey: string): Promise<boolean> {
  if (await findPerson(tenantId, kind, personKey)) return true;
  if (await findPerson(tenantId, kind === 'employee' ? 'visitor' : 'employee', personKey)) return false;
  const [first] = (await passesOf(tenantId, personKey, undefined, 1)).passes;
  return first?.personKind === kind;
}

/** Starts or goes on with the erasure of a person; answers the receipt as it stands. 404 when there is no such person and no erasure of them. */
export async function erasePerson(tenantId: string, kind: PersonKind, personKey: string, username: string, now = Date.now()): Promise<ErasureReceipt> {
  let erasure = await findErasure(tenantId, kind, personKey);
  if (!erasure) {
    if (!(await somethingToErase(tenantId, kind, personKey))) throw new NotFoundError();
    erasure = await startErasure(tenantId, kind, personKey, username, LEASE_MS, new Date(now));
    // Started at the same moment by another request: that one works on it.
    if (!erasure) return receiptOf((await findErasure(tenantId, kind, personKey))!);
  } else if (erasure.state === 'done') {
    // Done, unless something of the person came back since (a pass stored as it ended).
    if (!(await anyPassLeft(tenantId, personKey)) || !(await reopenErasure(erasure, LEASE_MS, now))) return receiptOf(erasure);
  } else if (!(await leaseErasure(erasure, LEASE_MS, now))) {
    return receiptOf(erasure);
  }
  await work(erasure, now + WORK_BUDGET_MS);
  return receiptOf(erasure);
}

export async function erasureReceipt(tenantId: string, kind: PersonKind, personKey: string): Promise<ErasureReceipt> {
  const erasure = await findErasure(tenantId, kind, personKey);
  if (!erasure) throw new NotFoundError();
  return receiptOf(erasure);
}

/** Runs the phases until done or past `deadline`, saving after each step; the lease is given back at the end. */
async function work(erasure: StoredErasure, deadline: number): Promise<void> {
  try {
    while (erasure.phase !== 'done' && Date.now() < deadline) {
      await step(erasure);
      await saveErasure(erasure, false);
    }
  } finally {
    await saveErasure(erasure, true);
  }
}

const anyPassLeft = async (tenantId: string, personKey: string): Promise<boolean> => (await passesOf(tenantId, personKey, undefined, 1)).passes.length > 0;

/** What a closed capture key holds: nothing, so that an upload link given before is refused (412). */
const PLACEHOLDER = Buffer.alloc(0);

/**
 * Removes a capture of the person, or notes that it never arrived, and closes its key with a
 * placeholder. A capture landing in between (a link given before) is removed and the key closed again.
 */
async function closeCapture(erasure: StoredErasure, capture: string): Promise<void> {
  const { tenantId, counts } = erasure;
  let arrived = await objectExists('captures', tenantId, capture);
  if (!arrived) counts.uploadsClosed++;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (arrived) {
      await deleteObject('captures', tenantId, capture);
      counts.captureObjects++;
    }
    if (await putObjectIfAbsent('captures', tenantId, capture, PLACEHOLDER, 'application/octet-stream')) return;
    arrived = true;
  }
  throw new Error(`capture ${capture} kept arriving while its key was closed`);
}

/** Withdraws one export that may hold the person: it stops being offered and its file goes. */
async function withdrawExport(erasure: StoredErasure, found: ExportJob): Promise<void> {
  let job: ExportJob | undefined = found;
  for (let attempt = 0; job && attempt < 3; attempt++) {
    if (job.state === 'failed') return;
    if (await updateExportJob(job.tenantId, job.jobKey, job.state, 'failed', { error: translate(job.locale as Locale, 'erasure.exportWithdrawn') })) {
      // A running one is left to its worker, which removes the file it makes (jobs/recordExports.ts).
      if (job.fileKey) await deleteObject('imports', job.tenantId, job.fileKey);
      erasure.counts.exportsWithdrawn++;
      return;
    }
    // It moved on meanwhile (started, or finished with a file): read it again.
    job = await findExportJob(job.tenantId, job.jobKey);
  }
}

const removePhoto = async (erasure: StoredErasure, key: string): Promise<void> => {
  if (!(await objectExists('photos', erasure.tenantId, key))) return;
  await deleteObject('photos', erasure.tenantId, key);
  erasure.counts.photoObjects++;
};

async function step(erasure: StoredErasure): Promise<void> {
  const { tenantId, personKind: kind, personKey, counts } = erasure;
  switch (erasure.phase) {
    case 'person': {
      // The person as they are now; a change at the same moment is read again.
      for (let attempt = 0; attempt < 5; attempt++) {
        const person = await findPerson(tenantId, kind, personKey);
        if (!person) break;
        const live = (await personAuthorities(tenantId, personKey)).filter((a) => !a.revoked);
        try {
          await deletePerson(tenantId, kind, personKey, person.version);
        } catch (error) {
          if (error instanceof ConflictError || error instanceof NotFoundError) continue;
          throw error;
        }
        counts.personRecords = 1;
        counts.authorizationsRevoked = live.length;
        counts.blacklistEntries = live.filter((a) => a.setType === 1).length;
        counts.terminalsTold = new Set(live.map((a) => a.deviceKey)).size;
        if (person.kind === 'employee' && person.needsAttendance && person.attendanceGroupKey) await noteRulesChanged(tenantId);
        if (person.avatar) await removePhoto(erasure, person.avatar);
        break;
      }
      erasure.phase = 'passes';
      return;
    }
    case 'passes': {
      // Each erased pass leaves the person's partition, so the first page is always what is left.
      const { passes, next } = await passesOf(tenantId, personKey, undefined, PASS_PAGE);
      const erased = await pool(passes, 8, (pass) => erasePass(tenantId, personKey, pass));
      const captures = [...new Set(erased.flatMap((e) => (e.captureKey ? [e.captureKey] : [])))];
      const photos = [...new Set(erased.flatMap((e) => (e.avatarKey ? [e.avatarKey] : [])))];
      await pool(captures, 8, (capture) => closeCapture(erasure, capture));
      for (const photo of photos) await removePhoto(erasure, photo);
      counts.passRecordsChanged += erased.filter((e) => e.changed).length;
      counts.punchesRemoved += passes.length;
      if (!next || passes.length === 0) erasure.phase = 'answers';
      return;
    }
    case 'answers': {
      const { removed, next } = await removePersonItems(tenantId, QUESTIONNAIRE_RESULT.prefix(), personKey, erasure.cursor, ITEM_PAGE);
      counts.questionnaireAnswers += removed;
      if (next) erasure.cursor = next;
      else {
        delete erasure.cursor;
        erasure.phase = kind === 'employee' ? 'attendance' : 'deliveries';
      }
      break;
    }
    case 'attendance': {
      // Days, then months: the cursor's key says which.
      const months = typeof erasure.cursor?.sk === 'string' && ATTENDANCE_MONTH.owns(erasure.cursor.sk);
      const prefix = months ? ATTENDANCE_MONTH.prefix() : ATTENDANCE_DAY.prefix();
      const { removed, next } = await removePersonItems(tenantId, prefix, personKey, erasure.cursor, ITEM_PAGE);
      counts.attendanceItems += removed;
      if (next) erasure.cursor = next;
      else if (!months) erasure.cursor = { pk: tenantId, sk: ATTENDANCE_MONTH.prefix() };
      else {
        delete erasure.cursor;
        erasure.phase = 'deliveries';
      }
      break;
    }
    case 'deliveries': {
      // Every subscription's log, those of deleted subscriptions too (their deliveries wait for their TTL).
      const { removed, next } = await removePersonItems(tenantId, WEBHOOK_DELIVERY.prefix(), personKey, erasure.cursor, ITEM_PAGE);
      counts.webhookDeliveries += removed;
      if (next) erasure.cursor = next;
      else {
        delete erasure.cursor;
        erasure.phase = 'mails';
      }
      break;
    }
    case 'mails': {
      const { scrubbed, next } = await scrubPersonMails(tenantId, personKey, erasure.cursor, ITEM_PAGE);
      counts.mailRecords += scrubbed;
      if (next) erasure.cursor = next;
      else {
        delete erasure.cursor;
        erasure.phase = 'exports';
      }
      break;
    }
    case 'exports': {
      // Every export begun before now read the person's data before it was gone; intercom calls name nobody.
      const startedBefore = new Date().toISOString();
      const { jobs, next } = await exportJobsPage(tenantId, erasure.cursor, ITEM_PAGE);
      const touched = jobs.filter((job) => job.list !== 'calls' && job.state !== 'failed' && job.createdAt <= startedBefore);
      await pool(touched, 8, (job) => withdrawExport(erasure, job));
      if (next) erasure.cursor = next;
      else {
        delete erasure.cursor;
        erasure.phase = 'check';
      }
      break;
    }
    case 'check': {
      // A pass of theirs stored while this ran (its person read before the erasure began) is erased too.
      erasure.phase = (await anyPassLeft(tenantId, personKey)) ? 'passes' : 'done';
      break;
    }
    case 'done':
      return;
  }
  if (erasure.phase === 'done') erasure.finishedAt = new Date().toISOString();
}
