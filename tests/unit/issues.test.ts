import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as devices from '@passcloud/functions/contract/devices';
import * as files from '@passcloud/functions/contract/files';
import * as people from '@passcloud/functions/contract/people';
import * as systems from '@passcloud/functions/contract/systems';
import * as accounts from '@passcloud/functions/contract/accounts';
import * as licences from '@passcloud/functions/contract/licences';
import { LOCALES, type Locale } from '@passcloud/functions/contract/locales';
import { ValidationError, fieldError } from '@passcloud/functions/lib/errors';
import { errorResult, parse } from '@passcloud/functions/lib/http';
import { catalogs } from '@passcloud/functions/lib/i18n';
import { en_US } from '@passcloud/functions/lib/i18n/en_US';
import { fieldLabel, issueSentence, issueSummary, issueText, zodIssues } from '@passcloud/functions/lib/issues';
import { IMPORT_ROW_SCHEMAS, readRow, rowIssues, type ColumnKey } from '@passcloud/functions/domain/peopleImport';

/** What a failed parse answers: each issue's path and sentence. */
function refusal(schema: z.ZodType, value: unknown, locale: Locale = 'en_US', prefix = '') {
  try {
    parse(schema, value, locale, prefix);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.issues.map((issue) => ({ path: issue.path, message: issueText(issue, locale) }));
  }
  throw new Error('the value was accepted');
}

/** The 422 the API answers for a value, as the client reads it. */
function answer(schema: z.ZodType, value: unknown, locale: Locale = 'en_US') {
  try {
    parse(schema, value, locale, '');
  } catch (error) {
    const result = errorResult(error, locale, 'req-1');
    return { status: result.statusCode, ...(JSON.parse(result.body as string) as { message: string; data: { issues: { path: string; message: string }[] } }) };
  }
  throw new Error('the value was accepted');
}

const person = { personId: 'E0001', name: 'Alex Chen', role: 'Engineer', gender: 'male', groupKey: 'g0000000000000001' };

