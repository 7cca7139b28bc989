import type ExcelJS from 'exceljs';

/**
 * Workbooks, for the functions that import or export them. exceljs is loaded on the first
 * workbook a function reads or writes, so the bundles that only link here for the content type or
 * for a rarely used export route do not load it at start.
 */
let excel: Promise<typeof ExcelJS> | undefined;
export const loadExcel = (): Promise<typeof ExcelJS> => (excel ??= import('exceljs').then((m) => m.default));

/** Cell text of the first worksheet, row by row (row 1 first); formulas give their result. */
export async function readFirstSheet(bytes: Buffer): Promise<string[][]> {
  const workbook = new (await loadExcel()).Workbook();
  await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  const sheet = workbook.worksheets[0];
  if (!sheet) return [];
  const rows: string[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row, number) => {
    const values: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, column) => {
      values[column - 1] = cellText(cell.value);
    });
    rows[number - 1] = Array.from(values, (v) => v ?? '');
  });
  return Array.from(rows, (r) => r ?? []);
}

function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    if ('result' in value) return cellText(value.result as ExcelJS.CellValue);
    if ('richText' in value) return value.richText.map((r) => r.text).join('');
    if ('text' in value) return String(value.text);
    return '';
  }
  return String(value).trim();
}

/** What a cell of an exported sheet holds: a Date is a time (see sheetTime). */
export type SheetValue = string | number | Date | null;

/** How a time cell shows: a date and a time of day, as the spreadsheet's own date value. */
export const TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';

/**
 * Times as spreadsheet date cells in `timeZone` (the company's): a spreadsheet date has no zone,
 * so the cell holds the wall-clock time there (to the second), shown with TIME_FORMAT once the row
 * is written (timeCells). No time, or one that is not a time, is an empty cell.
 */
export function sheetTime(timeZone: string): (iso: string | null | undefined) => Date | '' {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  return (iso) => {
    const at = iso ? new Date(iso) : undefined;
    if (!at || Number.isNaN(at.getTime())) return '';
    const part = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, Number(p.value)]));
    return new Date(Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!));
  };
}

/** Gives the time cells of a written row their format. */
export function timeCells(row: ExcelJS.Row): ExcelJS.Row {
  row.eachCell((cell) => {
    if (cell.value instanceof Date) cell.numFmt = TIME_FORMAT;
  });
  return row;
}

/** A one-sheet workbook with a bold header row; Date values are time cells (sheetTime). */
export async function writeSheet(name: string, columns: { header: string; width: number }[], rows: SheetValue[][]): Promise<Buffer> {
  const workbook = new (await loadExcel()).Workbook();
  workbook.creator = 'Pass Cloud';
  const sheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = columns.map((c) => ({ header: c.header, width: c.width }));
  sheet.getRow(1).font = { bold: true };
  for (const row of rows) timeCells(sheet.addRow(row));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A workbook as the answer of an export route: a download named `filename`. */
export function xlsxDownload(filename: string, workbook: Buffer): { raw: { statusCode: number; headers: Record<string, string>; body: string; isBase64Encoded: boolean } } {
  return {
    raw: {
      statusCode: 200,
      headers: { 'content-type': XLSX_TYPE, 'content-disposition': `attachment; filename="${filename}"`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
      body: workbook.toString('base64'),
      isBase64Encoded: true,
    },
  };
}
