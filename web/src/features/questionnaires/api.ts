import { useLingui } from '@lingui/react/macro';
import type {
  AnswerSource,
  QuestionType,
  QuestionnaireItem,
  QuestionnaireMode,
  QuestionnairePage,
  QuestionnaireResult,
  QuestionnaireResultItem,
  QuestionnaireResultPage,
  QuestionnaireState,
} from '@passcloud/functions/contract/questionnaires';
import { api } from '../../app/api.ts';

/** Questionnaires as the API answers them (functions/contract/questionnaires.ts). */
export type { QuestionnaireItem, QuestionnairePage, QuestionnaireResultItem, QuestionnaireResultPage };

export const RESULTS_SCREEN = '/pass-platform/passage/questionnaire';
export const SETTING_SCREEN = '/pass-platform/passage/questionnaire/setting';
/** The results screen of one survey. */
export const resultsScreen = (questionnaireKey: string): string => `${RESULTS_SCREEN}?questionnaire=${encodeURIComponent(questionnaireKey)}`;

export const QUESTIONNAIRES_PATH = '/v1/questionnaires';
export const questionnairePath = (key: string): string => `${QUESTIONNAIRES_PATH}/${encodeURIComponent(key)}`;
export const resultsPath = (key: string): string => `${questionnairePath(key)}/results`;

/** The query key resource of surveys and their results. */
export const RESOURCE = 'questionnaires';

/** Every survey of the company: a company keeps at most 200, one page. */
export const allQuestionnaires = () => api.get<QuestionnairePage>(QUESTIONNAIRES_PATH, { query: { pageSize: 200 } }).then((p) => p.items);

export const STATE_COLOR: Record<QuestionnaireState, string> = { open: 'teal', closed: 'gray' };
export const RESULT_COLOR: Record<QuestionnaireResult, string> = { normal: 'teal', abnormal: 'red' };

/** The names the questionnaire screens give to modes, states, types, results and sources. */
export function useQuestionnaireLabels() {
  const { t } = useLingui();
  return {
    mode: { screen: t`On the terminal's screen`, qr: t`Scan a QR code` } satisfies Record<QuestionnaireMode, string>,
    state: { open: t({ message: 'Open', context: 'questionnaire state' }), closed: t({ message: 'Closed', context: 'questionnaire state' }) } satisfies Record<
      QuestionnaireState,
      string
    >,
    type: { single: t`Single choice`, multiple: t`Multiple choice`, text: t`Free text` } satisfies Record<QuestionType, string>,
    result: {
      normal: t({ message: 'Normal', context: 'questionnaire result' }),
      abnormal: t({ message: 'Abnormal', context: 'questionnaire result' }),
    } satisfies Record<QuestionnaireResult, string>,
    source: { screen: t`Terminal screen`, qr: t`QR code` } satisfies Record<AnswerSource, string>,
    kind: { employee: t`Employee`, visitor: t`Visitor` },
    anonymous: t`Anonymous`,
  };
}

export type QuestionnaireLabels = ReturnType<typeof useQuestionnaireLabels>;