describe('zod issues as sentences naming the field', () => {
  it('says a missing or empty field is required, and nothing else about it', () => {
    expect(refusal(people.employeeCreateBody, { ...person, name: '', role: undefined, personId: '  ' })).toEqual([
      { path: 'personId', message: 'Personnel ID is required' },
      { path: 'name', message: 'Name is required' },
      { path: 'role', message: 'Role is required' },
    ]);
    expect(refusal(people.employeeCreateBody, { ...person, name: '' }, 'ja_JP')).toEqual([{ path: 'name', message: '氏名は必須です' }]);
    expect(refusal(people.employeeCreateBody, { ...person, name: '' }, 'de_DE')).toEqual([{ path: 'name', message: 'Name ist erforderlich' }]);
    expect(refusal(systems.registerBody, {}, 'zh_CN').find((i) => i.path === 'companyName')?.message).toBe('企业名称为必填项');
  });

  it('gives the bounds of text in characters, of numbers as values and of lists in items', () => {
    expect(refusal(people.employeeCreateBody, { ...person, name: 'x'.repeat(65) })).toEqual([{ path: 'name', message: 'Name must be at most 64 characters' }]);
    expect(refusal(people.employeeCreateBody, { ...person, name: 'x'.repeat(65) }, 'ja_JP')).toEqual([
      { path: 'name', message: '氏名は 64 文字以内で入力してください' },
    ]);
    expect(refusal(people.employeeCreateBody, { ...person, name: 'x'.repeat(65) }, 'de_DE')).toEqual([
      { path: 'name', message: 'Name darf höchstens 64 Zeichen lang sein' },
    ]);
    expect(refusal(devices.bindBody, { userCode: 'ab', serial: 'S1', info: {} }).find((i) => i.path === 'userCode')?.message).toBe(
      'Device binding code must be at least 4 characters',
    );
    expect(refusal(devices.devicePatchBody, { version: 1, settings: { volume: 101, relayDelay: 0 } })).toEqual([
      { path: 'settings.volume', message: 'Volume must be at most 100' },
      { path: 'settings.relayDelay', message: 'Door relay delay (seconds) must be at least 1' },
    ]);
    expect(refusal(devices.devicePatchBody, { version: 1, settings: { volume: 101 } }, 'ja_JP')).toEqual([
      { path: 'settings.volume', message: '音量は 100 以下にしてください' },
    ]);
    expect(refusal(devices.devicePatchBody, { version: 1, settings: { volume: 101 } }, 'de_DE')).toEqual([
      { path: 'settings.volume', message: 'Lautstärke darf höchstens 100 sein' },
    ]);
    expect(refusal(z.object({ weight: z.number().positive().lt(10) }), { weight: 0 })).toEqual([{ path: 'weight', message: 'Weight must be greater than 0' }]);
    expect(refusal(z.object({ weight: z.number().positive().lt(10) }), { weight: 10 })).toEqual([{ path: 'weight', message: 'Weight must be less than 10' }]);
    expect(refusal(devices.batchSettingsBody, { deviceKeys: [], settings: { fan: true } })).toEqual([
      { path: 'deviceKeys', message: 'Devices must not be empty' },
    ]);
    expect(refusal(devices.batchSettingsBody, { deviceKeys: Array(501).fill('k000000000000001'), settings: { fan: true } })).toEqual([
      { path: 'deviceKeys', message: 'Devices must have at most 500 items' },
    ]);
    expect(refusal(z.object({ deviceKeys: z.array(z.string()).min(2) }), { deviceKeys: ['a'] }, 'de_DE')).toEqual([
      { path: 'deviceKeys', message: 'Geräte muss mindestens 2 Einträge haben' },
    ]);
  });

  it('names the wrong kind of value', () => {
    expect(refusal(devices.devicePatchBody, { version: 1, settings: { volume: 'loud', fan: 'yes', identifyCount: 1.5 } })).toEqual([
      { path: 'settings.volume', message: 'Volume must be a number' },
      { path: 'settings.identifyCount', message: 'Identification count must be a whole number' },
      { path: 'settings.fan', message: 'Fan must be on or off' },
    ]);
    expect(refusal(people.groupBody, { name: 5, type: 'device' })).toEqual([{ path: 'name', message: 'Name must be text' }]);
    expect(refusal(devices.batchSettingsBody, { deviceKeys: 'k1', settings: { fan: true } }, 'ja_JP')).toEqual([
      { path: 'deviceKeys', message: 'デバイスは一覧で指定してください' },
    ]);
    expect(refusal(z.object({ batchSize: z.number().multipleOf(5) }), { batchSize: 7 })).toEqual([
      { path: 'batchSize', message: 'Batch size must be a multiple of 5' },
    ]);
  });

  it('says what an address or a code should look like', () => {
    expect(refusal(systems.validateCodesBody, { purpose: 'register', email: 'not-an-email' })).toEqual([
      { path: 'email', message: 'Email is not a valid email address' },
    ]);
    expect(refusal(systems.validateCodesBody, { purpose: 'register', email: 'x' }, 'ja_JP')).toEqual([
      { path: 'email', message: 'メールアドレスは有効なメールアドレスではありません' },
    ]);
    expect(refusal(systems.validateCodesBody, { purpose: 'register', email: 'x' }, 'de_DE')).toEqual([
      { path: 'email', message: 'E-Mail ist keine gültige E-Mail-Adresse' },
    ]);
    expect(refusal(systems.retrieveCheckBody, { username: 'alice', code: '12' })).toEqual([
      { path: 'code', message: 'Verification code is not in the expected format' },
    ]);
  });

  it('lists the allowed values as the console names them, in the reader’s language', () => {
    expect(refusal(devices.devicePatchBody, { version: 1, settings: { relayMode: 'ajar' } })).toEqual([
      { path: 'settings.relayMode', message: 'Relay mode must be Normally open or Normally closed' },
    ]);
    expect(refusal(devices.devicePatchBody, { version: 1, settings: { temperatureDisplay: 'kelvin' } }, 'ja_JP')).toEqual([
      { path: 'settings.temperatureDisplay', message: '温度表示には摂氏（°C）、華氏（°F）、または非表示を指定してください' },
    ]);
    expect(refusal(people.employeeCreateBody, { ...person, gender: 'x' }, 'de_DE')).toEqual([
      { path: 'gender', message: 'Geschlecht muss Männlich oder Weiblich sein' },
    ]);
    // Values the console has no words for are listed as they are sent.
    expect(refusal(systems.validateCodesBody, { purpose: 'other' })).toEqual([{ path: 'purpose', message: 'Purpose must be register or retrieve' }]);
  });

  it('keeps the message a schema gives, naming the field where the message does', () => {
    expect(refusal(devices.devicePatchBody, { version: 1, settings: { startupTime: '25:00' } })).toEqual([
      { path: 'settings.startupTime', message: 'Use a time of day as HH:mm, from 00:00 to 23:59' },
    ]);
    expect(refusal(devices.settingsPatch, { temperatureThreshold: 36, minPassTemperature: 36.5 }, 'en_US', 'settings')).toEqual([
      { path: 'settings.minPassTemperature', message: 'Minimum pass temperature must be below the alarm threshold' },
    ]);
    expect(refusal(devices.settingsPatch, { temperatureThreshold: 36, minPassTemperature: 36.5 }, 'ja_JP', 'settings')).toEqual([
      { path: 'settings.minPassTemperature', message: '最低通行温度は警告しきい値より低い値にしてください' },
    ]);
    expect(refusal(devices.batchSettingsBody, { deviceKeys: ['k000000000000001'], settings: {} }, 'de_DE')).toEqual([
      { path: 'settings', message: 'Wählen Sie mindestens eine Einstellung aus, die angewendet werden soll' },
    ]);
    expect(refusal(systems.registerBody, { agree: false }).find((i) => i.path === 'agree')?.message).toBe('Accept the service terms to register');
    // A message id with parameters keeps them.
    expect(issueText(fieldError('newPassword', 'password.tooShort', { min: 8 }).issues[0]!, 'en_US')).toBe('Must be at least 8 characters');
  });

  it('names nested fields by their own name and unknown ones after their path', () => {
    expect(
      refusal(devices.bindBody, {
        userCode: 'ABCD',
        serial: 'S1',
        info: {
          mac: 'zz',
          ip: '',
          firmware: '1',
          appVersion: '1',
          timezone: 'UTC',
          cameraResolution: 'x',
          previewResolution: 'x',
          storage: { freeBytes: -1, totalBytes: 1 },
        },
      }),
    ).toEqual([
      { path: 'info.mac', message: 'Use a MAC address such as 00:1A:2B:3C:4D:5E' },
      { path: 'info.storage.freeBytes', message: 'Free storage must be at least 0' },
    ]);
    expect(fieldLabel('info.mac', 'ja_JP')).toBe('MAC アドレス');
    expect(fieldLabel('settings.standbyAdvertising', 'de_DE')).toBe('Werbung im Standby');
    expect(fieldLabel('periods.0.onDuty', 'en_US')).toBe('On duty');
    // A field named after one of Object's own properties is named, not looked up on the prototype.
    expect(fieldLabel('constructor', 'en_US')).toBe('Constructor');
    expect(fieldLabel('a.toString', 'en_US')).toBe('To string');
    expect(refusal(z.object({ constructor: z.string() }).strict(), { constructor: 1 })).toEqual([{ path: 'constructor', message: expect.stringContaining('Constructor') }]);
    expect(refusal(z.object({ periods: z.array(z.object({ onDuty: z.string() })) }), { periods: [{}] })).toEqual([
      { path: 'periods.0.onDuty', message: 'On duty is required' },
    ]);
  });

  it('refuses fields nobody asked for, and a union no branch of which fits', () => {
    expect(refusal(people.groupBody, { name: 'A', type: 'device', colour: 'red' })).toEqual([
      { path: 'body', message: 'These fields are not accepted: colour' },
    ]);
    expect(refusal(devices.devicePatchBody, { version: 1, settings: { glow: 1 } })).toEqual([
      { path: 'settings', message: 'These fields are not accepted: glow' },
    ]);
    expect(refusal(devices.devicePatchBody, { version: 1, groupKey: 5 })).toEqual([{ path: 'groupKey', message: 'Group is not valid' }]);
    // A clearable field that is neither empty nor valid reports its own rule.
    expect(refusal(people.employeePatchBody, { version: 1, email: 'nope' })).toEqual([{ path: 'email', message: 'Email is not a valid email address' }]);
  });

  it('maps every issue code it meets', () => {
    const codes = (value: unknown, schema: z.ZodType) => {
      const result = schema.safeParse(value, { reportInput: true });
      return result.success ? [] : zodIssues(result.error.issues, 'en_US').map((i) => i.message);
    };
    expect(codes({ a: undefined }, z.object({ a: z.string() }))).toEqual(['issue.required']);
    expect(codes({ a: 1 }, z.object({ a: z.string() }))).toEqual(['issue.notText']);
    expect(codes({ a: 'ab' }, z.object({ a: z.string().min(3) }))).toEqual(['issue.tooShort']);
    expect(codes({ a: 'abcd' }, z.object({ a: z.string().max(3) }))).toEqual(['issue.tooLong']);
    expect(codes({ a: 1 }, z.object({ a: z.number().min(2) }))).toEqual(['issue.tooSmall']);
    expect(codes({ a: 3 }, z.object({ a: z.number().max(2) }))).toEqual(['issue.tooBig']);
    expect(codes({ a: [1, 2] }, z.object({ a: z.array(z.number()).max(1) }))).toEqual(['issue.tooManyItems']);
    expect(codes({ a: 'x' }, z.object({ a: z.email() }))).toEqual(['issue.email']);
    expect(codes({ a: 'x' }, z.object({ a: z.string().regex(/^\d$/) }))).toEqual(['issue.format']);
    expect(codes({ a: 'x' }, z.object({ a: z.enum(['y', 'z']) }))).toEqual(['issue.oneOf']);
    expect(codes({ a: 3 }, z.object({ a: z.number().multipleOf(2) }))).toEqual(['issue.multipleOf']);
    expect(codes({ b: 1 }, z.object({}).strict())).toEqual(['issue.unknownFields']);
    expect(codes({ a: 1 }, z.object({ a: z.number().refine((v) => v > 1) }))).toEqual(['issue.invalid']);
    expect(codes({ a: 1 }, z.object({ a: z.number().refine((v) => v > 1, { message: 'devices.oneDecimal' }) }))).toEqual(['devices.oneDecimal']);
  });
});

