import { sortKey } from './sortKey.ts';

/**
 * Keys of the main table (data/tables.ts MAIN_TABLE): every item lives in its company's partition,
 * `pk` = the tenant id (or `_system`), under one of these sort keys. ElectroDB entities take
 * `template`; modules that read and write raw items take `of`, `prefix` and `end`.
 */

// The company, its settings and its accounts.
export const TENANT_SK = 'tenant';
export const SETTINGS = sortKey('settings', ['name'] as const);
export const PRIVACY_SETTINGS_SK = SETTINGS.of('privacy');
export const EMAIL_SETTINGS_SK = SETTINGS.of('email');
export const CLIENT_RELEASE_SK = SETTINGS.of('clientRelease');
export const CLIENT_PACKAGE = sortKey('clientPackage', ['packageKey'] as const);
export const ACCOUNT = sortKey('account', ['accountId'] as const);
export const SESSION = sortKey('session', ['tokenHash'] as const);
export const CHALLENGE = sortKey('challenge', ['challengeHash'] as const);
export const INVITATION = sortKey('invitation', ['tokenHash'] as const);
export const LICENCE = sortKey('licence', ['licenceId'] as const);
export const SECURITY_KEY = sortKey('security', ['securityId'] as const);
export const API_KEY = sortKey('apiKey', ['apiKeyKey'] as const);
export const API_KEY_COUNT_SK = 'apiKeyCount';
export const WEBHOOK = sortKey('webhook', ['webhookKey'] as const);
export const WEBHOOK_COUNT_SK = 'webhookCount';

// Records of no tenant yet (`_system`) and guards.
export const CLAIM = sortKey('claim', ['kind', 'value'] as const);
export const VERIFICATION_CODE = sortKey('code', ['purpose', 'subject'] as const);
export const THROTTLE = sortKey('throttle', ['scope', 'subject'] as const);

// People.
export const PERSON = sortKey('person', ['kind', 'personKey'] as const);
export const PERSON_UNIQUE = sortKey('unique', ['field', 'value'] as const);
export const PERSON_TERM = sortKey('term', ['kind', 'term', 'personKey'] as const);
export const PERSON_COUNT = sortKey('count', ['kind', 'state'] as const);
export const DEPARTMENT = sortKey('department', ['departmentKey'] as const);
export const GROUP = sortKey('group', ['groupKey'] as const);

// Devices and what they are given.
export const DEVICE = sortKey('device', ['deviceKey'] as const);
export const DEVICE_REQUEST = sortKey('deviceRequest', ['requestKey'] as const);
export const AUTHORITY = sortKey('authority', ['personKey', 'setType', 'deviceKey'] as const);
/** A device's changes in order (gsi1): partition `<tenantId>#faces#<deviceKey>`, sort key the change's sequence. */
export const FACES_PARTITION_TEMPLATE = '${tenantId}#faces#${deviceKey}';
export const facesPartition = (tenantId: string, deviceKey: string): string =>
  FACES_PARTITION_TEMPLATE.replace('${tenantId}', tenantId).replace('${deviceKey}', deviceKey);
export const FACE_SEQ = sortKey('faceSeq', ['deviceKey'] as const);
export const SYNC_COUNTS = sortKey('syncCounts', ['deviceKey'] as const);
/** Access schedules, and the company's count of them. */
export const SCHEDULE = sortKey('schedule', ['scheduleKey'] as const);
export const SCHEDULE_COUNT_SK = 'scheduleCount';

// Attendance rules.
export const ATTENDANCE_SHIFT = sortKey('attendanceShift', ['shiftKey'] as const);
export const ATTENDANCE_GROUP = sortKey('attendanceGroup', ['attendanceGroupKey'] as const);
export const ATTENDANCE_HOLIDAY = sortKey('attendanceHoliday', ['holidayKey'] as const);
export const ATTENDANCE_COUNT = sortKey('attendanceCount', ['kind'] as const);
export const ATTENDANCE_RULES_CHANGED_SK = 'attendanceRulesChanged';

// Questionnaires.
export const QUESTIONNAIRE = sortKey('questionnaire', ['questionnaireKey'] as const);
/** Revisions sort in order: the number is written with 6 digits. */
export const QUESTIONNAIRE_REVISION = sortKey('questionnaireRevision', ['questionnaireKey', 'revision'] as const);
export const QUESTIONNAIRE_COUNT = sortKey('questionnaireCount', ['kind'] as const);

// Erasure receipts: the tombstone of an erased person's key.
export const ERASURE = sortKey('erasure', ['kind', 'personKey'] as const);
