import type { Locale } from '#contract/locales';
import { SYSTEM_SCOPE } from '#data/tables';
import { dropCode } from '#data/verificationCodes';
import { CODE_TTL_MINUTES } from '#domain/verification';
import { AppError } from '#lib/errors';
import { translate } from '#lib/i18n';
import { sendMail } from '#lib/mail';

/** Mails a code; the mail record keeps it masked. False when it could not be sent. */
export const codeMail = (tenantId: string, to: string, code: string, locale: Locale): Promise<boolean> =>
  sendMail(tenantId, {
    to,
    kind: 'verification',
    subject: translate(locale, 'mail.codeSubject'),
    text: translate(locale, 'mail.codeBody', { code, minutes: CODE_TTL_MINUTES }),
    secrets: [code],
  });

/**
 * Mails a sign-up code. When the mail cannot be sent the code is forgotten (so the user may ask
 * again at once) and the user is told: the address is their own, so this tells nobody else anything.
 */
export async function mailRegisterCode(email: string, code: string, locale: Locale): Promise<void> {
  const sent = await codeMail(SYSTEM_SCOPE, email, code, locale);
  if (!sent) {
    await dropCode('register', email);
    throw new AppError(503, 'mail.notSent');
  }
}
