import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, singleToast, RequestError, REQUEST_TIMEOUT_MS, LOADING_CLOSE_DELAY_MS, TOAST_MS, type ClientHooks } from '../../web/src/app/request.ts';

/** A fake API: the path says what to answer, `?delay=` how long to wait. */
let server: Server;
let baseUrl: string;
const seen: { path: string; headers: Record<string, string | string[] | undefined> }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname, headers: req.headers });
    const delay = Number(url.searchParams.get('delay') ?? 0);
    setTimeout(() => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/ok') return send(200, { code: 200, message: 'Success', data: { value: 42 } });
      if (url.pathname === '/invalid') return send(422, { code: 422, message: 'Some fields are not valid (email: bad)', data: { issues: [{ path: 'email', message: 'bad' }] } });
      if (url.pathname === '/no-message') return send(404, { code: 404, message: '', data: null });
      if (url.pathname === '/replaced') return send(401, { code: 662, message: 'Your account has logged in elsewhere', data: null });
      if (url.pathname === '/html') {
        res.writeHead(502, { 'content-type': 'text/html' });
        return res.end('<html>bad gateway</html>');
      }
      if (url.pathname === '/spa-page') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<!doctype html><div id="root"></div>');
      }
      send(500, { code: 500, message: 'The server is busy', data: null });
    }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Recorded {
  toasts: string[];
  loading: { visible: boolean; at: number }[];
  ended: number[];
}

