import { figure } from './figures.ts';

/** Login latency (RSA-OAEP + scrypt) and the authenticated read path under concurrency. */

export const percentile = (values: number[], p: number): number | undefined => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
export const fmt = (ms: number | undefined): string => (ms === undefined ? '-' : `${ms.toFixed(1)} ms`);

/** Result lines that are also printed as they come, so a later failure keeps what was measured. */
export function resultLines(): string[] {
  const lines: string[] = [];
  const push = lines.push.bind(lines);
  lines.push = (...items: string[]) => {
    for (const line of items) console.log(`  ${line}`);
    return push(...items);
  };
  return lines;
}

async function encrypt(publicKey: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey('spki', Buffer.from(publicKey, 'base64'), { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
  return Buffer.from(await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, new TextEncoder().encode(text))).toString('base64');
}

/** Logs the demo admin in as the console does: login key, RSA-OAEP, then login. */
export async function adminLogin(url: string): Promise<{ token: string; ms: number }> {
  const t0 = performance.now();
  const security = (await (await fetch(`${url}/v1/systems/security`, { method: 'POST' })).json()) as { data: { securityId: string; publicKey: string } };
  const { securityId, publicKey } = security.data;
  const res = await fetch(`${url}/v1/systems/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ securityId, account: await encrypt(publicKey, 'admin'), password: await encrypt(publicKey, 'admin12345') }),
  });
  const body = (await res.json()) as { data: { token: string } };
  return { token: body.data.token, ms: performance.now() - t0 };
}

export const adminToken = async (url: string): Promise<string> => (await adminLogin(url)).token;

export async function apiBench(stack: { url: string }): Promise<string[]> {
  const login = () => adminLogin(stack.url);

  const logins: number[] = [];
  let token = '';
  for (let i = 0; i < 20; i++) {
    const result = await login();
    logins.push(result.ms);
    token = result.token;
  }

  const reads: number[] = [];
  const total = 2000;
  const concurrency = 16;
  let next = 0;
  const readStarted = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t0 = performance.now();
        const res = await fetch(`${stack.url}/v1/systems/me`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`me answered ${res.status}`);
        reads.push(performance.now() - t0);
      }
    }),
  );
  const readSeconds = (performance.now() - readStarted) / 1000;

  figure({ area: 'api', name: 'login p95', value: percentile(logins, 95)!, unit: 'ms', note: 'security key + RSA-OAEP + scrypt N=2^17, 20 runs' });
  figure({ area: 'api', name: 'GET /v1/systems/me p95', value: percentile(reads, 95)!, unit: 'ms', note: `${concurrency} at a time` });
  figure({ area: 'api', name: 'GET /v1/systems/me rate', value: total / readSeconds, unit: 'req/s' });
  return [
    `login (security key + RSA-OAEP + scrypt N=2^17), ${logins.length} runs: p50 ${fmt(percentile(logins, 50))}, p95 ${fmt(percentile(logins, 95))}`,
    `GET /v1/systems/me, ${total} requests, ${concurrency} at a time: ${(total / readSeconds).toFixed(0)} req/s, p50 ${fmt(percentile(reads, 50))}, p95 ${fmt(percentile(reads, 95))}`,
  ];
}

/** The demo admin's session with what confirms its password again (`x-confirm-password`), as the console seals it. */
export async function adminSession(url: string): Promise<{ token: string; confirm: () => Promise<string> }> {
  const security = (await (await fetch(`${url}/v1/systems/security`, { method: 'POST' })).json()) as { data: { securityId: string; publicKey: string } };
  const { securityId, publicKey } = security.data;
  const res = await fetch(`${url}/v1/systems/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ securityId, account: await encrypt(publicKey, 'admin'), password: await encrypt(publicKey, 'admin12345') }),
  });
  const body = (await res.json()) as { data: { token: string } };
  return { token: body.data.token, confirm: () => encrypt(publicKey, 'admin12345') };
}
