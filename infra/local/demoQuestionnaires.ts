import type { Answer, Question, SurveyTranslations } from '@passcloud/functions/contract/questionnaires';
import type { FacePerson } from '@passcloud/functions/data/authorities';
import { allQuestionnaires, createQuestionnaire, setQuestionnaireState } from '@passcloud/functions/data/questionnaires';
import { storeScreenResult } from '@passcloud/functions/data/questionnaireResults';
import { pool } from '@passcloud/functions/lib/pool';
import { deliverQuestionnaires } from '@passcloud/functions/flows/questionnaireDelivery';
import { resultOf } from '@passcloud/functions/views/questionnaireItems';
import { chance } from './demoAttendance.ts';

/**
 * The demo company's questionnaires: a health declaration on the screens of all its terminals and
 * a visitor declaration answered by QR code on the first one, both open, with `days` days of
 * earlier answers (about one in eight abnormal) so the results screen has history. Made once;
 * the simulated terminals answer them from then on.
 */
export const HEALTH: Question[] = [
  {
    text: 'Do you have a temperature of 37.3 °C or more?',
    type: 'single',
    mandatory: true,
    options: [
      { text: 'No', alarm: false },
      { text: 'Yes', alarm: true },
    ],
  },
  {
    text: 'Do you have any of these symptoms?',
    type: 'multiple',
    mandatory: false,
    options: [
      { text: 'Cough', alarm: true },
      { text: 'Sore throat', alarm: true },
      { text: 'Loss of taste or smell', alarm: true },
      { text: 'None of these', alarm: false },
    ],
  },
  {
    text: 'Have you been in contact with a confirmed case in the last 14 days?',
    type: 'single',
    mandatory: true,
    options: [
      { text: 'No', alarm: false },
      { text: 'Yes', alarm: true },
    ],
  },
];
/** The health declaration as visitors who pick Chinese or Japanese read it. */
const HEALTH_TRANSLATIONS: SurveyTranslations = {
  zh_CN: {
    title: '每日健康申报',
    questions: [
      { text: '您的体温是否达到 37.3 °C 或以上？', options: ['否', '是'] },
      { text: '您是否有以下症状？', options: ['咳嗽', '咽喉痛', '味觉或嗅觉丧失', '以上都没有'] },
      { text: '过去 14 天内您是否接触过确诊病例？', options: ['否', '是'] },
    ],
  },
  ja_JP: {
    title: '毎日の健康申告',
    questions: [
      { text: '体温は 37.3 °C 以上ですか？', options: ['いいえ', 'はい'] },
      { text: '次の症状はありますか？', options: ['せき', 'のどの痛み', '味覚または嗅覚の消失', 'いずれもない'] },
      { text: '過去 14 日以内に感染が確認された人と接触しましたか？', options: ['いいえ', 'はい'] },
    ],
  },
};
export const VISITOR: Question[] = [
  { text: 'Whom are you visiting?', type: 'text', mandatory: true, options: [] },
  {
    text: 'Do you feel unwell today?',
    type: 'single',
    mandatory: true,
    options: [
      { text: 'No', alarm: false },
      { text: 'Yes', alarm: true },
    ],
  },
];

const VISITOR_TRANSLATIONS: SurveyTranslations = {
  zh_CN: {
    title: '访客申报',
    questions: [
      { text: '您要拜访谁？', options: [] },
      { text: '您今天感觉身体不适吗？', options: ['否', '是'] },
    ],
  },
  ja_JP: {
    title: '来訪者申告',
    questions: [
      { text: 'どなたを訪問しますか？', options: [] },
      { text: '今日、体調は悪いですか？', options: ['いいえ', 'はい'] },
    ],
  },
};

const healthAnswers = (abnormal: boolean, seed: number): Answer[] =>
  abnormal ? [{ choices: [seed % 2 === 0 ? 1 : 0] }, { choices: [seed % 3] }, { choices: [0] }] : [{ choices: [0] }, { choices: [3] }, { choices: [0] }];

export async function seedDemoQuestionnaires(tenantId: string, deviceKeys: string[], people: FacePerson[], days = 10, now = new Date()): Promise<number> {
  if (deviceKeys.length === 0 || (await allQuestionnaires(tenantId)).length > 0) return 0;
  const health = await createQuestionnaire(tenantId, {
    title: 'Daily health declaration',
    mode: 'screen',
    displaySeconds: 30,
    deviceKeys,
    groupKeys: [],
    questions: HEALTH,
    translations: HEALTH_TRANSLATIONS,
  });
  const visitor = await createQuestionnaire(tenantId, {
    title: 'Visitor declaration',
    mode: 'qr',
    displaySeconds: 45,
    deviceKeys: deviceKeys.slice(0, 1),
    groupKeys: [],
    questions: VISITOR,
    translations: VISITOR_TRANSLATIONS,
  });
  const opened = [await setQuestionnaireState(health, health.version, 'open'), await setQuestionnaireState(visitor, visitor.version, 'open')];
  await deliverQuestionnaires(tenantId, new Set(deviceKeys));

  const answers: { at: Date; deviceKey: string; personKey?: string; abnormal: boolean; id: string }[] = [];
  for (let d = days; d >= 1; d--) {
    for (let i = 0; i < 12; i++) {
      const person = people[Math.floor(chance('q-person', d, i) * people.length)];
      const at = new Date(now.getTime() - d * 86_400_000 + Math.floor(chance('q-time', d, i) * 9 * 3_600_000));
      answers.push({
        at,
        deviceKey: deviceKeys[Math.floor(chance('q-device', d, i) * deviceKeys.length)]!,
        ...(person ? { personKey: person.personKey } : {}),
        abnormal: chance('q-abnormal', d, i) < 0.125,
        id: `demo-${d}-${i}`,
      });
    }
  }
  const survey = opened[0]!;
  await pool(answers, 8, async (a, i) => {
    const result = await resultOf(survey, survey.revision, healthAnswers(a.abnormal, i), {
      deviceKey: a.deviceKey,
      source: 'screen',
      answeredAt: a.at,
      personKey: a.personKey,
    });
    await storeScreenResult(result, a.id);
  });
  return answers.length;
}
