import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { createAccount } from '@passcloud/functions/data/identity';
import { licences } from '@passcloud/functions/data/licences';
import { sendLicenceReminders } from '@passcloud/functions/jobs/licenceReminders';
import { generateLicenceKeys, issueLicenceCode } from '@passcloud/functions/domain/licence';
import type { Locale } from '@passcloud/functions/contract/locales';
import { call, login, mailsTo, newCompany, registerTenant, unique } from '../support/api.ts';
import { licenceCode } from '../support/licence.ts';

interface LicenceItem {
  licenceId: string;
  code: string;
  mac: string | null;
  state: string;
  seats: number;
  used: number;
  remaining: number;
  expireTime: string;
}
interface Trial {
  state: 'available' | 'active' | 'ended';
  seats: number;
  days: number;
  expireTime: string | null;
}
interface LicenceList {
  items: (LicenceItem & { trial: boolean })[];
  total: number;
  used: number;
  remaining: number;
  usedBy: { faceTerminals: number; intercoms: number };
  trial: Trial;
  reminderDays: number;
}
type Issues = { issues: { path: string; message: string }[] };

async function company(locale?: Locale) {
  const owner = await newCompany(locale ? { locale } : {});
  const token = (await login(owner.username, owner.password)).token;
  return { token, userCode: owner.userCode, tenantId: token.split('.')[0]!, email: owner.email };
}

const list = async (token: string) => (await call<LicenceList>('GET', '/v1/licences', { token })).body.data;
const activate = (token: string, code: string) => call<LicenceItem & Issues>('POST', '/v1/licences', { token, body: { activationCode: code } });

function bind(userCode: string, prefix: string, n = 1, mac?: string) {
  const { serial, ...info } = simulatedInfo(prefix, n);
  return call<{ state: string; deviceKey: string }>('POST', '/v1/devices/bind', { body: { userCode, serial, info: { ...info, ...(mac ? { mac } : {}) } } });
}

describe('licence activation', () => {
  let a: Awaited<ReturnType<typeof company>>;
  beforeAll(async () => {
    a = await company();
  });

  it('activates a signed code and lists it shortened, with its seats', async () => {
    const code = licenceCode({ seats: 20 });
    const answer = await activate(a.token, code);
    expect(answer.body).toMatchObject({ code: 201, data: { seats: 20, used: 0, remaining: 20, state: 'valid', mac: null } });
    const shown = await list(a.token);
    expect(shown.items).toHaveLength(1);
    expect(shown.items[0]!.code).not.toBe(code);
    expect(code.startsWith(shown.items[0]!.code.slice(0, 12))).toBe(true);
    expect(shown).toMatchObject({ total: 20, used: 0, remaining: 20 });
  });

  it('refuses a forged, an expired, a malformed and a reused code, naming the field, and changes nothing', async () => {
    const before = await list(a.token);
    const foreign = issueLicenceCode(generateLicenceKeys().privateKeyPem, {
      id: randomUUID(),
      seats: 1000,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      issuedAt: new Date().toISOString(),
    });
    const code = licenceCode();
    const [payload] = code.split('.').slice(1);
    const tampered = code.replace(payload!, Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), seats: 9999 })).toString('base64url'));
    const expired = licenceCode({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    const cases: [string, RegExp][] = [
      [foreign, /not issued for this service/],
      [tampered, /not issued for this service/],
      [expired, /expired/],
      ['PCL1.not-a-code', /not a licence activation code/],
    ];
    for (const [bad, message] of cases) {
      const answer = await activate(a.token, bad);
      expect(answer.status).toBe(422);
      expect(answer.body.data.issues[0]!.path).toBe('activationCode');
      expect(answer.body.data.issues[0]!.message).toMatch(message);
    }
    const used = licenceCode();
    expect((await activate(a.token, used)).body.code).toBe(201);
    const again = await activate(a.token, used);
    expect(again.status).toBe(422);
    expect(again.body.data.issues[0]!.message).toMatch(/already been used/);
    expect((await list(a.token)).items).toHaveLength(before.items.length + 1);
  });

  it('lets a code activate one company once, even when five try it at the same moment', async () => {
    const companies = await Promise.all(Array.from({ length: 5 }, () => company()));
    const code = licenceCode({ seats: 7 });
    const answers = await Promise.all(companies.map((c) => activate(c.token, code)));
    expect(answers.filter((x) => x.body.code === 201)).toHaveLength(1);
    expect(answers.filter((x) => x.status === 422)).toHaveLength(4);
    const totals = await Promise.all(companies.map(async (c) => (await list(c.token)).total));
    expect(totals.sort()).toEqual([0, 0, 0, 0, 7]);
  });

  it('answers the reminder days and shows a licence inside them as expiring', async () => {
    const b = await company();
    await activate(b.token, licenceCode({ expiresAt: new Date(Date.now() + 10 * 86_400_000).toISOString() }));
    expect((await list(b.token)).items[0]!.state).toBe('expiring');
    expect((await call('PATCH', '/v1/licences/reminder', { token: b.token, body: { reminderDays: 5 } })).body.code).toBe(201);
    expect(await list(b.token)).toMatchObject({ reminderDays: 5, items: [{ state: 'valid' }] });
    const bad = await call<Issues>('PATCH', '/v1/licences/reminder', { token: b.token, body: { reminderDays: 0 } });
    expect(bad.status).toBe(422);
    expect(bad.body.data.issues[0]!.path).toBe('reminderDays');
    expect((await list(b.token)).reminderDays).toBe(5);
  });
});

