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

/** A login the server was offered: the username and password the client sent. */
export interface OfferedLogin {
  username: string;
  password: string;
}

export interface TestSmtpOptions {
  /**
   * `none` (default): plain SMTP only; `starttls`: STARTTLS offered; `implicit`: TLS from the first
   * byte. The certificate is smtp-server's own self-signed one, which the service accepts only
   * for servers on private addresses with SMTP_ALLOW_PRIVATE=1 (as the test stack runs).
   */
  tls?: 'none' | 'starttls' | 'implicit';
  /** The one login the server accepts (offered only over TLS); without it AUTH is not offered. */
  login?: { username: string; password: string };
  /** How long the server takes to accept each mail's content (a slow server). */
  delayMs?: number;
}

/**
 * A company's own SMTP server for tests: it keeps what it accepts and refuses the recipients it
 * is told to, with 4xx (try again later) or 5xx (permanent) replies of its own words, and notes
 * every login offered to it.
 */
export async function startTestSmtp(options: TestSmtpOptions = {}) {
  const received: ReceivedMail[] = [];
  const refusals = new Map<string, Refusal>();
  const logins: OfferedLogin[] = [];
  const tls = options.tls ?? 'none';
  const server = new SMTPServer({
    authOptional: true,
    secure: tls === 'implicit',
    disabledCommands: [...(tls === 'starttls' ? [] : ['STARTTLS']), ...(options.login ? [] : ['AUTH'])],
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      if (auth.username === options.login?.username && auth.password === options.login?.password) return callback(null, { user: auth.username });
      callback(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
    },
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
        .then(async (parsed) => {
          if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
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
    logins,
    refuse: (address: string, refusal: Refusal) => refusals.set(address.toLowerCase(), refusal),
    accept: (address: string) => refusals.delete(address.toLowerCase()),
    to: (address: string) => received.filter((m) => m.to.includes(address)),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
