import { retryDueMails } from '#lib/mail';
import { log, logged } from '#lib/log';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['EVENTS_TABLE', 'MAIL_FROM', 'MAIN_TABLE']);

/** Passes are started within this time, so the last one ends before the function's 55 seconds. */
const START_PASSES_MS = 25_000;

/**
 * The retry runner on AWS: a scheduled function, every minute, that tries again the mails whose
 * next attempt is due (lib/mail.ts retryDueMails, a fair share of each company per pass). The
 * local host runs the same pass on an interval.
 */
async function handle(): Promise<{ tried: number }> {
  const started = Date.now();
  let tried = 0;
  // Pass after pass while mails are due: the ones a pass tried are no longer due.
  for (let pass = 0; pass < 10 && Date.now() - started < START_PASSES_MS; pass++) {
    const count = await retryDueMails();
    tried += count;
    if (count === 0) break;
  }
  if (tried) log('info', 'mail retries', { tried });
  return { tried };
}

export const handler = logged('mailRetry', handle);