describe('seats', () => {
  it('refuses binding without a licence in force, and binds nothing', async () => {
    const c = await company();
    const answer = await bind(c.userCode, unique('NL').toUpperCase());
    expect(answer.status).toBe(409);
    expect(answer.body.message).toMatch(/No licence is in force/);
    expect((await call<{ total: number }>('GET', '/v1/devices', { token: c.token })).body.data.total).toBe(0);
  });

  it('never gives more terminals than seats under 12 parallel bindings, and frees a seat with an unbound terminal', async () => {
    const c = await company();
    expect((await activate(c.token, licenceCode({ seats: 3 }))).body.code).toBe(201);
    const prefix = unique('ST').toUpperCase();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => bind(c.userCode, prefix, i + 1)));
    const bound = answers.filter((x) => x.body.code === 201);
    expect(bound).toHaveLength(3);
    const refused = answers.filter((x) => x.status === 409);
    expect(refused).toHaveLength(9);
    expect(refused[0]!.body.message).toMatch(/3 of 3/);
    expect(await list(c.token)).toMatchObject({ total: 3, used: 3, remaining: 0 });
    expect((await call<{ total: number }>('GET', '/v1/devices', { token: c.token })).body.data.total).toBe(3);

    const gone = bound[0]!.body.data.deviceKey;
    const device = (await call<{ version: number }>('GET', `/v1/devices/${gone}`, { token: c.token })).body.data;
    expect((await call('DELETE', `/v1/devices/${gone}?version=${device.version}`, { token: c.token })).body.code).toBe(204);
    expect(await list(c.token)).toMatchObject({ used: 2, remaining: 1 });
    expect((await bind(c.userCode, prefix, 20)).body.code).toBe(201);
    // A terminal binding again under a known serial waits for approval and takes no seat.
    const known = simulatedInfo(prefix, 20);
    expect((await bind(c.userCode, prefix, 20, known.mac)).body.code).toBe(202);
    expect((await list(c.token)).used).toBe(3);
  });

  it('stops binding once every licence has expired', async () => {
    const c = await company();
    const code = licenceCode({ seats: 5 });
    const answer = await activate(c.token, code);
    await licences().patch({ tenantId: c.tenantId, licenceId: answer.body.data.licenceId }).set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).go();
    expect((await list(c.token)).items[0]!.state).toBe('expired');
    const refused = await bind(c.userCode, unique('EX').toUpperCase());
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/No licence is in force/);
  });

  it('gives a MAC-bound licence’s seat to that terminal only', async () => {
    const c = await company();
    const mac = '02:11:22:33:44:55';
    expect((await activate(c.token, licenceCode({ seats: 1, mac: mac.toLowerCase() }))).body.data.mac).toBe(mac);
    expect((await bind(c.userCode, unique('OT').toUpperCase())).status).toBe(409);
    expect((await bind(c.userCode, unique('MB').toUpperCase(), 1, mac)).body.code).toBe(201);
    expect((await list(c.token)).items[0]).toMatchObject({ used: 1, remaining: 0 });
  });
});

