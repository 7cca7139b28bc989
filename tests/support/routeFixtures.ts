import { routes, routeKey, type RouteEntry } from '@passcloud/functions/routes';
import { recordKeyOf, storeRecord } from '@passcloud/functions/data/passRecords';
import { storeCallEnd } from '@passcloud/functions/data/intercomCalls';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { call, login, unique } from './api.ts';
import { grantSeats, licenceCode } from './licence.ts';
import { makePng } from './images.ts';
import { zip } from './files.ts';
import { tenantItems } from './tenantItems.ts';
import { until } from './wait.ts';
import { startWebhookReceiver } from './webhookReceiver.ts';

/** The receiver of the fixture webhooks, started with the first. */
let receiver: ReturnType<typeof startWebhookReceiver> | undefined;

/**
 * A company with one record of every kind a route's path names, and request bodies and queries
 * that succeed for the owner of those records: what tests/security/sweep.test.ts walks the route
 * table with, and the security catalogue (tests/security/catalogue*.test.ts) reuses.
 * A route with a path parameter needs a fixture below that creates a record in a tenant and
 * answers its key; a new route without one fails the sweep until it gets one.
 */

export interface Ctx {
  tenantId: string;
  token: string;
}

export async function made(ctx: Ctx, path: string, body: unknown, key: string): Promise<string> {
  const answer = await call<Record<string, string>>('POST', path, { token: ctx.token, body });
  if (answer.body.code !== 201) throw new Error(`fixture ${path} answered ${answer.status}: ${answer.body.message}`);
  return answer.body.data[key]!;
}

export const sweepShift = {
  name: 'Sweep shift',
  periods: [{ onDuty: '09:00', offDuty: '18:00', earliestCheckIn: '07:00', latestCheckOut: '21:00', lateTolerance: 5, earlyLeaveTolerance: 5 }],
};
export const sweepAttendanceGroup = (shiftKey: string) => ({
  name: 'Sweep attendance group',
  weekdays: { sun: null, mon: shiftKey, tue: shiftKey, wed: shiftKey, thu: shiftKey, fri: shiftKey, sat: null },
  workdayOvertimeAfter: null,
  restDayMinHours: null,
});

const sweepDay = [{ from: '07:00', to: '19:00' }];
export const sweepSchedule = {
  name: 'Sweep schedule',
  weekly: [sweepDay, sweepDay, sweepDay, sweepDay, sweepDay, [], []],
  exceptions: [],
  holidaysClosed: true,
};

export const sweepQuestionnaire = (deviceKey: string) => ({
  title: 'Sweep health declaration',
  mode: 'qr',
  displaySeconds: 20,
  scope: { deviceKeys: [deviceKey], groupKeys: [] },
  questions: [{ text: 'Fever?', type: 'single', mandatory: true, options: [{ text: 'No' }, { text: 'Yes', alarm: true }] }],
});

