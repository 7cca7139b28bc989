import {
  DOOR_EXEMPT_SHADOW_KEY,
  DOOR_MODE_SHADOW_KEY,
  type DoorMode,
  type DoorModeAnswer,
  type DoorModeBody,
  type DoorModeScope,
  type DoorModeState,
} from '#contract/doorModes';
import { isLocale, type Locale } from '#contract/locales';
import { thingName } from '#contract/protocol';
import { allFaceTerminals, isIntercom, type Device } from '#data/devices';
import { allDoorModes, currentDoorModeRevision, findDoorMode, nextDoorModeRevision, readExemptions, setDesiredMode, type DeviceDoorModeItem, type DoorModeSetting } from '#data/doorModes';
import { findGroup } from '#data/groups';
import { findTenant } from '#data/identity';
import { readEmailSettings } from '#data/mailSettings';
import { companyTimezone } from '#data/tenants';
import { NotFoundError } from '#lib/errors';
import { translate } from '#lib/i18n';
import { updateDesired } from '#lib/iot';
import { startWorker } from '#lib/jobs';
import { log } from '#lib/log';
import { enqueue, retryDueMails, type Mail } from '#lib/mail';
import { pool } from '#lib/pool';
import { emitEvent } from '#lib/webhookEvents';

/**
 * Setting a door mode (contract/doorModes.ts): the terminals of the scope, each given the mode in
 * its store and in its shadow at once (a terminal offline takes it from its shadow when it
 * connects), then the company's webhooks (`door.mode`) and the alert recipients of its email
 * settings are told. The audit entry is the route's (lib/audit.ts).
 */

/**
 * Terminals given their mode at once. Each takes three requests (its store, its shadow, its store
 * read again), so a thousand terminals are about a hundred rounds, well within the API's 29 s;
 * DynamoDB on demand and the IoT data plane (UpdateThingShadow: 4,000 requests a second an account,
 * https://docs.aws.amazon.com/general/latest/gr/iot-core.html) take far more than this.
 */
const DOOR_MODE_CONCURRENCY = 32;

/** The face terminals a scope names; a group or terminal that is not the company's answers 404 before anything changes. */
export async function terminalsOf(tenantId: string, scope: DoorModeScope): Promise<Device[]> {
  const fleet = await allFaceTerminals(tenantId);
  if ('all' in scope) return fleet;
  if ('groupKeys' in scope) {
    const keys = new Set(scope.groupKeys);
    const groups = await Promise.all([...keys].map((key) => findGroup(tenantId, key)));
    if (groups.some((group) => !group || group.type !== 'device')) throw new NotFoundError();
    return fleet.filter((device) => device.groupKey !== undefined && keys.has(device.groupKey));
  }
  const byKey = new Map(fleet.map((device) => [device.deviceKey, device]));
  const keys = [...new Set(scope.deviceKeys)];
  if (keys.some((key) => !byKey.has(key))) throw new NotFoundError();
  return keys.map((key) => byKey.get(key)!);
}

/** The exemption list's revision, as the shadow names it. */
export const exemptionToken = (version: number): string => `v${version}`;

/** The shadow values of a door mode: the mode, and which exemption list a lockdown lets pass. */
export async function doorModeDesired(tenantId: string, mode: DoorMode): Promise<Record<string, string>> {
  return { [DOOR_MODE_SHADOW_KEY]: mode, [DOOR_EXEMPT_SHADOW_KEY]: exemptionToken((await readExemptions(tenantId)).version) };
}

/** Gives one terminal a setting in its store and then its shadow; false when a later setting is in its store already. */
async function giveMode(tenantId: string, deviceKey: string, setting: DoorModeSetting, revision: number, desired: Record<string, string>): Promise<boolean> {
  if (!(await setDesiredMode(tenantId, deviceKey, setting, revision))) return false;
  await updateDesired(thingName(tenantId, deviceKey), desired);
  return true;
}

/**
 * Two settings made at once may reach a terminal's store in one order and its shadow in the
 * other. So once a setting has written its terminals, it reads the company's revision: while it is
 * still this setting's, no later one began, and any later one writes its shadows after these. When
 * a later one began, each terminal whose store holds a later setting gets that setting's mode
 * written again, leaving every shadow with the mode its store holds whichever order the writes took.
 */
