import * as z from 'zod';
import { pendingSettings, toDocument } from '#contract/shadow';
import { bindResult, deviceTopics, thingName, type BindResult, type CommandMessage } from '#contract/protocol';
import {
  COMMAND_TIMEOUT_MS,
  DEFAULT_SETTINGS,
  batchSettingsAnswer,
  batchSettingsBody,
  bindBody,
  commandBody,
  completeSettings,
  deviceCommand,
  deviceCommandList,
  deviceKeyParams,
  deviceListQuery,
  deviceLogPage,
  devicePage,
  devicePatchBody,
  devicePhoto,
  deviceRequestPage,
  deviceView,
  logsQuery,
  replacementBody,
  requestKeyParams,
  requestListQuery,
  type CommandState,
  type DeviceSettings,
  type SettingsPatch,
} from '#contract/devices';
import { versionQuery } from '#contract/people';
import type { Locale } from '#contract/locales';
import { deviceListPage, type DeviceRequest, requireDevice, updateDevice, type Device } from '#data/devices';
import { bindDevice, replacementFacts, settleReplacement, approveRequest, listRequests, rejectRequest } from '#data/deviceBinding';
import { createCommand, findCommand, listLogs, logItem, recentCommands, type DeviceCommand } from '#data/deviceEvents';
import { findGroup } from '#data/groups';
import { addressAttempt, findTenant } from '#data/identity';
import { claims } from '#data/claims';
import { SYSTEM_SCOPE } from '#data/tables';
import { newId, sha256 } from '#lib/crypto';
import { ConflictError, fieldError } from '#lib/errors';
import { deviceRoute, created, defineResource, deleted, ok, parse, queued, sessionRoute } from '#lib/http';
import { translate } from '#lib/i18n';
import { disconnect, publish, updateDesired } from '#lib/iot';
import { brokerAddress, registerThing } from '#lib/iotRegistry';
import { pool } from '#lib/pool';
import { presignedGet, presignedPut } from '#lib/storage';
import { declareEnvironment } from '#lib/env';
import { removeDevice } from '#flows/deviceRemoval';
import { inheritDoorMode } from '#flows/doorModes';
import { questionnairesDesired } from '#flows/questionnaireDelivery';
import { allDoorModes, findDoorMode, type DeviceDoorModeItem } from '#data/doorModes';
import { doorModeJson } from '#views/doorModes';
import { doorModeHandlers } from './doorModes.ts';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'AUDIT_QUEUE_URL',
  'CAPTURES_BUCKET',
  'EVENTS_TABLE',
  'IMPORTS_BUCKET',
  'IOT_AUTHORIZER_NAME',
  'IOT_DATA_ENDPOINT',
  'IOT_MQTT_URL',
  'IOT_THING_TYPE',
  'MAIL_FROM',
  'MAIL_WORKER_FUNCTION',
  'MAIN_TABLE',
  'ORIGIN_VERIFY_SECRET',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
  'WEBHOOK_QUEUE_URL',
]);

async function companyName(tenantId: string): Promise<string> {
  return (await findTenant(tenantId))?.companyName ?? '';
}

function deviceJson(device: Device, company: string, doorMode: DeviceDoorModeItem | undefined) {
  return {
    deviceKey: device.deviceKey,
    thingName: thingName(device.tenantId, device.deviceKey),
    name: device.name,
    groupKey: device.groupKey ?? null,
    serial: device.serial,
    model: device.model ?? '',
    online: device.online,
    lastSeenAt: device.lastSeenAt ?? null,
    appVersion: device.appVersion,
    ip: device.ip,
    mac: device.mac,
    firmware: device.firmware,
    storage: device.storage,
    timezone: device.timezone,
    cameraResolution: device.cameraResolution,
    previewResolution: device.previewResolution,
    companyName: company,
    settings: device.settings,
    reported: device.reported,
    pending: pendingSettings(device.settings, device.reported),
    createTime: device.createdAt,
    replacement: replacementFacts(device),
    doorMode: doorModeJson(doorMode),
    version: device.version,
  };
}

