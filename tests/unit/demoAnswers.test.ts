import { describe, expect, it } from 'vitest';
import { VISIT_SENTENCES, WELLBEING_SENTENCES, generateAnswers } from '@passcloud/device-shadow/questionnaires';
import { HEALTH, VISITOR } from '@passcloud/infra/local/demoQuestionnaires';
import { checkAnswers } from '@passcloud/functions/domain/questionnaires';

/** A small deterministic random source. */
function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * The demo company's questionnaires, as the simulated people answer them: every answer fits its
 * question (the cloud takes it), a free-text answer says what the question asks, and an option
 * saying none of the others apply is never ticked with another.
 */
describe('answers to the demo questionnaires', () => {
  it('fit the health declaration: "None of these" stands alone', () => {
    const none = HEALTH[1]!.options.findIndex((o) => o.text === 'None of these');
    const random = seeded(11);
    for (let n = 0; n < 500; n++) {
      const { answers } = generateAnswers(HEALTH, { abnormal: n % 2 === 0, random });
      expect(checkAnswers(HEALTH, answers).issues).toEqual([]);
      const symptoms = answers[1];
      if (symptoms && 'choices' in symptoms && symptoms.choices.includes(none)) expect(symptoms.choices).toEqual([none]);
    }
  });

  it('fit the visitor declaration: whom one visits is answered with a visit', () => {
    const random = seeded(5);
    for (let n = 0; n < 200; n++) {
      const { answers } = generateAnswers(VISITOR, { abnormal: n % 3 === 0, random });
      expect(checkAnswers(VISITOR, answers).issues).toEqual([]);
      const whom = answers[0] as { text: string };
      expect(VISIT_SENTENCES as readonly string[]).toContain(whom.text);
      expect(WELLBEING_SENTENCES as readonly string[]).not.toContain(whom.text);
    }
  });
});
