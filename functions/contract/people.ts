/**
 * Columns of the personnel import template (served at /file/Personnel_import_template_EN.xlsx and
 * _ZH.xlsx); imports accept either header language.
 */
export interface TemplateColumn {
  key: 'personId' | 'name' | 'role' | 'gender' | 'group' | 'phone' | 'email' | 'icCard' | 'department' | 'remark';
  en: string;
  zh: string;
  required: boolean;
  width: number;
  example: string | number;
  exampleZh?: string;
}

export const PERSONNEL_COLUMNS: TemplateColumn[] = [
  { key: 'personId', en: 'Personnel ID', zh: '人员编号', required: true, width: 16, example: 'E0001' },
  { key: 'name', en: 'Name', zh: '姓名', required: true, width: 18, example: 'Alex Chen', exampleZh: '陈明' },
  { key: 'role', en: 'Role', zh: '角色', required: true, width: 16, example: 'Engineer', exampleZh: '工程师' },
  { key: 'gender', en: 'Gender', zh: '性别', required: true, width: 10, example: 'male', exampleZh: '男' },
  { key: 'group', en: 'Group', zh: '分组', required: true, width: 16, example: 'Default', exampleZh: '默认分组' },
  { key: 'phone', en: 'Phone', zh: '手机号', required: false, width: 16, example: '+1 555 0100' },
  { key: 'email', en: 'Email', zh: '邮箱', required: false, width: 24, example: 'alex.chen@example.com' },
  { key: 'icCard', en: 'IC card number', zh: 'IC卡号', required: false, width: 16, example: '0012345678' },
  { key: 'department', en: 'Department', zh: '部门', required: false, width: 18, example: 'R&D', exampleZh: '研发部' },
  { key: 'remark', en: 'Remark', zh: '备注', required: false, width: 24, example: '' },
];

export const GENDER_VALUES = { male: ['male', 'm', '男'], female: ['female', 'f', '女'] } as const;
