import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { REPO_ROOT } from '@passcloud/infra/local/stack';
import lighthouse from 'lighthouse';
import { launch } from 'chrome-launcher';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { launchBrowser } from '../support/browser.ts';

const FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** What shows that a public page is usable: the login form's password field, the entrance's links. */
const USABLE: Record<string, string> = { '/login': 'input[autocomplete="current-password"]:not([disabled])', '/entrance': 'a[href="/register"]' };

/**
 * JavaScript a first visit to `path` downloads until the page is usable (every script response
 * until then, the locale catalogue included), gzip-compressed, in KB:
 * what a browser loads before its user can act, as an outside measure counts it.
 */
export async function initialJsKb(baseUrl: string, path: string): Promise<{ kb: number; files: number }> {
  const browser = await launchBrowser();
  const page = await browser.newPage();
  const bodies: Promise<number>[] = [];
  let usable = false;
  page.on('response', (response) => {
    if (usable || response.request().resourceType() !== 'script') return;
    bodies.push(response.body().then((body) => gzipSync(body).length, () => 0));
  });
  await page.goto(baseUrl + path);
  await page.locator(USABLE[path] ?? 'body').first().waitFor({ state: 'visible' });
  // Scripts still arriving in the same moment belong to the first view.
  await page.waitForLoadState('load');
  usable = true;
  const sizes = await Promise.all(bodies);
  await browser.close();
  return { kb: sizes.reduce((a, b) => a + b, 0) / 1024, files: sizes.filter((n) => n > 0).length };
}

/**
 * Lighthouse performance score (0-100) of a page against the local host: `desktop` is Lighthouse's
 * own desktop preset (the console's users sit at desks), `mobile` its default slow-4G phone.
 */
export async function lighthouseScore(url: string, formFactor: 'desktop' | 'mobile'): Promise<number> {
  const chrome = await launch({ chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', chromeFlags: FLAGS });
  try {
    const flags = { port: chrome.port, output: 'json' as const, logLevel: 'error' as const, onlyCategories: ['performance'] };
    const result = await lighthouse(url, flags, formFactor === 'desktop' ? desktopConfig : undefined);
    return Math.round((result?.lhr.categories.performance?.score ?? 0) * 100);
  } finally {
    chrome.kill();
  }
}

/**
 * The dashboard's chunk (the one that draws its feed), gzip-compressed, and every chunk that
 * carries nivo: the dashboard's alone, so no other screen loads the chart library.
 */
export function dashboardChunk(assets = resolve(REPO_ROOT, 'web/dist/assets')): { kb: number; nivoIn: string[]; file: string } {
  const scripts = readdirSync(assets).filter((f) => f.endsWith('.js'));
  const text = (f: string) => readFileSync(join(assets, f), 'utf8');
  const file = scripts.find((f) => text(f).includes('dashboard-feed'));
  if (!file) throw new Error('no chunk draws the dashboard: build the console first');
  return { file, kb: gzipSync(readFileSync(join(assets, file))).length / 1024, nivoIn: scripts.filter((f) => text(f).includes('nivo')) };
}