function setup(options: { timeoutMs?: number; token?: string | null } = {}) {
  const log: Recorded = { toasts: [], loading: [], ended: [] };
  const hooks: ClientHooks = {
    token: () => (options.token === undefined ? 'tenant.secret' : options.token),
    locale: () => 'ja_JP',
    statusText: (status) => `status ${status}`,
    toast: (message) => log.toasts.push(message),
    loading: (visible) => log.loading.push({ visible, at: performance.now() }),
    sessionEnded: (code) => log.ended.push(code),
  };
  const client = createClient(hooks, { baseUrl, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
  return { client, log };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeEach(() => {
  seen.length = 0;
});

describe('the request client', () => {
  it('uses the 30 s timeout and the 300 ms loading delay of the specification', () => {
    expect(REQUEST_TIMEOUT_MS).toBe(30_000);
    expect(LOADING_CLOSE_DELAY_MS).toBe(300);
  });

  it('reads data from the envelope and sends the token and language', async () => {
    const { client, log } = setup();
    await expect(client.request('GET', '/ok')).resolves.toEqual({ value: 42 });
    expect(seen[0]!.headers.authorization).toBe('Bearer tenant.secret');
    expect(seen[0]!.headers['accept-language']).toBe('ja_JP');
    expect(log.toasts).toEqual([]);
  });

  it('toasts the server message, or the catalogue text when there is none', async () => {
    const { client, log } = setup();
    await expect(client.request('GET', '/invalid')).rejects.toBeInstanceOf(RequestError);
    await expect(client.request('GET', '/no-message')).rejects.toMatchObject({ code: 404 });
    await expect(client.request('GET', '/html')).rejects.toMatchObject({ status: 502 });
    expect(log.toasts).toEqual(['Some fields are not valid (email: bad)', 'status 404', 'status 502']);
  });

  it('never reads a 200 without the envelope (a CDN’s index.html) as a success', async () => {
    const { client, log } = setup();
    await expect(client.request('GET', '/spa-page')).rejects.toMatchObject({ status: 200, code: 502 });
    expect(log.toasts).toEqual(['status 502']);
  });

  it('keeps field issues for the form and stays silent when asked', async () => {
    const { client, log } = setup();
    const error = (await client.request('GET', '/invalid', { silent: true }).catch((e: unknown) => e)) as RequestError;
    expect(error.issues).toEqual([{ path: 'email', message: 'bad' }]);
    expect(log.toasts).toEqual([]);
  });

  it('gives up after the timeout with the catalogue text', async () => {
    const { client, log } = setup({ timeoutMs: 150 });
    const started = performance.now();
    await expect(client.request('GET', '/ok?delay=2000')).rejects.toMatchObject({ status: 0, code: 504 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(log.toasts).toEqual(['status 504']);
  });

  it('logs out on a session code between 600 and 699, even when silent', async () => {
    const { client, log } = setup();
    await expect(client.request('GET', '/replaced', { silent: true })).rejects.toMatchObject({ status: 401, code: 662 });
    expect(log.ended).toEqual([662]);
    expect(log.toasts).toEqual(['Your account has logged in elsewhere']);
  });

  it('does not log out on other errors', async () => {
    const { client, log } = setup();
    await client.request('GET', '/boom').catch(() => undefined);
    expect(log.ended).toEqual([]);
  });

  it('shows the loading indicator on the first request and closes it 300 ms after the last', async () => {
    const { client, log } = setup();
    const first = client.request('GET', '/ok?delay=100');
    const second = client.request('GET', '/ok?delay=250');
    expect(log.loading.map((l) => l.visible)).toEqual([true]);
    await first;
    await second;
    const lastDone = performance.now();
    expect(log.loading.map((l) => l.visible)).toEqual([true]);
    await sleep(200);
    expect(log.loading.map((l) => l.visible)).toEqual([true]);
    await sleep(200);
    expect(log.loading.map((l) => l.visible)).toEqual([true, false]);
    expect(log.loading[1]!.at - lastDone).toBeGreaterThanOrEqual(290);
  });

  it('keeps the indicator up when a new request starts within the delay', async () => {
    const { client, log } = setup();
    await client.request('GET', '/ok');
    await sleep(100);
    await client.request('GET', '/ok?delay=50');
    await sleep(450);
    expect(log.loading.map((l) => l.visible)).toEqual([true, false]);
  });
});

describe('singleToast', () => {
  it('shows one toast at a time, each for 2 s, and closes on demand', async () => {
    const visible = new Set<string>();
    let maxVisible = 0;
    const closers: (() => void)[] = [];
    const show = singleToast((message, close) => {
      visible.add(message);
      maxVisible = Math.max(maxVisible, visible.size);
      closers.push(close);
      return () => visible.delete(message);
    }, 120);
    show('one');
    show('two');
    show('three');
    expect([...visible]).toEqual(['three']);
    expect(maxVisible).toBe(1);
    await sleep(200);
    expect(visible.size).toBe(0);
    show('four');
    closers.at(-1)!();
    expect(visible.size).toBe(0);
  });

  it('lasts 2 s by default', () => {
    expect(TOAST_MS).toBe(2000);
  });

  /** A UI like Mantine's: hiding a toast reports back through its onClose, synchronously. */
  function reportingUi() {
    const onScreen = new Map<number, { message: string; kind: string; onClose: () => void }>();
    let next = 0;
    let hides = 0;
    const hide = (id: number) => {
      const shown = onScreen.get(id);
      hides++;
      if (hides > 100) throw new RangeError('Maximum call stack size exceeded');
      shown?.onClose();
      onScreen.delete(id);
    };
    const show = singleToast((message, close, kind) => {
      const id = ++next;
      onScreen.set(id, { message, kind, onClose: close });
      return () => hide(id);
    }, 150);
    return { onScreen, show, clickClose: (id: number) => hide(id), hides: () => hides };
  }

  it('closes once when the close button is clicked, even when hiding reports back (no loop)', () => {
    const ui = reportingUi();
    ui.show('Wrong username or password');
    expect(() => ui.clickClose(1)).not.toThrow();
    expect(ui.onScreen.size).toBe(0);
    expect(ui.hides()).toBeLessThanOrEqual(2);
    ui.show('Second error');
    expect([...ui.onScreen.values()].map((t) => t.message)).toEqual(['Second error']);
  });

  it('closes by itself after the duration when hiding reports back', async () => {
    const ui = reportingUi();
    ui.show('Please log in again');
    await sleep(220);
    expect(ui.onScreen.size).toBe(0);
    ui.show('Wrong username or password');
    expect([...ui.onScreen.values()].map((t) => t.message)).toEqual(['Wrong username or password']);
  });

  it('replaces the toast on screen, and a late close of the old one leaves the new one alone', async () => {
    const visible = new Set<string>();
    const closers: (() => void)[] = [];
    const show = singleToast((message, close) => {
      visible.add(message);
      closers.push(close);
      return () => visible.delete(message);
    }, 150);
    show('old');
    show('new');
    closers[0]!();
    expect([...visible]).toEqual(['new']);
    // The new one keeps its own timer: it closes on time, not early and not never.
    await sleep(220);
    expect(visible.size).toBe(0);
  });

  it('passes the kind (error by default, or success) to the UI', () => {
    const ui = reportingUi();
    ui.show('Failed');
    ui.show('Saved', 'success');
    expect([...ui.onScreen.values()].map((t) => [t.message, t.kind])).toEqual([['Saved', 'success']]);
    ui.clickClose(2);
    ui.show('Failed again');
    expect([...ui.onScreen.values()].map((t) => t.kind)).toEqual(['error']);
  });
});