describe('a 422 as the API answers it', () => {
  it('puts each sentence in data.issues under the same path, and all of them in the message', () => {
    const refused = answer(people.employeeCreateBody, { ...person, name: '', email: 'alex@' });
    expect(refused.status).toBe(422);
    expect(refused.data.issues).toEqual([
      { path: 'name', message: 'Name is required' },
      { path: 'email', message: 'Email is not a valid email address' },
    ]);
    expect(refused.message).toBe('Some fields are not valid: Name is required; Email is not a valid email address');
    expect(answer(people.employeeCreateBody, { ...person, name: '', email: 'alex@' }, 'ja_JP').message).toBe(
      '一部の項目が無効です：氏名は必須です。メールアドレスは有効なメールアドレスではありません',
    );
    expect(answer(people.employeeCreateBody, { ...person, name: '', email: 'alex@' }, 'de_DE').message).toBe(
      'Einige Felder sind ungültig: Name ist erforderlich; E-Mail ist keine gültige E-Mail-Adresse',
    );
  });

  it('names the field in the message when the sentence itself does not', () => {
    const refused = answer(devices.devicePatchBody, { version: 1, settings: { startupTime: '7am', volume: -1 } });
    expect(refused.data.issues.map((i) => i.message)).toEqual(['Volume must be at least 0', 'Use a time of day as HH:mm, from 00:00 to 23:59']);
    expect(refused.message).toBe('Some fields are not valid: Volume must be at least 0; Startup time: Use a time of day as HH:mm, from 00:00 to 23:59');
    expect(answer(devices.devicePatchBody, { version: 1, settings: { startupTime: '7am' } }, 'ja_JP').message).toBe(
      '一部の項目が無効です：起動時刻：時刻は 00:00～23:59 の範囲で HH:mm 形式で入力してください',
    );
    expect(issueSentence({ path: 'body', message: 'error.invalidJson' }, 'en_US')).toBe('The request body is not valid JSON');
    expect(issueSummary([{ path: 'kind', message: { text: 'Invalid option' } }], 'en_US')).toBe('Some fields are not valid: Upload type: Invalid option');
  });
});

