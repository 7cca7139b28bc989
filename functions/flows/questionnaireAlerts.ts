import { liveTopics, type LiveQuestionnaireMessage } from '#contract/live';
import type { StoredResult } from '#data/questionnaireResults';
import { publish } from '#lib/iot';
import { log } from '#lib/log';
import { sendQuestionnaireAlert } from '../iot/alerts.ts';
import { questionnaireEvent } from '../iot/webhookProducers.ts';
import { resultItems } from '#views/questionnaireItems';

/**
 * An abnormal result just stored: open consoles are told at once (the live channel's
 * `questionnaires` topic), and the email settings' recipients get a mail when they asked for it, and webhooks the event.
 * Neither failing loses the result.
 */
export async function raiseAbnormal(result: StoredResult): Promise<void> {
  if (result.result !== 'abnormal') return;
  const [item] = await resultItems(result.tenantId, [result]);
  await publish(liveTopics(result.tenantId).questionnaires, { items: [item!] } satisfies LiveQuestionnaireMessage).catch((error: unknown) =>
    log('warn', 'abnormal result not announced to consoles', { tenantId: result.tenantId, error: String(error) }),
  );
  await sendQuestionnaireAlert(item!, result.tenantId).catch((error: unknown) =>
    log('error', 'questionnaire alert mail not sent', { tenantId: result.tenantId, error: String(error) }),
  );
  await questionnaireEvent(result.tenantId, item!);
}
