import '../support/localEnv.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { liveTopics, type LiveConnection, type LiveQuestionnaireMessage } from '@passcloud/functions/contract/live';
import {
  QUESTIONNAIRES_SHADOW_KEY,
  deviceAuthorization,
  type BindResult,
  type DeviceQuestionnaires,
  type QuestionnaireLink,
} from '@passcloud/functions/contract/protocol';
import type { QuestionnaireItem, QuestionnairePage, QuestionnaireResultPage, SurveyForm } from '@passcloud/functions/contract/questionnaires';
import type { RecordExportJob } from '@passcloud/functions/contract/passRecords';
import { dynamo } from '@passcloud/functions/lib/aws';
import { getShadow } from '@passcloud/functions/lib/iot';
import { readFirstSheet } from '@passcloud/functions/lib/xlsx';
import { EVENTS_TABLE, tableName } from '@passcloud/functions/data/tables';
import { findRevision } from '@passcloud/functions/data/questionnaires';
import { seedDemoQuestionnaires } from '@passcloud/infra/local/demoQuestionnaires';
import { addDays, dayOf } from '@passcloud/functions/domain/time';
import { baseUrl, call, login, mailsTo, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { throttles } from '@passcloud/functions/data/throttles';
import { SYSTEM_SCOPE } from '@passcloud/functions/data/tables';
import { request } from 'node:http';
import { until } from '../support/wait.ts';

type Issues = { issues: { path: string; message: string }[]; reason?: string };

interface Terminal {
  deviceKey: string;
  thing: string;
  auth: string;
}

let token: string;
let tenantId: string;
let userCode: string;
let a: Terminal;
let b: Terminal;
let c: Terminal;
let groupKey: string;
const clients: MqttClient[] = [];

async function bind(code: string, kind?: 'doorStation'): Promise<Terminal> {
  const { serial, ...info } = simulatedInfo(unique('QS').toUpperCase(), 1);
  const answer = await call<BindResult>('POST', '/v1/devices/bind', { body: { userCode: code, serial, info, ...(kind ? { kind } : {}) } });
  expect(answer.body.code, answer.body.message).toBe(201);
  const d = answer.body.data;
  return { deviceKey: d.deviceKey, thing: d.thingName, auth: deviceAuthorization(d.thingName, d.mqtt.password) };
}

const survey = (over: Record<string, unknown> = {}) => ({
  title: 'Health declaration',
  mode: 'screen',
  displaySeconds: 30,
  scope: { deviceKeys: [a.deviceKey], groupKeys: [groupKey] },
  questions: [
    { text: 'Do you have a fever?', type: 'single', mandatory: true, options: [{ text: 'No' }, { text: 'Yes', alarm: true }] },
    { text: 'Where have you been?', type: 'text', mandatory: true },
    { text: 'Symptoms', type: 'multiple', options: [{ text: 'Cough', alarm: true }, { text: 'Headache' }, { text: 'None' }] },
  ],
  ...over,
});

async function create(body: unknown, as = token): Promise<QuestionnaireItem> {
  const answer = await call<QuestionnaireItem>('POST', '/v1/questionnaires', { token: as, body });
  expect(answer.body.code, answer.body.message).toBe(201);
  return answer.body.data;
}
async function setState(q: QuestionnaireItem, state: 'open' | 'close', as = token): Promise<QuestionnaireItem> {
  const answer = await call<QuestionnaireItem>('POST', `/v1/questionnaires/${q.questionnaireKey}/${state}`, { token: as, body: { version: q.version } });
  expect(answer.body.code, answer.body.message).toBe(201);
  return answer.body.data;
}
const desired = async (t: Terminal) => (await getShadow(t.thing))?.state.desired?.[QUESTIONNAIRES_SHADOW_KEY];
const surveysOf = async (t: Terminal) =>
  (await call<DeviceQuestionnaires>('GET', '/v1/deviceSync/questionnaires', { headers: { authorization: t.auth } })).body.data;
const answerOn = (t: Terminal, body: Record<string, unknown>) =>
  call<{ stored: string; result: string } & Issues>('POST', '/v1/deviceSync/questionnaireAnswers', { headers: { authorization: t.auth }, body });
const results = async (q: QuestionnaireItem, query = '') =>
  (await call<QuestionnaireResultPage>('GET', `/v1/questionnaires/${q.questionnaireKey}/results${query}`, { token })).body.data;
const linkFor = (t: Terminal, q: QuestionnaireItem) =>
  call<QuestionnaireLink & Issues>('POST', '/v1/deviceSync/questionnaireLinks', {
    headers: { authorization: t.auth },
    body: { questionnaireKey: q.questionnaireKey },
  });
const tokenOf = (url: string) => new URL(url).hash.slice(1);

/** A JSON POST from another loopback address than the tests' own. */
function postFrom(localAddress: string, path: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl()}${path}`, { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

beforeAll(async () => {
  const owner = await newCompany();
  const user = await login(owner.username, owner.password);
  token = user.token;
  tenantId = token.split('.')[0]!;
  userCode = owner.userCode;
  await grantSeats(token, 6);
  [a, b, c] = [await bind(userCode), await bind(userCode), await bind(userCode)];
  const group = await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Entrances', type: 'device' } });
  groupKey = group.body.data.groupKey;
  const device = await call<{ version: number }>('GET', `/v1/devices/${c.deviceKey}`, { token });
  const moved = await call('PATCH', `/v1/devices/${c.deviceKey}`, { token, body: { groupKey, version: device.body.data.version } });
  expect(moved.body.code, moved.body.message).toBe(201);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.endAsync()));
});

describe('questionnaire configuration', () => {
  it('refuses a survey without questions, a choice question without options, an empty title or a duration under 1 s, naming the field; nothing is stored', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ questions: [] }, 'questions'],
      [{ questions: [{ text: 'Pick', type: 'single', options: [] }] }, 'questions.0.options'],
      [{ questions: [{ text: 'Pick', type: 'multiple' }] }, 'questions.0.options'],
      [{ title: '  ' }, 'title'],
      [{ displaySeconds: 0 }, 'displaySeconds'],
      [{ displaySeconds: 0.5 }, 'displaySeconds'],
      [{ questions: [{ text: 'Say', type: 'text', options: [{ text: 'x' }] }] }, 'questions.0.options'],
      [{ scope: { deviceKeys: ['zzzzzzzzzzzzzzzz'], groupKeys: [] } }, 'scope.deviceKeys.0'],
    ];
    for (const [over, path] of cases) {
      const answer = await call<Issues>('POST', '/v1/questionnaires', { token, body: survey(over) });
      expect(answer.status, path).toBe(422);
      expect(answer.body.data.issues.map((i) => i.path)).toContain(path);
      expect(answer.body.data.issues.find((i) => i.path === path)!.message).not.toBe('');
    }
    const list = await call<QuestionnairePage>('GET', '/v1/questionnaires', { token });
    expect(list.body.data.total).toBe(0);
  });

  it('keeps translations that fit the questions, and refuses one that does not, naming it', async () => {
    const ja = {
      title: '健康申告',
      questions: [
        { text: '熱はありますか？', options: ['いいえ', 'はい'] },
        { text: 'どこに行きましたか？', options: [] },
        { text: '症状', options: ['せき', '頭痛', 'なし'] },
      ],
    };
    const short = await call<Issues>('POST', '/v1/questionnaires', {
      token,
      body: survey({ translations: { ja_JP: { ...ja, questions: ja.questions.slice(0, 2) } } }),
    });
    expect(short.status).toBe(422);
    expect(short.body.data.issues[0]!.path).toBe('translations.ja_JP.questions');
    const options = await call<Issues>('POST', '/v1/questionnaires', {
      token,
      body: survey({ translations: { ja_JP: { ...ja, questions: [ja.questions[0], ja.questions[1], { text: '症状', options: ['せき'] }] } } }),
    });
    expect(options.body.data.issues[0]!.path).toBe('translations.ja_JP.questions.2.options');
    const unknown = await call<Issues>('POST', '/v1/questionnaires', { token, body: survey({ translations: { xx_XX: ja } }) });
    expect(unknown.status).toBe(422);
    const made = await create(survey({ title: 'Translated', translations: { ja_JP: ja } }));
    expect(made.translations.ja_JP!.title).toBe('健康申告');
    // Questions changed without their translation no longer fit it: refused, nothing changed.
    const stale = await call<Issues>('PATCH', `/v1/questionnaires/${made.questionnaireKey}`, {
      token,
      body: { questions: survey().questions.slice(0, 1), version: made.version },
    });
    expect(stale.status).toBe(422);
    expect(stale.body.data.issues[0]!.path).toBe('translations.ja_JP.questions');
    expect((await call<QuestionnaireItem>('GET', `/v1/questionnaires/${made.questionnaireKey}`, { token })).body.data.questions).toHaveLength(3);
    await call('DELETE', `/v1/questionnaires/${made.questionnaireKey}?version=${made.version}`, { token });
  });

  it('refuses an intercom in the scope: surveys are for face terminals', async () => {
    const station = await bind(userCode, 'doorStation');
    const answer = await call<Issues>('POST', '/v1/questionnaires', { token, body: survey({ scope: { deviceKeys: [station.deviceKey], groupKeys: [] } }) });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.path).toBe('scope.deviceKeys.0');
  });

  it('refuses to open a survey whose scope covers no terminal, and to delete an open one', async () => {
    const empty = await create(survey({ title: 'Nobody', scope: { deviceKeys: [], groupKeys: [] } }));
    const opened = await call<Issues>('POST', `/v1/questionnaires/${empty.questionnaireKey}/open`, { token, body: { version: empty.version } });
    expect(opened.status).toBe(422);
    expect(opened.body.data.issues[0]!.path).toBe('scope');
    expect((await call<QuestionnaireItem>('GET', `/v1/questionnaires/${empty.questionnaireKey}`, { token })).body.data.state).toBe('closed');
    const gone = await call('DELETE', `/v1/questionnaires/${empty.questionnaireKey}?version=${empty.version}`, { token });
    expect(gone.body.code).toBe(204);
    // Its revisions go with it.
    expect(await findRevision(tenantId, empty.questionnaireKey, 1)).toBeUndefined();
  });
});

describe('delivery to the terminals in scope', () => {
  let q: QuestionnaireItem;

  it('reaches exactly the terminals in scope (a device and a device group’s members) when opened', async () => {
    q = await create(survey());
    expect(q.deviceCount).toBe(2);
    expect(await desired(a)).not.toContain(q.questionnaireKey);
    q = await setState(q, 'open');
    expect(q.state).toBe('open');
    expect(await desired(a)).toBe(`${q.questionnaireKey}.1`);
    expect(await desired(c)).toBe(`${q.questionnaireKey}.1`);
    expect((await desired(b)) ?? '').toBe('');
    const onA = await surveysOf(a);
    expect(onA.items.map((i) => i.questionnaireKey)).toEqual([q.questionnaireKey]);
    expect(onA.token).toBe(`${q.questionnaireKey}.1`);
    expect(onA.items[0]!.questions).toHaveLength(3);
    expect((await surveysOf(b)).items).toEqual([]);
  });

  it('leaves a terminal that moves out of the device group', async () => {
    const device = await call<{ version: number }>('GET', `/v1/devices/${c.deviceKey}`, { token });
    await call('PATCH', `/v1/devices/${c.deviceKey}`, { token, body: { groupKey: null, version: device.body.data.version } });
    expect(await desired(c)).toBe('');
    expect((await surveysOf(c)).items).toEqual([]);
    const back = await call<{ version: number }>('GET', `/v1/devices/${c.deviceKey}`, { token });
    await call('PATCH', `/v1/devices/${c.deviceKey}`, { token, body: { groupKey, version: back.body.data.version } });
    expect(await desired(c)).toBe(`${q.questionnaireKey}.1`);
  });

  it('classifies answers: an alarm option makes the result abnormal; an answer sent twice is stored once', async () => {
    const now = Date.now();
    const normal = await answerOn(a, {
      answerId: 'n-1',
      questionnaireKey: q.questionnaireKey,
      revision: 1,
      answeredAt: now,
      answers: [{ choices: [0] }, { text: 'Home' }, { choices: [1, 2] }],
    });
    expect(normal.body.data).toEqual({ stored: 'stored', result: 'normal' });
    const abnormal = await answerOn(c, {
      answerId: 'x-1',
      questionnaireKey: q.questionnaireKey,
      revision: 1,
      answeredAt: now + 1,
      answers: [{ choices: [0] }, { text: 'Office' }, { choices: [0] }],
    });
    expect(abnormal.body.data).toEqual({ stored: 'stored', result: 'abnormal' });
    const again = await Promise.all(
      [1, 2, 3].map(() =>
        answerOn(c, {
          answerId: 'x-1',
          questionnaireKey: q.questionnaireKey,
          revision: 1,
          answeredAt: now + 1,
          answers: [{ choices: [0] }, { text: 'Office' }, { choices: [0] }],
        }),
      ),
    );
    expect(again.map((r) => r.body.data.stored)).toEqual(['duplicate', 'duplicate', 'duplicate']);
    const page = await results(q);
    expect(page.items).toHaveLength(2);
    const [newest] = page.items;
    expect(newest!.result).toBe('abnormal');
    expect(newest!.deviceKey).toBe(c.deviceKey);
    expect(newest!.source).toBe('screen');
    expect(newest!.answers[2]).toMatchObject({ question: 'Symptoms', choices: ['Cough'], alarm: true });
    expect((await results(q, '?result=abnormal')).items.map((r) => r.deviceKey)).toEqual([c.deviceKey]);
    expect((await results(q, `?deviceKey=${a.deviceKey}`)).items.map((r) => r.result)).toEqual(['normal']);
  });

  it('refuses answers missing a mandatory question (422 naming it), a terminal out of scope (409); nothing is stored', async () => {
    const before = (await results(q)).items.length;
    const missing = await answerOn(a, {
      answerId: 'm-1',
      questionnaireKey: q.questionnaireKey,
      revision: 1,
      answeredAt: Date.now(),
      answers: [{ choices: [0] }, null, null],
    });
    expect(missing.status).toBe(422);
    expect(missing.body.data.issues.map((i) => i.path)).toEqual(['answers.1']);
    const two = await answerOn(a, {
      answerId: 'm-2',
      questionnaireKey: q.questionnaireKey,
      revision: 1,
      answeredAt: Date.now(),
      answers: [{ choices: [0, 1] }, { text: 'x' }, null],
    });
    expect(two.body.data.issues.map((i) => i.path)).toEqual(['answers.0']);
    const outside = await answerOn(b, {
      answerId: 'o-1',
      questionnaireKey: q.questionnaireKey,
      revision: 1,
      answeredAt: Date.now(),
      answers: [{ choices: [0] }, { text: 'x' }, null],
    });
    expect(outside.status).toBe(409);
    expect((await results(q)).items.length).toBe(before);
  });

  it('makes a new revision when an open survey changes; answers keep the revision they answered', async () => {
    const edited = await call<QuestionnaireItem>('PATCH', `/v1/questionnaires/${q.questionnaireKey}`, {
      token,
      body: {
        questions: [{ text: 'Any fever today?', type: 'single', mandatory: true, options: [{ text: 'No' }, { text: 'Yes', alarm: true }] }],
        version: q.version,
      },
    });
    expect(edited.body.code, edited.body.message).toBe(201);
    q = edited.body.data;
    expect(q.revision).toBe(2);
    expect(await desired(a)).toBe(`${q.questionnaireKey}.2`);
    // A terminal that still showed revision 1 answers it; the result keeps revision 1's questions.
    const late = await answerOn(a, {
      answerId: 'r1-late',
      questionnaireKey: q.questionnaireKey,
      revision: 1,
      answeredAt: Date.now(),
      answers: [{ choices: [1] }, { text: 'Lab' }, null],
    });
    expect(late.body.data).toEqual({ stored: 'stored', result: 'abnormal' });
    const current = await answerOn(a, {
      answerId: 'r2',
      questionnaireKey: q.questionnaireKey,
      revision: 2,
      answeredAt: Date.now() + 5,
      answers: [{ choices: [0] }],
    });
    expect(current.body.data.result).toBe('normal');
    const future = await answerOn(a, {
      answerId: 'r3',
      questionnaireKey: q.questionnaireKey,
      revision: 3,
      answeredAt: Date.now(),
      answers: [{ choices: [0] }],
    });
    expect(future.status).toBe(422);
    expect(future.body.data.issues[0]!.path).toBe('revision');
    const page = await results(q);
    expect(page.items[0]).toMatchObject({ revision: 2, answers: [{ question: 'Any fever today?' }] });
    expect(page.items[1]).toMatchObject({
      revision: 1,
      answers: [{ question: 'Do you have a fever?' }, { question: 'Where have you been?', text: 'Lab' }, {}],
    });
    // The same content in another order of keys, with a new scope only, is no new revision.
    const reordered = await call<QuestionnaireItem>('PATCH', `/v1/questionnaires/${q.questionnaireKey}`, {
      token,
      body: {
        questions: [{ options: [{ alarm: false, text: 'No' }, { alarm: true, text: 'Yes' }], mandatory: true, type: 'single', text: 'Any fever today?' }],
        scope: { groupKeys: [groupKey], deviceKeys: [a.deviceKey] },
        version: q.version,
      },
    });
    expect(reordered.body.code, reordered.body.message).toBe(201);
    expect(reordered.body.data.revision).toBe(2);
    q = reordered.body.data;
    // An open survey is not deleted: 409, and it stays open with its revisions.
    const refused = await call('DELETE', `/v1/questionnaires/${q.questionnaireKey}?version=${q.version}`, { token });
    expect(refused.status).toBe(409);
    expect((await call<QuestionnaireItem>('GET', `/v1/questionnaires/${q.questionnaireKey}`, { token })).body.data).toMatchObject({ state: 'open', version: q.version });
    expect(await findRevision(tenantId, q.questionnaireKey, 1)).toBeDefined();
    // A stale version changes nothing.
    const stale = await call('PATCH', `/v1/questionnaires/${q.questionnaireKey}`, { token, body: { title: 'Stale', version: q.version - 1 } });
    expect(stale.status).toBe(409);
  });

  it('leaves every terminal when closed', async () => {
    q = await setState(q, 'close');
    expect(await desired(a)).toBe('');
    expect(await desired(c)).toBe('');
    expect((await surveysOf(a)).items).toEqual([]);
    const late = await answerOn(a, {
      answerId: 'closed-1',
      questionnaireKey: q.questionnaireKey,
      revision: 2,
      answeredAt: Date.now(),
      answers: [{ choices: [0] }],
    });
    expect(late.status).toBe(409);
    // An answer stored before the close, sent again, is still answered as stored.
    const resent = await answerOn(a, {
      answerId: 'r2',
      questionnaireKey: q.questionnaireKey,
      revision: 2,
      answeredAt: Date.now(),
      answers: [{ choices: [0] }],
    });
    expect(resent.body.data).toEqual({ stored: 'duplicate', result: 'normal' });
  });

  it('exports the results to xlsx', async () => {
    const started = await call<{ jobKey: string }>('POST', `/v1/questionnaires/${q.questionnaireKey}/results/exports`, { token, body: {} });
    expect(started.body.code, started.body.message).toBe(202);
    const path = `/v1/questionnaires/${q.questionnaireKey}/results/exports/${started.body.data.jobKey}`;
    const job = await until(
      async () => (await call<RecordExportJob>('GET', path, { token })).body.data,
      (j) => j.state === 'done' || j.state === 'failed',
    );
    expect(job.state).toBe('done');
    const file = Buffer.from(await (await fetch(job.url!)).arrayBuffer());
    const rows = await readFirstSheet(file);
    expect(rows).toHaveLength(1 + 4);
    expect(rows[0]).toContain('Result');
    expect(rows.slice(1).map((r) => r[6])).toContain('Abnormal');
  });
});

describe('QR links', () => {
  let q: QuestionnaireItem;

  beforeAll(async () => {
    const zh = {
      title: '访客申报',
      questions: [
        { text: '您发烧吗？', options: ['否', '是'] },
        { text: '您去过哪里？', options: [] },
        { text: '症状', options: ['咳嗽', '头痛', '没有'] },
      ],
    };
    q = await setState(
      await create(survey({ title: 'Visitor declaration', mode: 'qr', scope: { deviceKeys: [b.deviceKey], groupKeys: [] }, translations: { zh_CN: zh } })),
      'open',
    );
    expect((await surveysOf(b)).items[0]!.translations.zh_CN!.questions[2]!.options).toEqual(['咳嗽', '头痛', '没有']);
  });

  it('gives a terminal in scope a link that opens the survey once, anonymously', async () => {
    const link = await linkFor(b, q);
    expect(link.body.code, link.body.message).toBe(201);
    expect(link.body.data.url).toMatch(/\/survey#/);
    expect(link.body.data.expiresAt).toBeGreaterThan(Date.now());
    const t = tokenOf(link.body.data.url);
    const form = await call<SurveyForm>('POST', '/v1/surveys/open', { body: { token: t } });
    expect(form.body.data.title).toBe('Visitor declaration');
    expect(form.body.data.questions).toHaveLength(3);
    expect(form.body.data.translations.zh_CN!.title).toBe('访客申报');
    const missing = await call<Issues>('POST', '/v1/surveys/answers', { body: { token: t, answers: [null, { text: 'x' }, null] } });
    expect(missing.status).toBe(422);
    expect(missing.body.data.issues[0]!.path).toBe('answers.0');
    expect((await results(q)).items).toHaveLength(0);
    const done = await call('POST', '/v1/surveys/answers', { body: { token: t, answers: [{ choices: [1] }, { text: 'Lobby' }, null] } });
    expect(done.body.code, done.body.message).toBe(201);
    const page = await results(q);
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ source: 'qr', person: null, result: 'abnormal', deviceKey: b.deviceKey });
    // Used: refused, nothing more stored.
    const reused = await call<Issues>('POST', '/v1/surveys/answers', { body: { token: t, answers: [{ choices: [0] }, { text: 'Again' }, null] } });
    expect(reused.status).toBe(409);
    expect(reused.body.data.reason).toBe('used');
    expect((await call<Issues>('POST', '/v1/surveys/open', { body: { token: t } })).body.data.reason).toBe('used');
    expect((await results(q)).items).toHaveLength(1);
  });

  it('answers a link used by two phones at once once', async () => {
    const t = tokenOf((await linkFor(b, q)).body.data.url);
    const tries = await Promise.all(
      [1, 2, 3, 4].map(() => call('POST', '/v1/surveys/answers', { body: { token: t, answers: [{ choices: [0] }, { text: 'Race' }, null] } })),
    );
    expect(tries.filter((r) => r.body.code === 201)).toHaveLength(1);
    expect((await results(q)).items).toHaveLength(2);
  });

  it('refuses a forged or expired link, and links for another terminal or a screen survey; nothing is stored', async () => {
    const t = tokenOf((await linkFor(b, q)).body.data.url);
    const [tenant, linkId, secret] = t.split('.') as [string, string, string];
    const forged = `${tenant}.${linkId}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const other = await call<Issues>('POST', '/v1/surveys/answers', { body: { token: forged, answers: [{ choices: [0] }, { text: 'x' }, null] } });
    expect(other.status).toBe(404);
    expect(other.body.data.reason).toBe('invalid');
    const elsewhere = `${'q'.repeat(12)}.${linkId}.${secret}`;
    expect((await call<Issues>('POST', '/v1/surveys/open', { body: { token: elsewhere } })).status).toBe(404);
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(EVENTS_TABLE),
        Key: { pk: tenantId, sk: `qlink#${linkId}` },
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1000 },
      }),
    );
    const expired = await call<Issues>('POST', '/v1/surveys/answers', { body: { token: t, answers: [{ choices: [0] }, { text: 'x' }, null] } });
    expect(expired.status).toBe(409);
    expect(expired.body.data.reason).toBe('expired');
    expect((await linkFor(a, q)).status).toBe(409);
    const screen = await setState(await create(survey({ title: 'Screen only', scope: { deviceKeys: [b.deviceKey], groupKeys: [] } })), 'open');
    expect((await linkFor(b, screen)).status).toBe(409);
    await setState(screen, 'close');
    expect((await results(q)).items).toHaveLength(2);
  });

  it('throttles guessed links per address: a forged link counts, a working one is given back, and past the limit nothing is looked up', async () => {
    // From an address of its own, so the count is this test's alone.
    const address = '127.0.0.2';
    const key = { tenantId: SYSTEM_SCOPE, scope: 'surveyLinks' as const, subject: address };
    const counted = async () => (await throttles().get(key).go({ consistent: true })).data?.failures ?? 0;
    const t = tokenOf((await linkFor(b, q)).body.data.url);
    const [tenant, linkId, secret] = t.split('.') as [string, string, string];
    const forged = `${tenant}.${linkId}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const before = await counted();
    expect((await postFrom(address, '/v1/surveys/open', { token: forged })).status).toBe(404);
    expect(await counted()).toBe(before + 1);
    expect((await postFrom(address, '/v1/surveys/open', { token: t })).status).toBe(200);
    expect(await counted()).toBe(before + 1);

    const windowEndsAt = Date.now() + 15 * 60_000;
    await throttles().put({ ...key, failures: 100_000, windowEndsAt, ttl: Math.floor(windowEndsAt / 1000) + 60 }).go();
    const stored = (await results(q)).items.length;
    const tries = await Promise.all([1, 2, 3, 4, 5].map(() => postFrom(address, '/v1/surveys/answers', { token: t, answers: [{ choices: [0] }, { text: 'x' }, null] })));
    expect(tries.map((r) => r.status)).toEqual([429, 429, 429, 429, 429]);
    expect((await results(q)).items).toHaveLength(stored);
    expect(await counted()).toBe(100_000);
    await throttles().delete(key).go();
  });

  it('stops a link working once the survey closes', async () => {
    const t = tokenOf((await linkFor(b, q)).body.data.url);
    q = await setState(q, 'close');
    const closed = await call<Issues>('POST', '/v1/surveys/open', { body: { token: t } });
    expect(closed.status).toBe(409);
    expect(closed.body.data.reason).toBe('closed');
  });
});

describe('abnormal results raise alerts', () => {
  it('tells open consoles at once and mails the recipients when the email settings ask for it', async () => {
    const recipient = `${unique('nurse')}@example.test`;
    const current = await call<{ version: number }>('GET', '/v1/settings/email', { token });
    const saved = await call('PUT', '/v1/settings/email', { confirm: true,
      token,
      body: { recipients: [recipient], questionnaireAlert: true, version: current.body.data.version },
    });
    expect(saved.body.code, saved.body.message).toBe(201);
    const live = (await call<LiveConnection>('GET', '/v1/systems/live', { token })).body.data;
    expect(live.topics.questionnaires).toBe(liveTopics(tenantId).questionnaires);
    const client = await mqtt.connectAsync(live.url, { clientId: `${live.clientPrefix}qtest`, username: live.username, password: token, reconnectPeriod: 0 });
    clients.push(client);
    const heard: LiveQuestionnaireMessage[] = [];
    client.on('message', (_topic, payload) => heard.push(JSON.parse(payload.toString()) as LiveQuestionnaireMessage));
    await client.subscribeAsync(live.topics.questionnaires!, { qos: 1 });

    const q = await setState(await create(survey({ title: 'Site entry', scope: { deviceKeys: [a.deviceKey], groupKeys: [] } })), 'open');
    await answerOn(a, {
      answerId: 'ok-1',
      questionnaireKey: q.questionnaireKey,
      revision: 1,
      answeredAt: Date.now(),
      answers: [{ choices: [0] }, { text: 'Home' }, null],
    });
    await answerOn(a, {
      answerId: 'bad-1',
      questionnaireKey: q.questionnaireKey,
      revision: 1,
      answeredAt: Date.now(),
      answers: [{ choices: [1] }, { text: 'Home' }, null],
    });
    await until(
      () => heard.length,
      (n) => n > 0,
    );
    expect(heard).toHaveLength(1);
    expect(heard[0]!.items[0]).toMatchObject({ title: 'Site entry', result: 'abnormal', deviceKey: a.deviceKey });
    const mails = await until(
      () => mailsTo(recipient),
      (found) => found.length > 0,
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('Site entry');
    expect(mails[0]!.text).toContain('Do you have a fever?: Yes');
    await setState(q, 'close');
  });
});

describe('limits under concurrency', () => {
  it('opens at most 10 surveys at once in a company, however many ask together', async () => {
    const other = await newCompany();
    const otherToken = (await login(other.username, other.password)).token;
    await grantSeats(otherToken, 2);
    const terminal = await bind(other.userCode);
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) => create(survey({ title: `S${i}`, scope: { deviceKeys: [terminal.deviceKey], groupKeys: [] } }), otherToken)),
    );
    const opened = await Promise.all(
      made.map((q) => call('POST', `/v1/questionnaires/${q.questionnaireKey}/open`, { token: otherToken, body: { version: q.version } })),
    );
    expect(opened.filter((r) => r.body.code === 201)).toHaveLength(10);
    expect(opened.filter((r) => r.status === 409)).toHaveLength(2);
    const list = await call<QuestionnairePage>('GET', '/v1/questionnaires?state=open&pageSize=50', { token: otherToken });
    expect(list.body.data.total).toBe(10);
    expect((await surveysOf(terminal)).items).toHaveLength(10);
    // However the deliveries interleaved, the terminal's shadow names the ten open surveys.
    expect(String(await desired(terminal)).split(',')).toHaveLength(10);
  });
});

describe('the demo questionnaires', () => {
  it('opens a screen survey on every terminal and a QR survey on one, with days of earlier results, once', async () => {
    const demo = await newCompany();
    const demoToken = (await login(demo.username, demo.password)).token;
    const demoTenant = demoToken.split('.')[0]!;
    await grantSeats(demoToken, 3);
    const terminals = [await bind(demo.userCode), await bind(demo.userCode)];
    const keys = terminals.map((t) => t.deviceKey);
    const stored = await seedDemoQuestionnaires(demoTenant, keys, [], 5);
    expect(stored).toBe(60);
    expect(await seedDemoQuestionnaires(demoTenant, keys, [], 5)).toBe(0);
    const list = (await call<QuestionnairePage>('GET', '/v1/questionnaires?state=open', { token: demoToken })).body.data;
    expect(list.items.map((q) => q.mode).sort()).toEqual(['qr', 'screen']);
    expect((await surveysOf(terminals[0]!)).items).toHaveLength(2);
    expect((await surveysOf(terminals[1]!)).items).toHaveLength(1);
    const health = list.items.find((q) => q.mode === 'screen')!;
    const today = dayOf(new Date(), 'UTC');
    const page = (
      await call<QuestionnaireResultPage>('GET', `/v1/questionnaires/${health.questionnaireKey}/results?from=${addDays(today, -6)}&to=${today}&pageSize=200`, {
        token: demoToken,
      })
    ).body.data;
    expect(page.items).toHaveLength(60);
    const abnormal = page.items.filter((r) => r.result === 'abnormal').length;
    expect(abnormal).toBeGreaterThan(0);
    expect(abnormal).toBeLessThan(30);
  });
});
