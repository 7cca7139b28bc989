import { afterEach, describe, expect, it } from 'vitest';
import { startHost, type Host } from '@passcloud/infra/local/host';

/**
 * The one-machine host: API requests wait until the host says it is ready (the demo company made),
 * and the captured mails read as a page in a browser and as JSON to a program.
 */

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

const mails = [
  { from: 'no-reply@passcloud.local', to: ['first@example.com'], subject: 'First <mail>', text: 'Hello & welcome', receivedAt: '2026-11-24T08:00:00.000Z' },
  { from: 'no-reply@passcloud.local', to: ['second@example.com', 'third@example.com'], subject: 'Second mail', text: 'Line one\nLine two', receivedAt: '2026-11-24T09:00:00.000Z' },
];

async function host(ready?: Promise<unknown>): Promise<Host> {
  const started = await startHost({
    port: 0,
    webRoot: '/nonexistent',
    handlers: {
      systems: async () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: 200, message: 'Success', data: 'answered' }) }),
    },
    local: { mails: () => mails },
    ...(ready ? { ready } : {}),
  });
  hosts.push(started);
  return started;
}

describe('the local host', () => {
  it('answers API requests only once it is ready', async () => {
    let open = (): void => undefined;
    const ready = new Promise<void>((resolve) => (open = resolve));
    const started = await host(ready);
    let answered = false;
    const request = fetch(`${started.url}/v1/systems/terms?locale=en_US`).then(async (res) => {
      answered = true;
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    // The console itself is served meanwhile (here: the note that it is not built).
    expect((await fetch(`${started.url}/login`)).status).toBe(503);
    open();
    const res = await request;
    expect(((await res.json()) as { data: string }).data).toBe('answered');
  });

  it('shows the captured mails as a page, newest first, and as JSON to a program', async () => {
    const started = await host();
    const page = await fetch(`${started.url}/_local/mails`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html.indexOf('Second mail')).toBeLessThan(html.indexOf('First &#60;mail&#62;'));
    expect(html).toContain('second@example.com, third@example.com');
    expect(html).toContain('Hello &#38; welcome');
    expect(html).not.toContain('<mail>');
    const data = await fetch(`${started.url}/_local/mails`, { headers: { accept: 'application/json' } });
    expect(((await data.json()) as { data: unknown }).data).toEqual(mails);
    // A program that names no type gets JSON too.
    expect(((await (await fetch(`${started.url}/_local/mails`)).json()) as { data: unknown[] }).data).toHaveLength(2);
  });
});
