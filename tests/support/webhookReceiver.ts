import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';

/** One request the receiver took. */
export interface Received {
  at: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** What the receiver answered. */
  status: number;
}

/** How the receiver answers the next requests: each rule applies `times` times (always when unset), in order. */
export interface Rule {
  status: number;
  times?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Waits this long before answering (a slow receiver). */
  delayMs?: number;
  /** Applies only to requests on this path (other requests pass it by); any path when unset. */
  path?: string;
}

let certificate: { key: string; cert: string } | undefined;

/** A self-signed certificate for localhost and 127.0.0.1, made once per test process with openssl. */
function selfSigned(): { key: string; cert: string } {
  if (certificate) return certificate;
  const dir = mkdtempSync(join(tmpdir(), 'webhook-receiver-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  if (!existsSync(cert)) throw new Error('openssl made no certificate');
  certificate = { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  return certificate;
}

/**
 * An integrator's webhook receiver on loopback, over https with a self-signed certificate (which
 * the service accepts only with the local switch SMTP_ALLOW_PRIVATE=1, as the test stack runs):
 * it keeps every request and answers by its rules, 200 when none is left.
 */
export async function startWebhookReceiver() {
  const received: Received[] = [];
  const rules: Rule[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer(selfSigned(), (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = rules.findIndex((r) => r.path === undefined || r.path === req.url);
      const rule = index < 0 ? undefined : rules[index];
      if (rule && rule.times !== undefined && --rule.times <= 0) rules.splice(index, 1);
      const status = rule?.status ?? 200;
      const answer = () => {
        received.push({ at: Date.now(), path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
        for (const waiter of [...waiters]) {
          if (received.length >= waiter.count) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'text/plain', ...(rule?.headers ?? {}) });
        res.end(rule?.body ?? (status < 300 ? 'ok' : `status ${status}`));
      };
      if (rule?.delayMs) setTimeout(answer, rule.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A receiver left running does not keep the test process alive.
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    /** The receiver's address, by name (`localhost`) or by IP. */
    url: (path = '/hooks', host = 'localhost') => `https://${host}:${port}${path}`,
    received,
    /** Answers the next requests by these rules, after the ones already given. */
    answer(...next: Rule[]) {
      rules.push(...next);
    },
    /** Resolves once `count` requests in all have arrived (or rejects after `timeoutMs`). */
    waitFor(count: number, timeoutMs = 20_000): Promise<void> {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${received.length} of ${count} requests`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
