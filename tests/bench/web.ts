import { gzipSync } from 'node:zlib';
import lighthouse from 'lighthouse';
import { launch } from 'chrome-launcher';
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

/** JavaScript a first visit to `path` downloads before it is idle, gzip-compressed, in KB. */
export async function initialJsKb(baseUrl: string, path: string): Promise<{ kb: number; files: number }> {
  const browser = await launchBrowser();
  const page = await browser.newPage();
  let bytes = 0;
  let files = 0;
  page.on('response', async (response) => {
    if (response.request().resourceType() !== 'script') return;
    const body = await response.body().catch(() => undefined);
    if (!body) return;
    files++;
    bytes += gzipSync(body).length;
  });
  await page.goto(baseUrl + path, { waitUntil: 'networkidle' });
  await browser.close();
  return { kb: bytes / 1024, files };
}

/** Lighthouse performance score (0-100) of a page, desktop preset, against the local host. */
export async function lighthouseScore(url: string): Promise<number> {
  const chrome = await launch({ chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', chromeFlags: FLAGS });
  try {
    const result = await lighthouse(
      url,
      { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] },
      {
        extends: 'lighthouse:default',
        settings: {
          formFactor: 'desktop',
          screenEmulation: { mobile: false, width: 1350, height: 940, deviceScaleFactor: 1, disabled: false },
          throttlingMethod: 'simulate',
        },
      },
    );
    return Math.round((result?.lhr.categories.performance?.score ?? 0) * 100);
  } finally {
    chrome.kill();
  }
}