async function settleRaces(tenantId: string, deviceKeys: readonly string[], revision: number): Promise<void> {
  if ((await currentDoorModeRevision(tenantId)) === revision) return;
  await pool(deviceKeys, DOOR_MODE_CONCURRENCY, async (deviceKey) => {
    const stored = await findDoorMode(tenantId, deviceKey);
    if (stored && stored.revision !== revision) await updateDesired(thingName(tenantId, deviceKey), await doorModeDesired(tenantId, stored.desired));
  });
}

/** Gives every terminal of the scope the mode, tells webhooks and the alert recipients; answers how many terminals. */
export async function setDoorMode(tenantId: string, setBy: string, body: DoorModeBody): Promise<number> {
  const targets = await terminalsOf(tenantId, body.scope);
  const setting: DoorModeSetting = { mode: body.mode, scope: body.scope, reason: body.reason, setBy, since: new Date().toISOString() };
  const [desired, revision] = await Promise.all([doorModeDesired(tenantId, body.mode), nextDoorModeRevision(tenantId)]);
  const given: string[] = [];
  await pool(targets, DOOR_MODE_CONCURRENCY, async (device) => {
    if (await giveMode(tenantId, device.deviceKey, setting, revision, desired)) given.push(device.deviceKey);
  });
  await settleRaces(tenantId, given, revision);
  await emitEvent(tenantId, 'door.mode', `${setting.since}#${body.mode}`, setting.since, () => ({
    mode: body.mode,
    scope: body.scope,
    reason: body.reason,
    setBy,
    devices: targets.length,
    time: setting.since,
  }));
  await mailRecipients(tenantId, setting, targets.length).catch((error: unknown) =>
    log('error', 'door mode mail not sent', { tenantId, error: String(error) }),
  );
  return targets.length;
}

/** Whether a setting's scope takes in a terminal where it is now (its device group). */
function covers(scope: DoorModeScope | undefined, device: Pick<Device, 'deviceKey' | 'groupKey'>): boolean {
  if (!scope) return false;
  if ('all' in scope) return true;
  if ('groupKeys' in scope) return device.groupKey !== undefined && scope.groupKeys.includes(device.groupKey);
  return scope.deviceKeys.includes(device.deviceKey);
}

/**
 * A terminal new to a scope (bound, approved, or moved to another device group) takes the newest
 * setting whose scope takes it in: one for all terminals, for its group, or its own. The settings
 * are those the company's terminals hold; none that covers it: normal. The mode goes to the
 * store and the shadow as a setting of its own.
 */
export async function inheritDoorMode(device: Device): Promise<void> {
  if (isIntercom(device)) return;
  const items = await allDoorModes(device.tenantId);
  const own = items.find((item) => item.deviceKey === device.deviceKey);
  const newest = items
    .filter((item) => item.since && covers(item.scope, device) && (item.deviceKey === device.deviceKey || !('deviceKeys' in item.scope!)))
    .sort((a, b) => b.since!.localeCompare(a.since!) || (b.revision ?? 0) - (a.revision ?? 0))[0];
  const mode: DoorMode = newest?.desired ?? 'normal';
  let setting: DoorModeSetting | undefined;
  if (newest && newest.deviceKey !== device.deviceKey) {
    setting = { mode, scope: newest.scope!, reason: newest.reason ?? '', setBy: newest.setBy ?? '', since: newest.since! };
  } else if (!newest && own && own.desired !== 'normal') {
    // It left the scope of its mode: normal from now, as the end of that mode would have made it.
    setting = { mode, scope: { deviceKeys: [device.deviceKey] }, reason: own.reason ?? '', setBy: own.setBy ?? '', since: new Date().toISOString() };
  }
  if (setting && (mode !== 'normal' || (own && own.desired !== 'normal'))) {
    const revision = await nextDoorModeRevision(device.tenantId);
    if (await giveMode(device.tenantId, device.deviceKey, setting, revision, await doorModeDesired(device.tenantId, mode))) {
      await settleRaces(device.tenantId, [device.deviceKey], revision);
    }
  }
}

