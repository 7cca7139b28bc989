import fc from 'fast-check';
import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import {
  SENTENCES,
  generateAnswers,
  parseShadowValue,
  shadowValueOf,
  splitDesired,
  surveyLinkToken,
  type AskedQuestion,
} from '@passcloud/device-shadow/questionnaires';
import { DEFAULT_ABNORMAL_SHARE, surveyAfterPass } from '@passcloud/device-shadow/traffic';
import { newPassRecord } from '@passcloud/device-shadow/records';
import {
  QUESTIONNAIRES_SHADOW_KEY,
  questionnaireAnswerUp,
  shadowTopics,
  type BindResult,
  type DeviceQuestionnaire,
  type DeviceQuestionnaires,
} from '@passcloud/functions/contract/protocol';
import { QUESTIONNAIRE_LIMITS, answers as answersSchema, question, type Answer } from '@passcloud/functions/contract/questionnaires';
import { fromDocument, toDocument } from '@passcloud/functions/contract/shadow';
import { DEFAULT_SETTINGS } from '@passcloud/functions/contract/devices';

/**
 * The simulated terminals' side of questionnaires: the answers a simulated person gives obey the
 * rules the cloud checks (mandatory, one option for `single`, one or more for `multiple`, a short
 * text), alarm options only when asked for, at the share asked for; the shadow value, the QR
 * link's token and the shadow key kept apart from the settings; and a terminal reading its surveys,
 * reporting the token and answering on its screen and through a phone, against a cloud stand-in
 * in place of `fetch` (no network).
 */

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const option = fc.record({ text: fc.constantFrom('Yes', 'No', 'Fever', 'Cough', 'None of these'), alarm: fc.boolean() });
const arbitraryQuestion = fc.oneof(
  fc.record({ text: fc.constant('Anything else?'), type: fc.constant('text' as const), mandatory: fc.boolean(), options: fc.constant([]) }),
  fc.record({
    text: fc.constant('Pick'),
    type: fc.constantFrom('single' as const, 'multiple' as const),
    mandatory: fc.boolean(),
    options: fc.array(option, { minLength: 1, maxLength: QUESTIONNAIRE_LIMITS.options }),
  }),
);
const arbitraryQuestions = fc.array(arbitraryQuestion, { minLength: 1, maxLength: 12 });

/** The rules the cloud checks an answer with, as the contract states them. */
function problems(questions: readonly AskedQuestion[], answers: readonly Answer[]): string[] {
  const out: string[] = [];
  if (answers.length !== questions.length) return ['count'];
  questions.forEach((q, i) => {
    const a = answers[i]!;
    if (a === null) {
      if (q.mandatory) out.push(`${i}: mandatory left out`);
      return;
    }
    if (q.type === 'text') {
      if (!('text' in a) || a.text.trim() === '') out.push(`${i}: text expected`);
      return;
    }
    if (!('choices' in a)) return void out.push(`${i}: choices expected`);
    if (a.choices.length === 0) out.push(`${i}: no choice`);
    if (q.type === 'single' && a.choices.length !== 1) out.push(`${i}: single takes one`);
    if (new Set(a.choices).size !== a.choices.length) out.push(`${i}: a choice twice`);
    if (a.choices.some((c) => c < 0 || c >= (q.options ?? []).length)) out.push(`${i}: no such option`);
  });
  return out;
}

const alarmed = (questions: readonly AskedQuestion[], answers: readonly Answer[]) =>
  answers.some((a, i) => !!a && 'choices' in a && a.choices.some((c) => !!questions[i]!.options?.[c]?.alarm));