/** Path parameter name -> a new record of the given tenant, answering its key. */
export const fixtures: Record<string, (ctx: Ctx) => Promise<string>> = {
  groupKey: (ctx) => made(ctx, '/v1/groups', { name: 'Sweep staff', type: 'employee' }, 'groupKey'),
  departmentKey: (ctx) => made(ctx, '/v1/departments', { name: 'Sweep department' }, 'departmentKey'),
  shiftKey: (ctx) => made(ctx, '/v1/attendance/shifts', sweepShift, 'shiftKey'),
  scheduleKey: (ctx) => made(ctx, '/v1/schedules', sweepSchedule, 'scheduleKey'),
  attendanceGroupKey: async (ctx) => {
    const shiftKey = await made(ctx, '/v1/attendance/shifts', sweepShift, 'shiftKey');
    return made(ctx, '/v1/attendance/groups', sweepAttendanceGroup(shiftKey), 'attendanceGroupKey');
  },
  holidayKey: (ctx) => made(ctx, '/v1/attendance/holidays', { name: 'Sweep holiday', start: '2026-10-01', end: '2026-10-03', workday: false }, 'holidayKey'),
  employeeKey: async (ctx) => {
    const groupKey = await made(ctx, '/v1/groups', { name: 'Sweep employees', type: 'employee' }, 'groupKey');
    return made(
      ctx,
      '/v1/employees',
      { personId: unique('E'), name: 'Sweep Employee', role: 'Staff', gender: 'female', groupKey, icCard: unique('C') },
      'employeeKey',
    );
  },
  visitorKey: async (ctx) => {
    const groupKey = await made(ctx, '/v1/groups', { name: 'Sweep visitors', type: 'visitor' }, 'groupKey');
    return made(ctx, '/v1/visitors', { personId: unique('V'), name: 'Sweep Visitor', role: 'Guest', gender: 'male', groupKey }, 'visitorKey');
  },
  jobKey: (ctx) => made(ctx, '/v1/employees/imports/jobs', { step: 'info', filename: 'sweep.xlsx', size: 1000 }, 'jobKey'),
  // A photo uploaded and waiting to be completed.
  uploadKey: async (ctx) => {
    const bytes = makePng(640, 480);
    const answer = await call<{ uploadKey: string; upload: { url: string; method: string; headers: Record<string, string> } }>(
      'POST',
      '/v1/files/uploads/presign',
      {
        token: ctx.token,
        body: { kind: 'avatar', filename: 'sweep.png', size: bytes.length, contentType: 'image/png' },
      },
    );
    if (answer.body.code !== 201) throw new Error(`fixture presign answered ${answer.status}: ${answer.body.message}`);
    const { upload, uploadKey } = answer.body.data;
    const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: new Uint8Array(bytes) });
    if (!put.ok) throw new Error(`fixture upload answered ${put.status}`);
    return uploadKey;
  },
  // A client package uploaded and waiting to be completed.
  packageKey: async (ctx) => {
    const bytes = await zip([{ name: 'AndroidManifest.xml', data: Buffer.from('<manifest/>') }]);
    const answer = await call<{ packageKey: string; upload: { url: string; method: string; headers: Record<string, string> } }>(
      'POST',
      '/v1/settings/system/packages',
      {
        token: ctx.token,
        body: { version: '3.2.1', filename: 'sweep.apk', size: bytes.length },
      },
    );
    if (answer.body.code !== 201) throw new Error(`fixture package presign answered ${answer.status}: ${answer.body.message}`);
    const { upload, packageKey } = answer.body.data;
    const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: new Uint8Array(bytes) });
    if (!put.ok) throw new Error(`fixture package upload answered ${put.status}`);
    return packageKey;
  },
  accountKey: (ctx) => made(ctx, '/v1/accounts', { username: unique('sweep'), email: 'sweep@example.test', authCodes: [], invite: true }, 'accountKey'),
  // A test mail the service's sender could not deliver: a failed mail record that may be resent.
  mailKey: async (ctx) => {
    const answer = await call<{ ok: boolean; mailKey: string }>('POST', '/v1/settings/email/test', { token: ctx.token, body: { to: 'sweep@nowhere.invalid' } });
    if (answer.body.data?.ok !== false) throw new Error(`fixture test mail answered ${answer.status}: ${answer.body.message}`);
    return answer.body.data.mailKey;
  },
  deviceKey: async (ctx) => {
    const { serial, ...info } = simulatedInfo(unique('SWEEP').toUpperCase(), 1);
    const answer = await call<{ deviceKey: string }>('POST', '/v1/devices/bind', { body: { userCode: (ctx as Tenant).userCode, serial, info } });
    if (answer.body.code !== 201) throw new Error(`fixture bind answered ${answer.status}: ${answer.body.message}`);
    return answer.body.data.deviceKey;
  },
  // An open survey on the fixture terminal (made before it: the device routes come first).
  questionnaireKey: async (ctx) => {
    const key = await made(ctx, '/v1/questionnaires', sweepQuestionnaire((ctx as Tenant).keys.deviceKey!), 'questionnaireKey');
    const opened = await call('POST', `/v1/questionnaires/${key}/open`, { token: ctx.token, body: { version: 1 } });
    if (opened.body.code !== 201) throw new Error(`fixture questionnaire open answered ${opened.status}: ${opened.body.message}`);
    return key;
  },
  // A terminal asking to be added again under the serial number of a device the tenant deleted.
  requestKey: async (ctx) => {
    const { serial, ...info } = simulatedInfo(unique('SWEEPR').toUpperCase(), 1);
    const bind = () => call<{ deviceKey: string }>('POST', '/v1/devices/bind', { body: { userCode: (ctx as Tenant).userCode, serial, info } });
    const first = await bind();
    const device = await call<{ version: number }>('GET', `/v1/devices/${first.body.data.deviceKey}`, { token: ctx.token });
    await call('DELETE', `/v1/devices/${first.body.data.deviceKey}?version=${device.body.data.version}`, { token: ctx.token });
    const again = await bind();
    if (again.body.code !== 202) throw new Error(`fixture bind again answered ${again.status}: ${again.body.message}`);
    return again.body.data.deviceKey;
  },
  // A blacklist pass record of the tenant (what a terminal's upload stores), read by both record routes.
  recordKey: async (ctx) => {
    const now = new Date();
    const record = {
      tenantId: ctx.tenantId,
      deviceKey: 'sweepdevice00001',
      recordId: unique('r'),
      time: now.toISOString(),
      verifyTime: now.toISOString(),
      day: now.toISOString().slice(0, 10),
      name: 'Sweep Record',
      nameLower: 'sweep record',
      type: 'blacklist' as const,
      measured: false,
      fever: false,
      passState: 'refused' as const,
      source: 'face' as const,
      ttl: Math.floor(now.getTime() / 1000) + 86_400,
    };
    await storeRecord(record, now.getUTCHours());
    return recordKeyOf(record);
  },
  // A door station of the tenant (the intercom routes come after the face terminals').
  intercomKey: async (ctx) => {
    const { serial, ...info } = simulatedInfo(unique('SWEEPI').toUpperCase(), 1);
    const answer = await call<{ deviceKey: string }>('POST', '/v1/devices/bind', {
      body: { kind: 'doorStation', userCode: (ctx as Tenant).userCode, serial, info },
    });
    if (answer.body.code !== 201) throw new Error(`fixture intercom bind answered ${answer.status}: ${answer.body.message}`);
    return answer.body.data.deviceKey;
  },
  // A live, answered call the fixture door station reported, with a recording announced.
  callKey: async (ctx) => {
    const deviceKey = (ctx as Tenant).keys.intercomKey!;
    const now = new Date();
    const callId = unique('sweepcall');
    await storeCallEnd({
      tenantId: ctx.tenantId,
      callId,
      answeredStatus: 1,
      ttl: Math.floor(now.getTime() / 1000) + 86_400,
      end: {
        deviceKey,
        direction: 'outgoing',
        status: 2,
        startTime: new Date(now.getTime() - 10_000).toISOString(),
        answerTime: new Date(now.getTime() - 5000).toISOString(),
        live: true,
        peerNumber: '101',
        recordingKey: `recording/${deviceKey}/${callId}.wav`,
        recordingType: 'audio/wav',
        recordingSize: 100,
        time: now.toISOString(),
      },
    });
    return `${deviceKey}.${callId}`;
  },
  // A webhook to a receiver of this process that takes every delivery.
  webhookKey: async (ctx) => {
    receiver ??= startWebhookReceiver();
    const answer = await call<{ webhook: { webhookKey: string } }>('POST', '/v1/webhooks', {
      token: ctx.token,
      body: { url: (await receiver).url('/sweep'), events: ['authorization.syncFailed'] },
      confirm: true,
    });
    if (answer.body.code !== 201) throw new Error(`fixture webhook answered ${answer.status}: ${answer.body.message}`);
    return answer.body.data.webhook.webhookKey;
  },
  // A test event of the fixture webhook (made before it: its routes come first).
  deliveryKey: async (ctx) => {
    const answer = await call<{ deliveryKey: string }>('POST', `/v1/webhooks/${(ctx as Tenant).keys.webhookKey!}/test`, { token: ctx.token });
    if (answer.body.code !== 202) throw new Error(`fixture test event answered ${answer.status}: ${answer.body.message}`);
    // Delivered before the sweep reads the company, so nothing of it changes while the sweep compares.
    const path = `/v1/webhooks/${(ctx as Tenant).keys.webhookKey!}/deliveries?status=delivered`;
    const done = await until(
      () => call<{ items: { deliveryKey: string }[] }>('GET', path, { token: ctx.token }),
      (page) => page.body.data.items.some((d) => d.deliveryKey === answer.body.data.deliveryKey),
    );
    if (!done.body.data.items.length) throw new Error('fixture test event was not delivered');
    return answer.body.data.deliveryKey;
  },
  // An API key of the company (the people-only routes that manage keys need one).
  apiKeyKey: async (ctx) => {
    const answer = await call<{ apiKey: { apiKeyKey: string } }>('POST', '/v1/apiKeys', { token: ctx.token, body: { name: 'Sweep key', authCodes: ['pass:visitor'] }, confirm: true });
    if (answer.body.code !== 201) throw new Error(`fixture API key answered ${answer.status}: ${answer.body.message}`);
    return answer.body.data.apiKey.apiKeyKey;
  },
  // The fixture employee on the fixture device (both made before it: their routes come first).
  authorityKey: async (ctx) => {
    const { employeeKey, deviceKey } = (ctx as Tenant).keys;
    const answer = await call('POST', '/v1/authorities', {
      token: ctx.token,
      body: { setType: 0, personKeys: [employeeKey], deviceKeys: [deviceKey], validity: { permanent: true } },
    });
    if (answer.body.code !== 201) throw new Error(`fixture grant answered ${answer.status}: ${answer.body.message}`);
    return `0.${employeeKey}.${deviceKey}`;
  },
};

