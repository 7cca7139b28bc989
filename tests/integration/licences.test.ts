import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { licences } from '@passcloud/functions/data/licences';
import { sendLicenceReminders } from '@passcloud/functions/jobs/licenceReminders';
import { generateLicenceKeys, issueLicenceCode } from '@passcloud/functions/domain/licence';
import type { Locale } from '@passcloud/functions/contract/locales';
import { call, login, mailsTo, newCompany, unique } from '../support/api.ts';
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
interface LicenceList {
  items: LicenceItem[];
  total: number;
  used: number;
  remaining: number;
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