describe('a workbook row', () => {
  /** The reasons a row is refused before anything is looked up, as the import report gives them. */
  function reasons(cells: Partial<Record<ColumnKey, string>>, locale: Locale) {
    const { candidate, issues } = readRow('employee', (key) => cells[key] ?? '', {});
    const checked = IMPORT_ROW_SCHEMAS.employee.safeParse(candidate, { reportInput: true });
    return rowIssues(issues, checked.success ? [] : zodIssues(checked.error.issues, locale)).map((issue) => issueSentence(issue, locale));
  }
  const row = { personId: 'E1', name: 'Alex', role: 'Clerk', gender: 'male', group: 'Sales' };

  it('lists every problem, in the order of the template’s columns, each naming its column', () => {
    expect(reasons({ ...row, gender: 'robot', email: 'alex@', name: '' }, 'en_US')).toEqual([
      'Name is required',
      'Gender must be male or female',
      'Email is not a valid email address',
    ]);
    expect(reasons({ ...row, gender: 'robot', email: 'alex@', name: '' }, 'ja_JP')).toEqual([
      '氏名は必須です',
      '性別には男性または女性を指定してください',
      'メールアドレスは有効なメールアドレスではありません',
    ]);
    expect(reasons({ ...row, gender: 'robot', email: 'alex@', name: '' }, 'de_DE')).toEqual([
      'Name ist erforderlich',
      'Geschlecht muss männlich oder weiblich sein',
      'E-Mail ist keine gültige E-Mail-Adresse',
    ]);
    expect(reasons({ ...row, group: '', department: 'x'.repeat(65), icCard: '12', phone: '?' }, 'en_US')).toEqual([
      'Group is required',
      'Phone: Enter a phone number of 3 to 32 digits, spaces, +, -, ( or )',
      'IC card number: Use 4 to 32 letters or digits',
      'Department must be at most 64 characters',
    ]);
    expect(reasons(row, 'en_US')).toEqual([]);
  });

  it('names a group or department that could not be created, and a value someone else holds', () => {
    const notCreated = { path: 'group', message: 'import.notCreated', params: { name: 'Sales' } } as const;
    expect(issueSentence(notCreated, 'en_US')).toBe("Group 'Sales' does not exist and could not be created");
    expect(issueSentence(notCreated, 'ja_JP')).toBe('グループ「Sales」は存在せず、作成できませんでした');
    expect(issueSentence({ path: 'department', message: 'import.notCreated', params: { name: 'R&D' } }, 'de_DE')).toBe(
      'Abteilung „R&D“ existiert nicht und konnte nicht angelegt werden',
    );
    expect(issueSentence({ path: 'personId', message: 'import.otherList' }, 'en_US')).toBe('Personnel ID is already used by someone in the other list');
    expect(issueSentence({ path: 'icCard', message: 'people.icCardTaken' }, 'en_US')).toBe('This IC card number is already used by someone else');
    expect(issueSentence({ path: 'icCard', message: 'people.icCardTaken' }, 'zh_CN')).toBe('该IC卡号已被他人使用');
  });
});