/**
 * Request bodies (and queries) that would succeed for the owner of the target's records, so a
 * refusal is about access, not validation.
 */
export const bodies: Record<string, (ctx: Tenant) => unknown> = {
  'POST /v1/groups': () => ({ name: 'Sweep group', type: 'employee' }),
  'PATCH /v1/groups/{groupKey}': () => ({ name: 'Renamed by sweep', version: 1 }),
  'POST /v1/departments': () => ({ name: 'Sweep department' }),
  'PATCH /v1/departments/{departmentKey}': () => ({ name: 'Renamed by sweep', version: 1 }),
  'POST /v1/attendance/shifts': () => ({ ...sweepShift, name: 'Intruder shift' }),
  'PATCH /v1/attendance/shifts/{shiftKey}': () => ({ ...sweepShift, name: 'Renamed by sweep', version: 1 }),
  'POST /v1/schedules': () => ({ ...sweepSchedule, name: 'Intruder schedule' }),
  'PATCH /v1/schedules/{scheduleKey}': () => ({ name: 'Renamed by sweep', version: 1 }),
  'POST /v1/attendance/groups': (t) => ({ ...sweepAttendanceGroup(t.keys.shiftKey!), name: 'Intruder group' }),
  'PATCH /v1/attendance/groups/{attendanceGroupKey}': (t) => ({ ...sweepAttendanceGroup(t.keys.shiftKey!), name: 'Renamed by sweep', version: 1 }),
  'POST /v1/attendance/recompute': () => ({ from: '2026-01-01', to: '2026-01-03' }),
  'POST /v1/attendance/holidays': () => ({ name: 'Intruder holiday', start: '2026-12-24', end: '2026-12-26', workday: false }),
  'PATCH /v1/attendance/holidays/{holidayKey}': () => ({ name: 'Renamed by sweep', start: '2026-10-01', end: '2026-10-02', workday: false, version: 1 }),
  'POST /v1/employees': (t) => ({ personId: unique('E'), name: 'Intruder', role: 'Staff', gender: 'male', groupKey: t.keys.groupKey }),
  'PATCH /v1/employees/{employeeKey}': () => ({ name: 'Renamed by sweep', version: 1 }),
  'POST /v1/employees/{employeeKey}/resign': () => ({ version: 1 }),
  'POST /v1/employees/{employeeKey}/entry': () => ({ version: 1 }),
  'POST /v1/employees/imports/jobs': () => ({ step: 'info', filename: 'sweep.xlsx', size: 1000 }),
  'POST /v1/visitors/imports/jobs': () => ({ step: 'avatars', filename: 'sweep.zip', size: 1000 }),
  'POST /v1/files/uploads/presign': () => ({ kind: 'avatar', filename: 'sweep.png', size: 1000, contentType: 'image/png' }),
  'POST /v1/visitors': (t) => ({ personId: unique('V'), name: 'Intruder', role: 'Guest', gender: 'male', groupKey: t.keys.groupKey }),
  'PATCH /v1/visitors/{visitorKey}': () => ({ name: 'Renamed by sweep', version: 1 }),
  'PATCH /v1/devices/{deviceKey}': () => ({ name: 'Renamed by sweep', settings: { volume: 11 }, version: 1 }),
  'PATCH /v1/intercom/devices/{intercomKey}': () => ({ name: 'Renamed by sweep', number: '42', version: 1 }),
  'POST /v1/intercom/calls/exports': () => ({ status: 2 }),
  'POST /v1/questionnaires': (t) => ({ ...sweepQuestionnaire(t.keys.deviceKey!), title: 'Intruder survey' }),
  'PATCH /v1/questionnaires/{questionnaireKey}': () => ({ title: 'Renamed by sweep', version: 2 }),
  'POST /v1/questionnaires/{questionnaireKey}/open': () => ({ version: 2 }),
  'POST /v1/questionnaires/{questionnaireKey}/close': () => ({ version: 2 }),
  'POST /v1/questionnaires/{questionnaireKey}/results/exports': (t) => ({ deviceKey: t.keys.deviceKey, result: 'abnormal' }),
  'POST /v1/surveys/open': () => ({ token: `${'a'.repeat(12)}.${'b'.repeat(16)}.${'C'.repeat(43)}` }),
  'POST /v1/surveys/answers': () => ({ token: `${'a'.repeat(12)}.${'b'.repeat(16)}.${'C'.repeat(43)}`, answers: [{ choices: [1] }] }),
  'POST /v1/devices/batchSettings': (t) => ({ deviceKeys: [t.keys.deviceKey], settings: { volume: 12 } }),
  'PUT /v1/doorModes': (t) => ({ mode: 'lockdown', scope: { deviceKeys: [t.keys.deviceKey] }, reason: 'Sweep' }),
  'PUT /v1/doorModes/exemptions': (t) => ({ personKeys: [t.keys.employeeKey], version: 0 }),
  'POST /v1/devices/{deviceKey}/commands': () => ({ type: 'openDoor' }),
  'POST /v1/devices/{deviceKey}/replacement': () => ({ version: 1 }),
  'POST /v1/devices/requests/{requestKey}': () => ({ version: 1 }),
  'POST /v1/licences': () => ({ activationCode: licenceCode({ seats: 1 }) }),
  'POST /v1/accounts': () => ({ username: unique('intruder'), email: 'intruder@example.test', authCodes: [], invite: true }),
  'PATCH /v1/accounts/{accountKey}': () => ({ nickname: 'Renamed by sweep', version: 1 }),
  'POST /v1/accounts/{accountKey}/password': () => ({ invite: true }),
  'PATCH /v1/licences/reminder': () => ({ reminderDays: 10 }),
  'PUT /v1/settings/email': () => ({ senderName: 'Sweep', recipients: ['sweep@example.test'], feverAlert: true, version: 0 }),
  'POST /v1/settings/email/test': () => ({ to: 'sweep@example.test' }),
  'POST /v1/settings/system/packages': () => ({ version: '3.2.1', filename: 'sweep.apk', size: 1000 }),
  'POST /v1/authorities': (t) => ({ setType: 0, personKeys: [t.keys.employeeKey], deviceKeys: [t.keys.deviceKey], validity: { permanent: true } }),
  'POST /v1/authorities/check': (t) => ({ setType: 1, personKeys: [t.keys.employeeKey], deviceKeys: [t.keys.deviceKey] }),
  'POST /v1/authorities/sync/retry': (t) => ({ authorityKeys: [t.keys.authorityKey] }),
  'PATCH /v1/authorities/{authorityKey}': () => ({ validity: { permanent: true }, version: 1 }),
  'POST /v1/passRecords/exports': (t) => ({ deviceKey: t.keys.deviceKey, type: 'stranger' }),
  'POST /v1/blacklistRecords/exports': (t) => ({ deviceKey: t.keys.deviceKey }),
  'POST /v1/systems/invitation': () => ({ securityId: 'sweep', token: 'A'.repeat(43), password: 'c3dlZXA=' }),
  'POST /v1/webhooks': () => ({ url: 'https://localhost:9/intruder', events: ['pass.record'] }),
  'PATCH /v1/webhooks/{webhookKey}': () => ({ description: 'Renamed by sweep', version: 1 }),
  'POST /v1/webhooks/{webhookKey}/secret': () => ({ version: 1 }),
  'POST /v1/apiKeys': () => ({ name: 'Intruder key', authCodes: ['pass:visitor'] }),
  'POST /v1/apiKeys/{apiKeyKey}/secret': () => ({ version: 1 }),
  'POST /v1/webhooks/{webhookKey}/replay': () => ({ from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString(), status: 'any' }),
  'PUT /v1/settings/twoFactor': () => ({ requireTwoFactor: false }),
  'PUT /v1/settings/privacy': () => ({
    saveTemperature: false,
    savePhotos: false,
    saveVisitorName: false,
    retentionDays: { passRecords: 30, captures: 30, recordings: 30 },
    version: 1,
  }),
};
export const queries: Record<string, string> = {
  'GET /v1/groups': '?type=employee',
  'GET /v1/attendance/daily': '?from=2026-01-01&to=2026-01-02',
  'GET /v1/attendance/monthly': '?month=2026-01',
  'GET /v1/attendance/daily/export': '?from=2026-01-01&to=2026-01-02',
  'GET /v1/attendance/monthly/export': '?month=2026-01',
  'GET /v1/pickers/people': '?type=employee&keyword=a',
  'GET /v1/pickers/groups': '?type=device',
  'GET /v1/systems/invitation': `?token=${'A'.repeat(43)}`,
  'GET /v1/mailRecords': '?status=failed&group=test',
  'GET /v1/passRecords': '?passState=refused&temperature=fever&keyword=a',
  'GET /v1/blacklistRecords': '?passState=refused',
  'DELETE /v1/groups/{groupKey}': '?version=1',
  'DELETE /v1/departments/{departmentKey}': '?version=1',
  'DELETE /v1/attendance/shifts/{shiftKey}': '?version=1',
  'DELETE /v1/schedules/{scheduleKey}': '?version=1',
  'DELETE /v1/attendance/groups/{attendanceGroupKey}': '?version=1',
  'DELETE /v1/attendance/holidays/{holidayKey}': '?version=1',
  'DELETE /v1/employees/{employeeKey}': '?version=1',
  'DELETE /v1/visitors/{visitorKey}': '?version=1',
  'DELETE /v1/devices/{deviceKey}': '?version=1',
  'DELETE /v1/intercom/devices/{intercomKey}': '?version=1',
  'DELETE /v1/questionnaires/{questionnaireKey}': '?version=2',
  'GET /v1/questionnaires': '?state=open&keyword=sweep',
  'GET /v1/questionnaires/{questionnaireKey}/results': '?result=abnormal',
  'GET /v1/intercom/calls': '?status=2',
  'GET /v1/intercom/devices': '?kind=doorStation',
  'DELETE /v1/devices/{deviceKey}/replacement': '?version=1',
  'DELETE /v1/devices/requests/{requestKey}': '?version=1',
  'DELETE /v1/accounts/{accountKey}': '?version=1',
  'DELETE /v1/authorities/{authorityKey}': '?version=1',
  'GET /v1/authorities': '?setType=1',
  'DELETE /v1/webhooks/{webhookKey}': '?version=1',
  'DELETE /v1/apiKeys/{apiKeyKey}': '?version=1',
  'GET /v1/webhooks/{webhookKey}/deliveries': '?status=retrying&event=webhook.test',
};

