import { retryDueMails } from '#lib/mail';
import { log } from '#lib/log';

/**
 * The retry runner on AWS: a scheduled function, every minute, that tries again every mail whose
 * next attempt is due (lib/mail.ts retryDueMails). The local host runs the same pass on an interval.
 */
export async function handler(): Promise<{ tried: number }> {
  let tried = 0;
  // A minute's worth of passes, each of at most 50 mails, while mails are due.
  for (let pass = 0; pass < 10; pass++) {
    const count = await retryDueMails();
    tried += count;
    if (count < 50) break;
  }
  if (tried) log('info', 'mail retries', { tried });
  return { tried };
}