describe('generateAnswers', () => {
  it('answers every question by its type, every mandatory one always, and only those the cloud would take', () => {
    fc.assert(
      fc.property(arbitraryQuestions, fc.boolean(), fc.integer(), (raw, abnormal, seed) => {
        const questions = raw.map((q) => question.parse(q));
        const { answers, result } = generateAnswers(questions, { abnormal, random: seeded(seed) });
        expect(problems(questions, answers)).toEqual([]);
        expect(answersSchema.safeParse(answers).success).toBe(true);
        expect(result).toBe(alarmed(questions, answers) ? 'abnormal' : 'normal');
        for (const [i, a] of answers.entries()) if (a && 'text' in a) expect(SENTENCES as readonly string[], `answer ${i}`).toContain(a.text);
      }),
    );
  });

  it('chooses an alarm option when asked to and the survey has one, and avoids them otherwise where it can', () => {
    fc.assert(
      fc.property(arbitraryQuestions, fc.integer(), (raw, seed) => {
        const questions = raw.map((q) => question.parse(q));
        const hasAlarm = questions.some((q) => q.options.some((o) => o.alarm));
        const unavoidable = questions.some((q) => q.mandatory && q.options.length > 0 && q.options.every((o) => o.alarm));
        expect(generateAnswers(questions, { abnormal: true, random: seeded(seed) }).result).toBe(hasAlarm ? 'abnormal' : 'normal');
        expect(generateAnswers(questions, { abnormal: false, random: seeded(seed) }).result).toBe(unavoidable ? 'abnormal' : 'normal');
      }),
    );
  });

  it('gives a single question one option, a multiple one one to three, and leaves optional questions out at times', () => {
    const questions: AskedQuestion[] = [
      { type: 'single', mandatory: true, options: [{}, {}, {}] },
      { type: 'multiple', mandatory: true, options: [{}, {}, {}, {}, {}] },
      { type: 'single', options: [{}, {}] },
      { type: 'text' },
    ];
    const random = seeded(7);
    const sizes = new Set<number>();
    let leftOut = 0;
    for (let n = 0; n < 400; n++) {
      const { answers } = generateAnswers(questions, { abnormal: false, random });
      expect(answers[0]).toMatchObject({ choices: [expect.any(Number)] });
      const multiple = answers[1] as { choices: number[] };
      expect(multiple.choices.length).toBeGreaterThanOrEqual(1);
      expect(multiple.choices).toEqual([...multiple.choices].sort((a, b) => a - b));
      sizes.add(multiple.choices.length);
      if (answers[2] === null) leftOut++;
      if (answers[3] === null) leftOut++;
    }
    expect(sizes).toEqual(new Set([1, 2, 3]));
    // Optional questions are answered at 0.7 by default: about 240 of the 800 left out.
    expect(leftOut).toBeGreaterThan(160);
    expect(leftOut).toBeLessThan(320);
  });
});

describe('surveyAfterPass: who answers in the demo traffic', () => {
  const shown = [{ questionnaireKey: 'q0000001', revision: 1, title: 'Health', mode: 'screen', displaySeconds: 30, questions: [] }];
  const terminal = (items: unknown[]) => ({ questionnaires: { items } }) as unknown as DeviceAgent;

  it('asks only people let through, at the survey share, abnormal about one in eight, within the display time', () => {
    const random = seeded(42);
    let asked = 0;
    let abnormal = 0;
    for (let n = 0; n < 4000; n++) {
      const request = surveyAfterPass(terminal(shown), newPassRecord({ personKey: 'p0000001' }), { surveys: 0.5 }, random);
      if (!request) continue;
      asked++;
      if (request.abnormal) abnormal++;
      expect(request.personKey).toBe('p0000001');
      expect(request.afterMs).toBeGreaterThanOrEqual(0.3 * 20_000);
      expect(request.afterMs).toBeLessThanOrEqual(0.9 * 20_000);
    }
    expect(asked / 4000).toBeGreaterThan(0.45);
    expect(asked / 4000).toBeLessThan(0.55);
    expect(abnormal / asked).toBeGreaterThan(DEFAULT_ABNORMAL_SHARE - 0.03);
    expect(abnormal / asked).toBeLessThan(DEFAULT_ABNORMAL_SHARE + 0.03);
  });

  it('asks strangers let through without a person, and nobody refused or at a terminal showing nothing', () => {
    const random = seeded(3);
    const stranger = surveyAfterPass(terminal(shown), newPassRecord({ passState: 'passed' }), { surveys: 1 }, random);
    expect(stranger).toBeDefined();
    expect(stranger).not.toHaveProperty('personKey');
    expect(surveyAfterPass(terminal(shown), newPassRecord({ passState: 'refused', personKey: 'p0000001' }), { surveys: 1 }, random)).toBeUndefined();
    expect(surveyAfterPass(terminal([]), newPassRecord({ personKey: 'p0000001' }), { surveys: 1 }, random)).toBeUndefined();
    expect(surveyAfterPass(terminal(shown), newPassRecord({ personKey: 'p0000001' }), { surveys: 0 }, random)).toBeUndefined();
  });
});