/** A deleted terminal's request to be added again, as the console shows it: the facts, never the secret. */
const requestJson = (request: DeviceRequest) => ({
  requestKey: request.requestKey,
  serial: request.serial,
  ...request.info,
  model: request.info.model ?? '',
  requestTime: request.requestedAt,
  deleteTime: request.deletedAt,
  version: request.version,
});

/** A new device's thing in the registry, and its settings in the shadow. */
async function makeThing(device: Device): Promise<void> {
  await registerThing(thingName(device.tenantId, device.deviceKey), { tenantId: device.tenantId, serial: device.serial });
  await pushSettings(device, true);
}

/** The complete desired settings after a patch, checked as a whole (e.g. minimum pass temperature below the alarm threshold). */
function mergeSettings(current: DeviceSettings, patch: SettingsPatch, locale: Locale): DeviceSettings {
  return parse(completeSettings, { ...current, ...patch }, locale, 'settings') as DeviceSettings;
}

/**
 * Sends the whole desired state, so a shadow that missed an earlier write catches up; a terminal
 * new to its scope (bound, or moved to another group) also takes the door mode in force there.
 */
async function pushSettings(device: Device, newScope = false): Promise<void> {
  await updateDesired(thingName(device.tenantId, device.deviceKey), { ...toDocument(device.settings), ...(await questionnairesDesired(device)) });
  if (newScope) await inheritDoorMode(device);
}

async function checkGroup(tenantId: string, groupKey: string | null | undefined): Promise<void> {
  if (!groupKey) return;
  const group = await findGroup(tenantId, groupKey);
  if (!group || group.type !== 'device') throw fieldError('groupKey', 'devices.groupMissing');
}

function commandState(command: DeviceCommand): CommandState {
  if (command.state === 'queued' && Date.now() - Date.parse(command.createdAt) > COMMAND_TIMEOUT_MS) return 'timedOut';
  return command.state;
}

const commandJson = (command: DeviceCommand) => ({
  commandKey: command.commandKey,
  type: command.type,
  state: commandState(command),
  ...(command.error ? { error: command.error } : {}),
  createTime: command.createdAt,
  ...(command.finishedAt ? { finishTime: command.finishedAt } : {}),
});

