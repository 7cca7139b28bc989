import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import { launchBrowser } from '../support/browser.ts';
import { fmt, percentile } from './api.ts';
import type { OwnHost } from './host.ts';
import { figure } from './figures.ts';

/**
 * The dashboard, as a wall screen shows it:
 * - `GET /v1/dashboard` read many times (its cost must not follow the records; records.ts measures
 *   it before and after seeding a million);
 * - capture to screen: 50 terminals publish passes while the dashboard is open in Chromium, and
 *   the page notes when each appears in the capture feed; the pass carries the time it was sent.
 */

const TERMINALS = 50;
const PER_TERMINAL = 12;
const SPACING_MS = 2000;

export async function dashboardLatency(url: string, token: string, rounds = 40): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  // Warm first (the handler's first reads compile and connect), then measure.
  for (let i = 0; i < 10; i++) await fetch(`${url}/v1/dashboard`, { headers: { authorization: `Bearer ${token}` } });
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/v1/dashboard`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { code: number };
    times.push(performance.now() - started);
    if (body.code !== 200) throw new Error(`GET /v1/dashboard answered ${body.code}`);
  }
  return { p50: percentile(times, 50) ?? NaN, p95: percentile(times, 95) ?? NaN };
}

export async function captureToScreenBench(host: OwnHost): Promise<string[]> {
  const { url } = host;
  const fleet: Fleet = await startFleet({ apiUrl: url, userCode: host.env.DEMO_USER_CODE!, count: TERMINALS, prefix: `DASH${Date.now().toString(36).toUpperCase()}`, heartbeatMs: 30_000, concurrency: 10 });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    let socketOpened = false;
    page.on('websocket', (socket) => {
      if (new URL(socket.url()).pathname === '/mqtt') socketOpened = true;
    });
    await page.goto(`${url}/login`);
    await page.locator('input[autocomplete=username]').fill('admin');
    await page.locator('input[type=password]').fill('admin12345');
    await page.locator('form button[type=submit]').click();
    await page.waitForURL((u) => u.pathname === '/pass-platform/dashboard');
    await page.getByTestId('dashboard-feed').waitFor();
    for (let i = 0; i < 100 && !socketOpened; i++) await page.waitForTimeout(100);
    if (!socketOpened) throw new Error('the dashboard opened no live channel');
    await page.waitForTimeout(1500);
    // Each new row of the feed: how long after its pass was sent (its name is `L<sent ms>`).
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { seen: number[] }).seen = seen;
      new MutationObserver((mutations) => {
        const now = Date.now();
        for (const mutation of mutations)
          for (const node of mutation.addedNodes) {
            if (!(node instanceof HTMLElement)) continue;
            const rows = node.matches('[data-testid=dashboard-capture]') ? [node] : [...node.querySelectorAll<HTMLElement>('[data-testid=dashboard-capture]')];
            for (const row of rows) {
              const sent = /L(\d{13})/.exec(row.innerText)?.[1];
              if (sent) seen.push(now - Number(sent));
            }
          }
      }).observe(document.querySelector('[data-testid=dashboard-feed]')!, { childList: true, subtree: true });
    });
    // Every terminal sends a pass every SPACING_MS, the terminals spread over that time.
    await Promise.all(
      fleet.agents.map(async (agent, i) => {
        await new Promise((r) => setTimeout(r, (i * SPACING_MS) / TERMINALS));
        for (let n = 0; n < PER_TERMINAL; n++) {
          agent.records.add(newPassRecord({ name: `L${Date.now()}`, temperature: 36.5 }));
          await new Promise((r) => setTimeout(r, SPACING_MS));
        }
      }),
    );
    await page.waitForTimeout(3000);
    const seen = await page.evaluate(() => (window as unknown as { seen: number[] }).seen);
    if (process.env.BENCH_DEBUG) console.log(JSON.stringify([...seen].sort((a, b) => a - b)));
    const sent = TERMINALS * PER_TERMINAL;
    const rate = (TERMINALS * 1000) / SPACING_MS;
    figure({ area: 'dashboard', name: 'capture to screen p95', value: percentile(seen, 95) ?? Number.NaN, unit: 'ms', goal: 1000, kind: 'max', note: `${TERMINALS} terminals, ${rate} passes/s, in Chromium` });
    figure({ area: 'dashboard', name: 'captures shown', value: (seen.length / sent) * 100, unit: '%' });
    return [
      `dashboard: capture to screen with ${TERMINALS} terminals (${rate} passes/s, ${sent} passes), measured in Chromium: p50 ${fmt(percentile(seen, 50))}, p95 ${fmt(percentile(seen, 95))} (budget 1 s), ${seen.length} of ${sent} shown`,
    ];
  } finally {
    await browser.close();
    await fleet.stop();
  }
}