describe('the shadow value and the QR link', () => {
  it('takes the questionnaires key out of the desired settings, so nothing is logged as ignored', () => {
    const desired = { ...toDocument(DEFAULT_SETTINGS), [QUESTIONNAIRES_SHADOW_KEY]: 'k0000001abc.2,k0000002abc.1' };
    expect(fromDocument(desired).invalid).toEqual([QUESTIONNAIRES_SHADOW_KEY]);
    const { settings, questionnaires } = splitDesired(desired);
    expect(questionnaires).toBe('k0000001abc.2,k0000002abc.1');
    expect(fromDocument(settings).invalid).toEqual([]);
    expect(settings).toEqual(toDocument(DEFAULT_SETTINGS));
    expect(splitDesired({ [QUESTIONNAIRES_SHADOW_KEY]: '' })).toEqual({ settings: {}, questionnaires: '' });
    expect(splitDesired({ volume: 40 })).toEqual({ settings: { volume: 40 }, questionnaires: undefined });
    // A value that is no string is no value of the key: it stays, to be reported as not applied.
    expect(splitDesired({ [QUESTIONNAIRES_SHADOW_KEY]: 3 })).toEqual({ settings: { [QUESTIONNAIRES_SHADOW_KEY]: 3 }, questionnaires: undefined });
  });

  it('reads and writes the value: <questionnaireKey>.<revision>, sorted, comma-separated', () => {
    expect(parseShadowValue('')).toEqual([]);
    expect(parseShadowValue('k0000001abc.2,k0000002abc.1')).toEqual([
      { questionnaireKey: 'k0000001abc', revision: 2 },
      { questionnaireKey: 'k0000002abc', revision: 1 },
    ]);
    for (const bad of ['k0000001abc', 'k0000001abc.0', 'K0000001ABC.1', 'short.1', 'k0000001abc.1,', 'k0000001abc.1 ,k0000002abc.1'])
      expect(parseShadowValue(bad), bad).toBeUndefined();
    expect(
      shadowValueOf([
        { questionnaireKey: 'k0000002abc', revision: 1 },
        { questionnaireKey: 'k0000001abc', revision: 12 },
      ]),
    ).toBe('k0000001abc.12,k0000002abc.1');
    expect(shadowValueOf([])).toBe('');
  });

  it('finds the token after # in the link, and nothing in a link without one', () => {
    const token = `t4n7r2w9k8e5m3t6.01k2j8h9q4r2nv6y.${'A'.repeat(20)}_-${'b9'.repeat(10)}x`;
    expect(token.split('.')[2]).toHaveLength(43);
    expect(surveyLinkToken(`https://d1234.cloudfront.net/survey#${token}`)).toBe(token);
    expect(surveyLinkToken(`http://127.0.0.1:3000/survey#${encodeURIComponent(token)}`)).toBe(token);
    expect(surveyLinkToken('https://d1234.cloudfront.net/survey')).toBeUndefined();
    expect(surveyLinkToken('https://d1234.cloudfront.net/survey#not-a-token')).toBeUndefined();
    expect(surveyLinkToken(`/survey#${token}`)).toBeUndefined();
  });
});

// A terminal against a cloud stand-in

const KEY_SCREEN = 'qscreen00000001';
const KEY_QR = 'qqrcode00000001';
const screenSurvey: DeviceQuestionnaire = {
  questionnaireKey: KEY_SCREEN,
  revision: 2,
  title: 'Health declaration',
  mode: 'screen',
  displaySeconds: 30,
  questions: [
    {
      text: 'Do you have any of these?',
      type: 'multiple',
      mandatory: true,
      options: [{ text: 'Fever', alarm: true }, { text: 'Cough', alarm: true }, { text: 'None' }],
    },
    { text: 'Where are you going?', type: 'text' },
  ],
  translations: {},
};
const qrSurvey: DeviceQuestionnaire = {
  questionnaireKey: KEY_QR,
  revision: 1,
  title: 'Visitor survey',
  mode: 'qr',
  displaySeconds: 20,
  questions: [{ text: 'Were you here before?', type: 'single', mandatory: true, options: [{ text: 'Yes' }, { text: 'No' }] }],
  translations: {},
};
const TOKEN = `c4n7r2w9k8e5m3t6.01k2j8h9q4r2nv6y.${'x'.repeat(43)}`;

interface Seen {
  method: string;
  url: string;
  body: unknown;
  authorization: string | null;
}

/** A cloud in place of `fetch`: answers by path, in turn when given several answers. */
function cloud(routes: Record<string, { status: number; body: unknown }[]>): Seen[] {
  const seen: Seen[] = [];
  const turns = new Map<string, number>();
  vi.stubGlobal('fetch', async (input: URL | string, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const key = `${init.method ?? 'GET'} ${url.pathname}`;
    seen.push({
      method: init.method ?? 'GET',
      url: url.toString(),
      body: init.body ? JSON.parse(String(init.body)) : undefined,
      authorization: new Headers(init.headers).get('authorization'),
    });
    const answers = routes[key];
    if (!answers) return new Response(JSON.stringify({ code: 404, message: 'Not found', data: { reason: 'notFound' } }), { status: 404 });
    const turn = turns.get(key) ?? 0;
    turns.set(key, turn + 1);
    const { status, body } = answers[Math.min(turn, answers.length - 1)]!;
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });
  return seen;
}