const seatsOf = async (token: string) => (await call<Omit<LicenceList, 'items' | 'usedBy' | 'reminderDays'>>('GET', '/v1/licences/seats', { token })).body.data;
const startTrial = (token: string) => call<LicenceItem & { trial: boolean }>('POST', '/v1/licences/trial', { token });

function bindAs(userCode: string, kind: 'faceTerminal' | 'doorStation' | 'indoorMonitor') {
  const { serial, ...info } = simulatedInfo(unique('SK').toUpperCase(), 1);
  return call<{ state: string; deviceKey: string; reason?: string }>('POST', '/v1/devices/bind', { body: { kind, userCode, serial, info } });
}

describe('the free trial', () => {
  it('is granted to a company that registers: 5 seats for 30 days, listed as the trial, and its terminals bind', async () => {
    const registered = await registerTenant();
    const { token, userCode } = await login(registered.username, registered.password);
    const shown = await list(token);
    expect(shown).toMatchObject({ total: 5, used: 0, remaining: 5, trial: { state: 'active', seats: 5, days: 30 } });
    expect(shown.items).toHaveLength(1);
    expect(shown.items[0]).toMatchObject({ trial: true, seats: 5, mac: null });
    const days = (Date.parse(shown.trial.expireTime!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(await seatsOf(token)).toEqual({ total: 5, used: 0, remaining: 5, trial: shown.trial });
    expect((await bind(userCode, unique('TR').toUpperCase())).body.code).toBe(201);
    expect(await seatsOf(token)).toMatchObject({ used: 1, remaining: 4 });
    // Registered with the trial, the company cannot start another.
    const again = await startTrial(token);
    expect(again.status).toBe(409);
    expect(await list(token)).toEqual({
      ...shown,
      used: 1,
      remaining: 4,
      usedBy: { faceTerminals: 1, intercoms: 0 },
      items: [{ ...shown.items[0]!, used: 1, remaining: 4 }],
    });
  });

  it('is started once for a company without one, however many ask at the same moment, and a refused start changes nothing', async () => {
    const c = await company();
    expect((await list(c.token)).trial).toEqual({ state: 'available', seats: 5, days: 30, expireTime: null });
    const answers = await Promise.all(Array.from({ length: 6 }, () => startTrial(c.token)));
    expect(answers.filter((a) => a.body.code === 201)).toHaveLength(1);
    const refused = answers.filter((a) => a.status === 409);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.body.message).toBe('This company has already had its free trial');
    const after = await list(c.token);
    expect(after.items).toHaveLength(1);
    expect(after).toMatchObject({ total: 5, remaining: 5, trial: { state: 'active' } });
    const stored = await licences().query.primary({ tenantId: c.tenantId }).go();
    expect(stored.data).toHaveLength(1);

    expect((await startTrial(c.token)).status).toBe(409);
    expect(await list(c.token)).toEqual(after);
    expect((await licences().query.primary({ tenantId: c.tenantId }).go()).data).toEqual(stored.data);
  });

  it('gives its seats to five devices only, and when it ends its seats end: bound devices stay, no new one binds, no second trial', async () => {
    const c = await company();
    const trial = (await startTrial(c.token)).body.data;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => bind(c.userCode, unique(`T${i}`).toUpperCase())));
    expect(answers.filter((a) => a.body.code === 201)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(3);

    await licences()
      .patch({ tenantId: c.tenantId, licenceId: trial.licenceId })
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .go();
    const ended = await list(c.token);
    expect(ended).toMatchObject({ total: 0, used: 0, remaining: 0, trial: { state: 'ended' }, items: [{ trial: true, state: 'expired', used: 5 }] });
    const refused = await bind(c.userCode, unique('TE').toUpperCase());
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/No licence is in force/);
    expect((await call<{ total: number }>('GET', '/v1/devices', { token: c.token })).body.data.total).toBe(5);
    expect((await startTrial(c.token)).status).toBe(409);
    expect(await list(c.token)).toEqual(ended);
  });

  it('is stated in the service terms, in the reader’s language', async () => {
    const terms = async (locale: string) => (await call<{ content: string }>('GET', `/v1/systems/terms?locale=${locale}`)).body.data.content;
    expect(await terms('en_US')).toMatch(/free trial of 5 seats for 30 days, once/);
    expect(await terms('de_DE')).toMatch(/5 Plätzen für 30 Tage/);
    expect(await terms('ja_JP')).toMatch(/5 シート・30 日間/);
  });
});

