import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import { freePort } from '@passcloud/infra/local/standins';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

/** How the server answers RCPT TO for one address: a code and text, for the next `times` tries (always when unset). */
export interface Refusal {
  code: number;
  text: string;
  times?: number;
}

/**
 * A company's own SMTP server for tests: it keeps what it accepts and refuses the recipients it
 * is told to, with 4xx (try again later) or 5xx (permanent) replies of its own words.
 */
export async function startTestSmtp() {
  const received: ReceivedMail[] = [];
  const refusals = new Map<string, Refusal>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = refusals.get(address.address.toLowerCase());
      if (refusal && (refusal.times === undefined || refusal.times-- > 0)) {
        return callback(Object.assign(new Error(refusal.text), { responseCode: refusal.code }));
      }
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    received,
    refuse: (address: string, refusal: Refusal) => refusals.set(address.toLowerCase(), refusal),
    accept: (address: string) => refusals.delete(address.toLowerCase()),
    to: (address: string) => received.filter((m) => m.to.includes(address)),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