/** Every field name in a schema, as dotted paths. */
function fieldPaths(schema: z.ZodType, at = ''): string[] {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  switch (def.type) {
    case 'object':
      return Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([name, inner]) => {
        const path = at ? `${at}.${name}` : name;
        return [path, ...fieldPaths(inner, path)];
      });
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
      return fieldPaths(def.innerType as z.ZodType, at);
    case 'pipe':
      return fieldPaths(def.in as z.ZodType, at);
    case 'union':
      return (def.options as z.ZodType[]).flatMap((option) => fieldPaths(option, at));
    default:
      return [];
  }
}

describe('names for every field and value, in every language', () => {
  const schemas = Object.entries({ ...people, ...systems, ...files, ...devices, ...accounts, ...licences }).filter(
    ([name, value]) => value instanceof z.ZodType && (/(Body|Query)$/.test(name) || ['resetPayload', 'uploadFields'].includes(name)),
  );
  const paths = [...new Set(schemas.flatMap(([, schema]) => fieldPaths(schema as z.ZodType)))];
  const names = new Set(Object.values(en_US));

  it('finds the fields of the API’s bodies and queries', () => {
    expect(schemas.length).toBeGreaterThan(20);
    expect(paths).toEqual(expect.arrayContaining(['personId', 'companyName', 'settings.volume', 'info.mac', 'info.storage.freeBytes', 'deviceKeys']));
  });

  it('names each of them as the console does, not after its path', () => {
    const unnamed = paths.filter((path) => !names.has(fieldLabel(path, 'en_US')));
    expect(unnamed).toEqual([]);
    for (const name of devices.SETTING_NAMES) expect(fieldLabel(`settings.${name}`, 'en_US')).toBe(en_US[`setting.${name}`]);
  });

  it('names every choice of every setting', () => {
    for (const name of devices.SETTING_NAMES) {
      const options = (devices.settingFields[name] as unknown as { options?: readonly string[] }).options ?? [];
      for (const option of options) expect(Object.hasOwn(en_US, `option.${name}.${option}`), `${name}.${option}`).toBe(true);
    }
  });

  it.each(LOCALES)('%s has every key, every field name and every sentence with the placeholders of English', (locale) => {
    const catalog = catalogs[locale] as Record<string, string>;
    expect(Object.keys(catalog).sort()).toEqual(Object.keys(en_US).sort());
    for (const path of paths) expect(fieldLabel(path, locale).trim(), path).not.toBe('');
    for (const [id, english] of Object.entries(en_US).filter(([id]) => id.startsWith('issue.'))) {
      expect(catalog[id]!.includes('{field}'), id).toBe(english.includes('{field}'));
    }
  });
});
