import ExcelJS from 'exceljs';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PERSONNEL_COLUMNS } from '@passcloud/functions/contract/people';

/** Writes the personnel import templates (English and Chinese) into public/file/. */
const out = resolve(import.meta.dirname, '../public/file');
mkdirSync(out, { recursive: true });

const text = {
  en: {
    sheet: 'Personnel',
    notes: 'Instructions',
    lines: [
      'Fill one person per row, starting at row 2; columns marked * are required.',
      'Personnel ID must be unique in your company; a row with an existing ID updates that person.',
      'Gender: male or female.',
      'Save as .xlsx (at most 2 MB). Photos are imported separately as a .zip with a folder named photo, each file named after the personnel ID.',
    ],
  },
  zh: {
    sheet: '人员信息',
    notes: '填写说明',
    lines: [
      '从第 2 行开始，每行填写一人；带 * 的列为必填。',
      '人员编号在本公司内唯一；编号已存在的行将更新该人员。',
      '性别：男 或 女。',
      '请保存为 .xlsx（不超过 2 MB）。照片另行以 .zip 导入：压缩包内含名为 photo 的文件夹，每张照片以人员编号命名。',
    ],
  },
} as const;

for (const lang of ['en', 'zh'] as const) {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Pass Cloud';
  workbook.created = new Date('2026-01-01T00:00:00Z');
  const sheet = workbook.addWorksheet(text[lang].sheet, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = PERSONNEL_COLUMNS.map((c) => ({ header: `${c[lang]}${c.required ? '*' : ''}`, key: c.key, width: c.width }));
  sheet.getRow(1).font = { bold: true };
  sheet.getRow(1).fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFDCE8F7' } };
  sheet.addRow(Object.fromEntries(PERSONNEL_COLUMNS.map((c) => [c.key, lang === 'zh' && c.exampleZh ? c.exampleZh : c.example])));
  for (const column of ['personId', 'phone', 'icCard']) sheet.getColumn(column).numFmt = '@';
  const notes = workbook.addWorksheet(text[lang].notes);
  notes.getColumn(1).width = 110;
  text[lang].lines.forEach((line) => notes.addRow([line]));
  await workbook.xlsx.writeFile(resolve(out, `Personnel_import_template_${lang.toUpperCase()}.xlsx`));
}