/** The shadow token of the new exemption list goes to every terminal in lockdown, which then reads the list again. */
export async function deliverExemptions(tenantId: string, version: number): Promise<void> {
  const locked = (await allDoorModes(tenantId)).filter((item) => item.desired === 'lockdown');
  await pool(locked, 8, async (item) => {
    await updateDesired(thingName(tenantId, item.deviceKey), { [DOOR_EXEMPT_SHADOW_KEY]: exemptionToken(version) });
  });
}

async function scopeNames(tenantId: string, scope: DoorModeScope, fleet: ReadonlyMap<string, Device>): Promise<string[]> {
  if ('all' in scope) return [];
  if ('deviceKeys' in scope) return scope.deviceKeys.map((key) => fleet.get(key)?.name ?? key);
  return Promise.all(scope.groupKeys.map(async (key) => (await findGroup(tenantId, key))?.name ?? key));
}

const settingOf = (item: DeviceDoorModeItem): string => `${item.since ?? ''}\u0000${item.desired}\u0000${item.setBy ?? ''}`;

/** `GET /v1/doorModes`: the modes in force, each with the terminals still in it, and the terminals that have not applied theirs. */
export async function doorModeStates(tenantId: string): Promise<DoorModeAnswer> {
  const [items, terminals] = await Promise.all([allDoorModes(tenantId), allFaceTerminals(tenantId)]);
  const fleet = new Map(terminals.map((device) => [device.deviceKey, device]));
  const present = items.filter((item) => fleet.has(item.deviceKey));
  const terminal = (item: DeviceDoorModeItem) => {
    const device = fleet.get(item.deviceKey)!;
    return { deviceKey: item.deviceKey, name: device.name, online: device.online, desired: item.desired, applied: item.applied ?? null };
  };
  const groups = new Map<string, DeviceDoorModeItem[]>();
  for (const item of present) {
    if (item.desired === 'normal' || !item.since || !item.scope) continue;
    groups.set(settingOf(item), [...(groups.get(settingOf(item)) ?? []), item]);
  }
  const states: DoorModeState[] = [];
  for (const group of groups.values()) {
    const first = group[0]!;
    states.push({
      mode: first.desired,
      scope: first.scope!,
      scopeNames: await scopeNames(tenantId, first.scope!, fleet),
      reason: first.reason ?? '',
      setBy: first.setBy ?? '',
      since: first.since!,
      devices: group.map(terminal),
    });
  }
  states.sort((a, b) => b.since.localeCompare(a.since));
  const pending = present.filter((item) => (item.applied ?? 'normal') !== item.desired).map(terminal);
  return { items: states, pending };
}

/** The company's alert recipients hear of every mode set or ended, in the company's language. */
async function mailRecipients(tenantId: string, setting: DoorModeSetting, devices: number): Promise<void> {
  const settings = await readEmailSettings(tenantId);
  if (settings.recipients.length === 0) return;
  const [tenant, timeZone] = await Promise.all([findTenant(tenantId), companyTimezone(tenantId)]);
  const locale: Locale = tenant?.locale && isLocale(tenant.locale) ? tenant.locale : 'en_US';
  const params = {
    mode: translate(locale, `doorMode.${setting.mode}`),
    devices: String(devices),
    setBy: setting.setBy,
    reason: setting.reason,
    time: new Intl.DateTimeFormat(locale.replace('_', '-'), { timeZone, dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(setting.since)),
  };
  const subject = translate(locale, setting.mode === 'normal' ? 'mail.doorModeEndedSubject' : 'mail.doorModeSubject', params);
  const text = translate(locale, 'mail.doorModeBody', params);
  const mails: Mail[] = settings.recipients.map((to) => ({ to, subject, text, kind: 'doorMode', about: params.mode }));
  if ((await enqueue(tenantId, mails)).length > 0) await startWorker('MAIL_WORKER_FUNCTION', {}, async () => void (await retryDueMails()), 'mail');
}