const ok = (data: unknown, code = 200) => ({ status: 200, body: { code, message: 'OK', data } });

function terminal(): { agent: DeviceAgent; published: { topic: string; message: unknown }[] } {
  const agent = new DeviceAgent({ apiUrl: 'http://api.test', userCode: 'ABCD2345', info: simulatedInfo('QSIM', 1), retryBaseMs: 1 });
  agent.binding = {
    state: 'bound',
    deviceKey: 'dev0000000000001',
    thingName: 'tenant000000001_dev0000000000001',
    mqtt: { url: 'mqtt://127.0.0.1:1', clientId: 'c', username: 'u', password: 'p' },
  } as BindResult;
  const published: { topic: string; message: unknown }[] = [];
  agent.client = {
    connected: true,
    publish: (topic: string, payload: string) => void published.push({ topic, message: JSON.parse(payload) }),
  } as unknown as MqttClient;
  return { agent, published };
}

/** Hands the agent a shadow message as the broker would. */
const deliver = (agent: DeviceAgent, topic: string, message: unknown) =>
  (agent as unknown as { onMessage(topic: string, payload: Buffer): void }).onMessage(topic, Buffer.from(JSON.stringify(message)));

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('a simulated terminal and its questionnaires', () => {
  it('reads the surveys the shadow names, reports the token, and logs no setting as ignored', async () => {
    const list: DeviceQuestionnaires = { items: [screenSurvey, qrSurvey], token: `${KEY_QR}.1,${KEY_SCREEN}.2` };
    const seen = cloud({ 'GET /v1/deviceSync/questionnaires': [ok(list)] });
    const { agent, published } = terminal();
    const shadow = shadowTopics(agent.binding!.thingName);
    deliver(agent, shadow.updateDelta, { version: 9, timestamp: 1, state: { volume: 40, [QUESTIONNAIRES_SHADOW_KEY]: list.token }, metadata: {} });
    await vi.waitFor(() => expect(agent.questionnaires.token).toBe(list.token));
    expect(seen).toEqual([
      expect.objectContaining({ method: 'GET', url: 'http://api.test/v1/deviceSync/questionnaires', authorization: expect.stringMatching(/^Basic /) }),
    ]);
    expect(agent.questionnaires.items.map((q) => q.questionnaireKey)).toEqual([KEY_SCREEN, KEY_QR]);
    const reports = published.filter((p) => p.topic === shadow.update).map((p) => p.message);
    expect(reports).toEqual([{ state: { reported: { volume: 40 } } }, { state: { reported: { [QUESTIONNAIRES_SHADOW_KEY]: list.token } } }]);
    expect(agent.settings.volume).toBe(40);
    expect(agent.log.filter((e) => e.code === 'settingsIgnored')).toEqual([]);

    // The same value again (a reconnect's get/accepted) is reported, not read again.
    deliver(agent, shadow.getAccepted, {
      state: { desired: { ...toDocument(agent.settings), [QUESTIONNAIRES_SHADOW_KEY]: list.token } },
      metadata: {},
      version: 9,
      timestamp: 1,
    });
    expect(seen).toHaveLength(1);
    expect(published.at(-1)!.message).toEqual({ state: { reported: { [QUESTIONNAIRES_SHADOW_KEY]: list.token } } });
    expect(agent.log.filter((e) => e.code === 'settingsIgnored')).toEqual([]);

    // A complete desired state without the key names no survey.
    deliver(agent, shadow.getAccepted, { state: { desired: toDocument(agent.settings) }, metadata: {}, version: 10, timestamp: 2 });
    expect(agent.questionnaires.items).toEqual([]);
    expect(seen).toHaveLength(1);
    // What it shows is logged as a code with its figures, for the console to say in its reader's language.
    expect(agent.log.filter((e) => e.code === 'questionnairesShown').map((e) => [e.params, e.message])).toEqual([
      [{ count: 2, titles: ['Health declaration', 'Visitor survey'] }, undefined],
    ]);
  });

  it('answers a screen survey once per person, sending an unanswered attempt again under the same answerId', async () => {
    const seen = cloud({
      'POST /v1/deviceSync/questionnaireAnswers': [
        { status: 503, body: { message: 'Service Unavailable' } },
        { status: 200, body: { code: 201, message: 'Created', data: { stored: 'stored', result: 'abnormal' } } },
      ],
    });
    const { agent } = terminal();
    agent.questionnaires.items = [questionnaireOutput(screenSurvey)];
    const [outcome] = await agent.answerSurveys({ personKey: 'p0000000000001', abnormal: true, random: seeded(1), at: 1_741_940_100_000 });
    const posts = seen.filter((s) => s.url.endsWith('/questionnaireAnswers'));
    expect(posts).toHaveLength(2);
    expect(posts[1]!.body).toEqual(posts[0]!.body);
    const body = questionnaireAnswerUp.parse(posts[0]!.body);
    expect(body).toMatchObject({ questionnaireKey: KEY_SCREEN, revision: 2, answeredAt: 1_741_940_100_000, personKey: 'p0000000000001' });
    expect(outcome).toMatchObject({ mode: 'screen', expected: 'abnormal', stored: { stored: 'stored', result: 'abnormal' } });
    expect(outcome!.error).toBeUndefined();
    expect(agent.questionnaires.counts).toMatchObject({ abnormal: 1, failed: 0 });
  });

  it('leaves personKey out for a stranger, and reads the surveys again when the cloud says one is no longer open here', async () => {
    const seen = cloud({
      'POST /v1/deviceSync/questionnaireAnswers': [
        { status: 409, body: { code: 409, message: 'This questionnaire is not open on this terminal', data: { reason: 'conflict' } } },
      ],
      'GET /v1/deviceSync/questionnaires': [ok({ items: [], token: '' })],
    });
    const { agent } = terminal();
    agent.questionnaires.items = [questionnaireOutput(screenSurvey)];
    const [outcome] = await agent.answerSurveys({ abnormal: false, random: seeded(2) });
    expect(seen[0]!.body).not.toHaveProperty('personKey');
    expect(outcome!.error).toMatchObject({ status: 409, reason: 'conflict' });
    expect(outcome!.expected).toBe('normal');
    await vi.waitFor(() => expect(agent.questionnaires.token).toBe(''));
    expect(agent.questionnaires.items).toEqual([]);
    expect(agent.questionnaires.pending).toBe(0);
  });

  it('answers a QR survey through a link: the phone opens the page on the link’s origin with the token alone', async () => {
    const form = {
      title: qrSurvey.title,
      questions: qrSurvey.questions.map((q) => question.parse(q)),
      deviceName: 'Lobby',
      expiresAt: '2025-03-14T08:30:00.000Z',
    };
    const seen = cloud({
      'POST /v1/deviceSync/questionnaireLinks': [ok({ url: `http://console.test/survey#${TOKEN}`, expiresAt: 1_741_941_000_000 }, 201)],
      'POST /v1/surveys/open': [{ status: 502, body: { message: 'Bad Gateway' } }, ok(form)],
      'POST /v1/surveys/answers': [ok(null, 201)],
    });
    const { agent } = terminal();
    agent.questionnaires.items = [questionnaireOutput(qrSurvey)];
    const [outcome] = await agent.answerSurveys({ personKey: 'p0000000000001', abnormal: false, random: seeded(3) });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST http://api.test/v1/deviceSync/questionnaireLinks',
      'POST http://console.test/v1/surveys/open',
      'POST http://console.test/v1/surveys/open',
      'POST http://console.test/v1/surveys/answers',
    ]);
    expect(seen[0]!.body).toEqual({ questionnaireKey: KEY_QR });
    expect(seen[1]!.body).toEqual({ token: TOKEN });
    expect(seen.slice(1).every((s) => s.authorization === null)).toBe(true);
    expect(seen[3]!.body).toEqual({ token: TOKEN, answers: [{ choices: [expect.any(Number)] }] });
    expect(outcome).toMatchObject({ mode: 'qr', expected: 'normal', form, phoneAnswer: null });
    expect(outcome!.error).toBeUndefined();
  });

  it('tells why a link was refused', async () => {
    cloud({
      'POST /v1/deviceSync/questionnaireLinks': [ok({ url: `http://console.test/survey#${TOKEN}`, expiresAt: 1_741_941_000_000 }, 201)],
      'POST /v1/surveys/open': [{ status: 409, body: { code: 409, message: 'This link has expired', data: { reason: 'expired' } } }],
    });
    const { agent } = terminal();
    agent.questionnaires.items = [questionnaireOutput(qrSurvey)];
    const [outcome] = await agent.answerSurveys({ abnormal: false });
    expect(outcome!.error).toMatchObject({ status: 409, reason: 'expired' });
    expect(agent.questionnaires.counts.failed).toBe(1);
  });
});

/** A survey as the terminal holds it once read (defaults filled in). */
const questionnaireOutput = (q: DeviceQuestionnaire) => ({ ...q, questions: q.questions.map((x) => question.parse(x)) });
