import ExcelJS from 'exceljs';
import yazl from 'yazl';

/** The import template's headers, in English and in Chinese. */
export const EN_HEADERS = ['Personnel ID*', 'Name*', 'Role*', 'Gender*', 'Group*', 'Phone', 'Email', 'IC card number', 'Department', 'Remark'];
export const ZH_HEADERS = ['人员编号*', '姓名*', '角色*', '性别*', '分组*', '手机号', '邮箱', 'IC卡号', '部门', '备注'];

/** A one-sheet workbook: the header row, then the rows. */
export async function workbook(header: string[], rows: (string | number)[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Personnel');
  sheet.addRow(header);
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** A zip archive of the entries; `mode` sets Unix file attributes (a link, say). */
export function zip(entries: { name: string; data: Buffer; mode?: number }[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const archive = new yazl.ZipFile();
    for (const e of entries) archive.addBuffer(e.data, e.name, e.mode ? { mode: e.mode } : {});
    archive.end();
    const chunks: Buffer[] = [];
    archive.outputStream.on('data', (c: Buffer) => chunks.push(c));
    archive.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    archive.outputStream.on('error', reject);
  });
}