describe('what takes a seat', () => {
  it('counts face terminals and intercoms alike, says which hold the seats, and refuses either kind once they are taken', async () => {
    const c = await company();
    expect((await activate(c.token, licenceCode({ seats: 5 }))).body.code).toBe(201);
    const kinds = ['faceTerminal', 'faceTerminal', 'doorStation', 'indoorMonitor', 'indoorMonitor'] as const;
    for (const kind of kinds) expect((await bindAs(c.userCode, kind)).body.code).toBe(201);
    expect(await list(c.token)).toMatchObject({ total: 5, used: 5, remaining: 0, usedBy: { faceTerminals: 2, intercoms: 3 } });
    expect(await seatsOf(c.token)).toMatchObject({ total: 5, used: 5, remaining: 0 });
    for (const kind of ['faceTerminal', 'doorStation'] as const) {
      const refused = await bindAs(c.userCode, kind);
      expect(refused.status).toBe(409);
      expect(refused.body.message).toMatch(/5 of 5/);
    }
    expect((await call<{ total: number }>('GET', '/v1/devices', { token: c.token })).body.data.total).toBe(2);
    expect((await call<{ total: number }>('GET', '/v1/intercom/devices', { token: c.token })).body.data.total).toBe(3);
    expect((await list(c.token)).usedBy).toEqual({ faceTerminals: 2, intercoms: 3 });
  });

  it('shows the seats to those who manage devices, and not to an account without device or licence rights', async () => {
    const c = await company();
    await activate(c.token, licenceCode({ seats: 3 }));
    const make = async (authCodes: ('pass:device' | 'pass:employee')[]) => {
      const username = unique('seat');
      await createAccount(c.tenantId, { username, password: 'correct-horse-9', authCodes, email: `${username}@example.test` });
      return (await login(username, 'correct-horse-9')).token;
    };
    expect(await seatsOf(await make(['pass:device']))).toMatchObject({ total: 3, remaining: 3, trial: { state: 'available' } });
    expect((await call('GET', '/v1/licences/seats', { token: await make(['pass:employee']) })).status).toBe(401);
  });
});

describe('reminders', () => {
  it('mails one reminder per licence and threshold before expiry, to the owner when no recipients are set', async () => {
    const c = await company();
    await activate(c.token, licenceCode({ seats: 4, expiresAt: new Date(Date.now() + 10 * 86_400_000).toISOString() }));
    await activate(c.token, licenceCode({ seats: 4, expiresAt: new Date(Date.now() + 200 * 86_400_000).toISOString() }));
    await sendLicenceReminders();
    await sendLicenceReminders();
    const mails = await mailsTo(c.email);
    const reminders = mails.filter((m) => /licence expires/.test(m.subject));
    expect(reminders).toHaveLength(1);
    expect(reminders[0]!.text).toMatch(/\(4 terminals\).*in 10 days/);
    // A new threshold is a new reminder, once.
    await call('PATCH', '/v1/licences/reminder', { token: c.token, body: { reminderDays: 12 } });
    await sendLicenceReminders();
    await sendLicenceReminders();
    expect((await mailsTo(c.email)).filter((m) => /licence expires/.test(m.subject))).toHaveLength(2);
    const records = (await call<{ items: { group: string; to: string; name: string | null }[] }>('GET', '/v1/mailRecords?group=licenceReminder', { token: c.token })).body.data.items;
    expect(records.map((r) => r.to)).toEqual([c.email, c.email]);
    // The record's name is what the mail is about: the licence, by its short code.
    expect(records.every((r) => !!r.name && reminders[0]!.text.includes(r.name))).toBe(true);
  });

  it('writes the reminder in the language the company registered in', async () => {
    const c = await company('ja_JP');
    await activate(c.token, licenceCode({ seats: 2, expiresAt: new Date(Date.now() + 5 * 86_400_000).toISOString() }));
    await sendLicenceReminders();
    const [reminder] = (await mailsTo(c.email)).filter((m) => /ライセンス/.test(m.subject));
    expect(reminder?.subject).toMatch(/5 日/);
  });
});
