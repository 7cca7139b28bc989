/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import yazl from 'yazl';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { makePng } from '../support/images.ts';
import { TAGLINE, isBackgroundRead, loginInBrowser, newPage, pageErrors, shotDir } from './support.ts';

let browser: Browser;
let page: Page;
let files: string;
let owner: Awaited<ReturnType<typeof newCompany>>;

beforeAll(async () => {
  browser = await launchBrowser();
  files = join(shotDir, 'files');
  mkdirSync(files, { recursive: true });
  owner = await newCompany();
  ({ page } = await newPage(browser));
  await loginInBrowser(page, owner.username, owner.password);
  await page.goto('/pass-platform/enterprise/employee');
  await page.getByRole('button', { name: 'Groups' }).click();
  await page.getByTestId('new-group-name').fill('Staff');
  await page.getByRole('dialog').getByRole('button', { name: 'Add' }).click();
  await page.getByRole('dialog').locator('input[value="Staff"]').waitFor();
  await page.keyboard.press('Escape');
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

const rows = () => page.getByTestId('people-row');

async function search(keyword: string) {
  await page.getByTestId('people-keyword').fill(keyword);
  await page.getByTestId('people-search').click();
}

describe('employees in the console', () => {
  it('creates an employee with a photo and finds it by keyword', async () => {
    await page.goto('/pass-platform/enterprise/employee/create');
    await expect.poll(() => page.title()).toBe(`New employee - ${TAGLINE}`);
    const photo = join(files, 'face.png');
    writeFileSync(photo, makePng(800, 600));
    const tooSmall = join(files, 'small.png');
    writeFileSync(tooSmall, makePng(320, 240));
    const chooser = page.waitForEvent('filechooser');
    await page.getByTestId('photo-button').click();
    await (await chooser).setFiles(tooSmall);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('at least 640 × 480');
    // The photo goes straight to storage through a presigned link: presign, PUT, complete.
    const requests: string[] = [];
    const record = (request: { method(): string; url(): string }) => {
      const path = new URL(request.url()).pathname;
      if (!isBackgroundRead(request.method(), path)) requests.push(`${request.method()} ${path}`);
    };
    page.on('request', record);
    const chooser2 = page.waitForEvent('filechooser');
    await page.getByTestId('photo-button').click();
    await (await chooser2).setFiles(photo);
    await expect.poll(() => page.getByTestId('photo-preview').locator('img').count()).toBe(1);
    page.off('request', record);
    const calls = requests.filter((r) => !r.includes('OPTIONS'));
    expect(calls[0]).toBe('POST /v1/files/uploads/presign');
    expect(calls[1]).toMatch(/^PUT \/[^/]+\/[^/]+\/staging\/avatar-[0-9a-z]{20}$/);
    expect(calls[2]).toMatch(/^POST \/v1\/files\/uploads\/avatar-[0-9a-z]{20}\/complete$/);
    expect(await page.getByTestId('photo-progress').count()).toBe(0);

    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Enter the personnel ID').count()).toBe(1);
    await page.getByLabel('Personnel ID').fill('E-1001');
    await page.getByLabel('Name', { exact: false }).first().fill('Grace Hopper');
    await page.getByLabel('Role').fill('Engineer');
    await page.getByText('Female', { exact: true }).click();
    await page.getByTestId('group-select').click();
    await page.getByRole('option', { name: 'Staff' }).click();
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL('**/pass-platform/enterprise/employee');
    await search('hopper');
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().innerText()).toContain('E-1001');
    expect(await rows().first().locator('img').count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/employees-list.png` });
  });

  it('refuses a duplicate personnel ID inline and keeps the form', async () => {
    await page.goto('/pass-platform/enterprise/employee/create');
    await page.getByLabel('Personnel ID').fill('e-1001');
    await page.getByLabel('Name', { exact: false }).first().fill('Someone Else');
    await page.getByLabel('Role').fill('Clerk');
    await page.getByTestId('group-select').click();
    await page.getByRole('option', { name: 'Staff' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('This personnel ID is already used by someone else').count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/pass-platform/enterprise/employee/create');
  });

  it('resigns an employee and brings them back', async () => {
    await page.goto('/pass-platform/enterprise/employee');
    await search('E-1001');
    await expect.poll(() => rows().count()).toBe(1);
    await rows().first().getByRole('checkbox').check();
    await page.getByTestId('people-bulk').getByRole('button', { name: 'Resign' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByTestId('people-empty').count()).toBe(1);

    await page.getByRole('link', { name: 'Resigned employees' }).click();
    await page.waitForURL('**/employee/resigned');
    await search('E-1001');
    await expect.poll(() => rows().count()).toBe(1);
    await rows().first().getByRole('button', { name: 'Actions' }).click();
    await page.getByRole('menuitem', { name: 'Re-enter' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByTestId('people-empty').count()).toBe(1);
    await page.goto('/pass-platform/enterprise/employee');
    await search('E-1001');
    await expect.poll(() => rows().count()).toBe(1);
  });

  it('exports the filtered list in the background once the password is confirmed, showing its progress, and downloads it', async () => {
    await page.goto('/pass-platform/enterprise/employee');
    await search('E-1001');
    await expect.poll(() => rows().count()).toBe(1);
    const downloaded = page.waitForEvent('download');
    await page.getByTestId('people-export').click();
    // Exporting people asks for the password first.
    await page.getByTestId('confirm-password-input').fill(owner.password);
    await page.getByTestId('confirm-password-submit').click();
    await expect.poll(() => page.getByTestId('export-progress').getAttribute('data-phase'), { timeout: 30_000 }).toBe('done');
    expect(await page.getByTestId('export-progress').innerText()).toContain('1 record exported');
    const file = await downloaded;
    expect(file.suggestedFilename()).toMatch(/^employees-\d{4}-\d{2}-\d{2}\.xlsx$/);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(await file.path());
    expect(String(book.worksheets[0]!.getRow(2).getCell(1).value)).toBe('E-1001');
    await page.screenshot({ path: `${shotDir}/people-export-en.png` });
    await page.getByTestId('export-close').click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  });

  it('imports a workbook of 50 rows with 3 bad ones, then a photo archive with 2 bad entries, and shows each report', async () => {
    const prefix = unique('IMP');
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Personnel');
    sheet.addRow(['Personnel ID*', 'Name*', 'Role*', 'Gender*', 'Group*', 'Phone', 'Email']);
    for (let i = 0; i < 50; i++)
      sheet.addRow([`${prefix}-${i}`, `Imported ${i}`, 'Operator', i % 2 ? 'male' : 'female', 'Staff', '', i === 7 ? 'bad-email' : '']);
    sheet.getRow(12).getCell(2).value = '';
    sheet.getRow(22).getCell(4).value = 'unknown';
    const workbook = join(files, 'people.xlsx');
    writeFileSync(workbook, Buffer.from(await book.xlsx.writeBuffer()));

    await page.goto('/pass-platform/enterprise/employee');
    await page.getByRole('link', { name: 'Import' }).click();
    await page.waitForURL('**/employee/import/info');
    expect(await page.getByRole('link', { name: 'Download the template' }).getAttribute('href')).toBe('/file/Personnel_import_template_EN.xlsx');
    const chooser = page.waitForEvent('filechooser');
    await page.getByTestId('import-file').click();
    await (await chooser).setFiles(workbook);
    await expect.poll(() => page.getByTestId('import-report').textContent()).toContain('47 created, 0 updated, 3 rejected');
    expect(await page.getByTestId('import-report').getByText('Rejected', { exact: true }).count()).toBe(3);
    await page.screenshot({ path: `${shotDir}/import-report.png`, fullPage: true });

    const archive = await new Promise<Buffer>((resolve) => {
      const zip = new yazl.ZipFile();
      zip.addBuffer(makePng(640, 480), `photo/${prefix}-1.png`);
      zip.addBuffer(makePng(640, 480), `photo/${prefix}-2.png`);
      zip.addBuffer(makePng(640, 480), 'photo/NO-SUCH-PERSON.png');
      zip.addBuffer(Buffer.from('hello'), 'readme.txt');
      zip.end();
      const chunks: Buffer[] = [];
      zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
      zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    });
    const zipFile = join(files, 'photos.zip');
    writeFileSync(zipFile, archive);
    await page.getByRole('button', { name: 'Next: photos' }).click();
    await page.waitForURL('**/employee/import/avatar');
    const chooser2 = page.waitForEvent('filechooser');
    await page.getByTestId('import-file').click();
    await (await chooser2).setFiles(zipFile);
    await expect.poll(() => page.getByTestId('import-report').textContent()).toContain('2 imported, 2 skipped');
    expect(await page.getByTestId('import-report').textContent()).toContain('no one has this personnel ID');

    await page.getByRole('button', { name: 'Done' }).click();
    await search(`${prefix}-1`);
    await expect.poll(() => page.getByTestId('people-count').textContent()).toContain('10 in all');
  });
});

describe('a keyword that matches more people than a list counts', () => {
  it('shows the first page and "at least" that many in all', async () => {
    // The test host counts up to 300 people for a keyword list (PEOPLE_COUNT_LIMIT, tests/support/localStack.ts).
    const owner = await newCompany();
    const { token } = await login(owner.username, owner.password);
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Personnel');
    sheet.addRow(['Personnel ID*', 'Name*', 'Role*', 'Gender*', 'Group*']);
    for (let i = 0; i < 350; i++) sheet.addRow([`ATL${i}`, `Atlas Walker ${i}`, 'Operator', 'female', 'Walkers']);
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(await book.xlsx.writeBuffer())]), 'walkers.xlsx');
    const imported = await call<{ created: number }>('POST', '/v1/employees/imports', { token, form });
    expect(imported.body.data.created).toBe(350);

    const own = await newPage(browser);
    const walkers = own.page;
    await loginInBrowser(walkers, owner.username, owner.password);
    await walkers.goto('/pass-platform/enterprise/employee');
    await walkers.getByTestId('people-keyword').fill('atlas');
    await walkers.getByTestId('people-search').click();
    await expect.poll(() => walkers.getByTestId('people-count').textContent()).toContain('At least 300 in all');
    expect(await walkers.getByTestId('people-row').first().textContent()).toContain('Atlas Walker 349');
    // A narrower keyword is counted exactly.
    await walkers.getByTestId('people-keyword').fill('atlas walker 34');
    await walkers.getByTestId('people-search').click();
    await expect.poll(() => walkers.getByTestId('people-count').textContent()).toContain('11 in all');
    await own.context.close();
  });
});