export const devices = defineResource('devices', {
  'POST /v1/devices/bind': deviceRoute({
    answer: bindResult,
    body: bindBody,
    async handle({ body, sourceIp }) {
      const claim = await addressAttempt(sourceIp, async () => {
        const found = (await claims().get({ tenantId: SYSTEM_SCOPE, kind: 'userCode', value: body.userCode.toUpperCase() }).go()).data;
        if (!found) throw fieldError('userCode', 'devices.unknownUserCode');
        return found;
      });
      const secret = newId(32);
      const { deviceKey, state, device } = await bindDevice({
        tenantId: claim.ownerTenantId,
        kind: body.kind ?? 'faceTerminal',
        serial: body.serial,
        info: body.info,
        secretHash: sha256(secret),
        defaults: DEFAULT_SETTINGS,
      });
      const thing = thingName(claim.ownerTenantId, deviceKey);
      if (device) await makeThing(device);
      const broker = brokerAddress();
      const result: BindResult = {
        state,
        resetCursor: true,
        deviceKey,
        thingName: thing,
        mqtt: { url: broker.url, clientId: thing, username: `${thing}${broker.usernameSuffix}`, password: secret },
      };
      // A serial the company has, or had and deleted, waits for an administrator: its secret works once approved.
      return state === 'bound' ? created(result) : queued(result);
    },
  }),
  'GET /v1/devices/requests': sessionRoute({
    answer: deviceRequestPage,
    query: requestListQuery,
    async handle({ auth, query }) {
      const page = await listRequests(auth.tenantId, query.pageSize, query.cursor);
      return ok({ items: page.items.map(requestJson), nextCursor: page.nextCursor });
    },
  }),
  'POST /v1/devices/requests/{requestKey}': sessionRoute({
    answer: deviceView,
    params: requestKeyParams,
    body: replacementBody,
    async handle({ auth, params, body }) {
      const device = await approveRequest(auth.tenantId, params.requestKey, body.version, DEFAULT_SETTINGS);
      await makeThing(device);
      return created(deviceJson(device, await companyName(auth.tenantId), await findDoorMode(auth.tenantId, device.deviceKey)));
    },
  }),
  'DELETE /v1/devices/requests/{requestKey}': sessionRoute({
    answer: z.null(),
    params: requestKeyParams,
    query: versionQuery,
    async handle({ auth, params, query }) {
      await rejectRequest(auth.tenantId, params.requestKey, query.version);
      return deleted();
    },
  }),
  'GET /v1/devices': sessionRoute({
    answer: devicePage,
    query: deviceListQuery,
    async handle({ auth, query }) {
      const { page, nextCursor, filtered } = await deviceListPage(auth.tenantId, query);
      const [company, modes] = await Promise.all([companyName(auth.tenantId), allDoorModes(auth.tenantId)]);
      const modeOf = new Map(modes.map((m) => [m.deviceKey, m]));
      const online = filtered.filter((d) => d.online).length;
      return ok({
        items: page.map((d) => deviceJson(d, company, modeOf.get(d.deviceKey))),
        nextCursor,
        total: filtered.length,
        online,
        offline: filtered.length - online,
      });
    },
  }),
  'POST /v1/devices/batchSettings': sessionRoute({
    answer: batchSettingsAnswer,
    body: batchSettingsBody,
    async handle({ auth, body, locale }) {
      const keys = [...new Set(body.deviceKeys)];
      const found = await Promise.all(keys.map((key) => requireDevice(auth.tenantId, key).catch(() => undefined)));
      const missing = keys.filter((_, i) => !found[i]);
      if (missing.length > 0) throw fieldError('deviceKeys', 'devices.someMissing', { count: missing.length });
      const targets = found as Device[];
      // Every device is checked before any is changed, so a bad combination changes nothing.
      const merged = targets.map((device) => mergeSettings(device.settings, body.settings, locale));
      await pool(targets, 8, async (device, i) => {
        let current = device;
        let settings = merged[i]!;
        for (let attempt = 0; ; attempt++) {
          try {
            current = await updateDevice(auth.tenantId, current.deviceKey, current.version, { settings });
            break;
          } catch (error) {
            if (!(error instanceof ConflictError) || attempt >= 2) throw error;
            current = await requireDevice(auth.tenantId, current.deviceKey);
            settings = mergeSettings(current.settings, body.settings, locale);
          }
        }
        await pushSettings(current);
      });
      return created({ updated: targets.length });
    },
  }),
  'GET /v1/devices/{deviceKey}': sessionRoute({
    answer: deviceView,
    params: deviceKeyParams,
    async handle({ auth, params }) {
      const device = await requireDevice(auth.tenantId, params.deviceKey);
      return ok(deviceJson(device, await companyName(auth.tenantId), await findDoorMode(auth.tenantId, device.deviceKey)));
    },
  }),
  'PATCH /v1/devices/{deviceKey}': sessionRoute({
    answer: deviceView,
    params: deviceKeyParams,
    body: devicePatchBody,
    async handle({ auth, params, body, locale }) {
      const device = await requireDevice(auth.tenantId, params.deviceKey);
      await checkGroup(auth.tenantId, body.groupKey);
      const settings = body.settings ? mergeSettings(device.settings, body.settings, locale) : undefined;
      const updated = await updateDevice(auth.tenantId, device.deviceKey, body.version, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.groupKey !== undefined ? { groupKey: body.groupKey } : {}),
        ...(settings ? { settings } : {}),
      });
      // A terminal that moved to another device group may gain or lose the surveys and the door mode of that group.
      const moved = body.groupKey !== undefined && (body.groupKey ?? undefined) !== device.groupKey;
      if (settings || moved) await pushSettings(updated, moved);
      return created(deviceJson(updated, await companyName(auth.tenantId), await findDoorMode(auth.tenantId, updated.deviceKey)));
    },
  }),
  'DELETE /v1/devices/{deviceKey}': sessionRoute({
    answer: z.null(),
    params: deviceKeyParams,
    query: versionQuery,
    async handle({ auth, params, query }) {
      await removeDevice(await requireDevice(auth.tenantId, params.deviceKey), query.version);
      return deleted();
    },
  }),
  'POST /v1/devices/{deviceKey}/replacement': sessionRoute({
    answer: deviceView,
    params: deviceKeyParams,
    body: replacementBody,
    async handle({ auth, params, body }) {
      const device = await settleReplacement(auth.tenantId, params.deviceKey, body.version, true);
      // The unit it supersedes is still connected under the same thing: it goes now, and is told why when it asks.
      await disconnect(thingName(device.tenantId, device.deviceKey));
      return created(deviceJson(device, await companyName(auth.tenantId), await findDoorMode(auth.tenantId, device.deviceKey)));
    },
  }),
  'DELETE /v1/devices/{deviceKey}/replacement': sessionRoute({
    answer: deviceView,
    params: deviceKeyParams,
    query: versionQuery,
    async handle({ auth, params, query }) {
      const device = await settleReplacement(auth.tenantId, params.deviceKey, query.version, false);
      return created(deviceJson(device, await companyName(auth.tenantId), await findDoorMode(auth.tenantId, device.deviceKey)));
    },
  }),
  'POST /v1/devices/{deviceKey}/commands': sessionRoute({
    answer: deviceCommand,
    params: deviceKeyParams,
    body: commandBody,
    async handle({ auth, params, body }) {
      const device = await requireDevice(auth.tenantId, params.deviceKey);
      if (!device.online) throw new ConflictError('devices.offline');
      const command = await createCommand(auth.tenantId, device.deviceKey, body.type);
      const message: CommandMessage = { commandKey: command.commandKey, type: command.type, issuedAt: Date.parse(command.createdAt) };
      if (command.objectKey) {
        message.upload = { url: await presignedPut('captures', auth.tenantId, command.objectKey, 'image/jpeg'), contentType: 'image/jpeg' };
      }
      await publish(deviceTopics(thingName(device.tenantId, device.deviceKey)).commands, message);
      return queued(commandJson(command));
    },
  }),
  'GET /v1/devices/{deviceKey}/commands': sessionRoute({
    answer: deviceCommandList,
    params: deviceKeyParams,
    async handle({ auth, params }) {
      await requireDevice(auth.tenantId, params.deviceKey);
      return ok({ items: (await recentCommands(auth.tenantId, params.deviceKey)).map(commandJson), nextCursor: null });
    },
  }),
  'GET /v1/devices/{deviceKey}/photo': sessionRoute({
    answer: devicePhoto,
    params: deviceKeyParams,
    async handle({ auth, params, locale }) {
      const device = await requireDevice(auth.tenantId, params.deviceKey);
      const command = device.photoCommandKey ? await findCommand(auth.tenantId, device.deviceKey, device.photoCommandKey) : undefined;
      if (!command) return ok({ state: 'none', message: '' });
      const state = commandState(command);
      if (state === 'queued') return ok({ state: 'pending', message: translate(locale, 'devices.photoPending') });
      if (state !== 'succeeded' || !command.objectKey) return ok({ state: 'failed', message: translate(locale, 'devices.photoFailed') });
      return ok({
        state: 'ready',
        url: await presignedGet('captures', auth.tenantId, command.objectKey),
        captureTime: command.finishedAt ?? command.createdAt,
        message: '',
      });
    },
  }),
  ...doorModeHandlers,
  'GET /v1/devices/{deviceKey}/logs': sessionRoute({
    answer: deviceLogPage,
    params: deviceKeyParams,
    query: logsQuery,
    async handle({ auth, params, query }) {
      await requireDevice(auth.tenantId, params.deviceKey);
      const page = await listLogs(auth.tenantId, params.deviceKey, query.pageSize, query.cursor);
      return ok({
        items: page.items.map(logItem),
        nextCursor: page.nextCursor,
      });
    },
  }),
});

export const handler = devices.handler;