export function pathFor(route: RouteEntry, keys: Record<string, string>): string {
  return route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(keys[name] ?? 'missing'));
}

export const paramsOf = (route: RouteEntry): string[] => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

export interface Tenant extends Ctx {
  name: string;
  username: string;
  password: string;
  userCode: string;
  /** Keys of this tenant's fixture records, by path parameter name. */
  keys: Record<string, string>;
}

export async function fixtureTenant(name: string, username: string, password: string): Promise<Tenant> {
  const user = await login(username, password);
  const t: Tenant = { name, username, password, tenantId: user.token.split('.')[0]!, userCode: user.userCode, token: user.token, keys: {} };
  // Binding a terminal (the deviceKey fixture) takes a licence seat.
  await grantSeats(user.token, 5);
  for (const param of new Set(routes.flatMap(paramsOf))) {
    const make = fixtures[param];
    if (make) t.keys[param] = await make(t);
  }
  return t;
}

export async function send(route: RouteEntry, token: string | undefined, target: Tenant, options: { confirm?: boolean } = {}) {
  const key = routeKey(route);
  const body = bodies[key]?.(target) ?? (route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
  const answer = await call(route.method, pathFor(route, target.keys) + (queries[key] ?? ''), {
    ...(token ? { token } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(options.confirm ? { confirm: true } : {}),
  });
  // A background export or recomputation started in the caller's own company finishes before the next snapshot.
  const jobKey = (answer.body.data as { jobKey?: string } | null)?.jobKey;
  if (answer.body.code === 202 && jobKey && (route.path.endsWith('/exports') || route.path.endsWith('/recompute'))) {
    for (let i = 0; i < 600; i++) {
      const job = await call<{ state: string }>('GET', `${pathFor(route, target.keys)}/${jobKey}`, { token: token! });
      if (job.body.data?.state === 'done' || job.body.data?.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    // The worker gives the company's job slot back after it says done: wait until nothing moves.
    await settled(token!.startsWith('pck_') ? token!.split('_')[1]! : token!.split('.')[0]!);
  }
  return answer;
}

/** What every request changes: when a session or an API key was last used, and the key's count of requests. */
const USE_FIELDS = new Set(['lastSeenAt', 'lastUsedAt', 'windowEndsAt', 'windowCount']);

/** Items as text, without what every request changes (USE_FIELDS), each item's attributes in name order (DynamoDB keeps no order). */
export const withoutUse = (items: unknown): string =>
  JSON.stringify(items, (name, value: unknown) => {
    if (USE_FIELDS.has(name)) return undefined;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });

/** Waits until the tenant's items stay the same for 100 ms (at most 15 s), sessions aside. */
async function settled(tenantId: string): Promise<void> {
  const state = async () => withoutUse(await tenantItems(tenantId));
  let last = await state();
  for (let i = 0; i < 150; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await state();
    if (now === last) return;
    last = now;
  }
}
