import { SYSTEM_SCOPE } from '../tables.ts';
import { sortKey } from './sortKey.ts';

/**
 * Keys of the events table (data/tables.ts EVENTS_TABLE): high-volume records and jobs. Most items
 * live in the company's partition (`pk` = tenant id); pass records and calls are spread over
 * partitions of their own, named here too (docs/scale.md says why).
 */

// Pass records (data/passRecords.ts explains the layout).
export const RECORD = sortKey('rec', ['verifyTime', 'deviceKey', 'recordId'] as const);
export const RECORD_MARKER = sortKey('recid', ['recordId'] as const);
export const RECORD_FLAG = sortKey('recx', ['flag', 'verifyTime', 'deviceKey', 'recordId'] as const);
export const PUNCH = sortKey('punch', ['verifyTime', 'deviceKey', 'recordId'] as const);
export const RECORD_COUNTER_SK = 'cnt';
export const recordPartition = (tenantId: string, day: string, shard: number): string => `${tenantId}#rec#${day}#${shard}`;
export const recordDevicePartition = (tenantId: string, deviceKey: string): string => `${tenantId}#rec#${deviceKey}`;
export const recordFlagPartition = (tenantId: string, flag: string, day: string): string => `${tenantId}#recx#${flag}#${day}`;
export const recordMarkerPartition = (tenantId: string, deviceKey: string): string => `${tenantId}#recid#${deviceKey}`;
export const punchPartition = (tenantId: string, personKey: string): string => `${tenantId}#punch#${personKey}`;
export const recordCounterPartition = (tenantId: string, day: string, shard: number): string => `${tenantId}#cnt#${day}#${shard}`;
/** gsi1 sort key of a record in its device's partition: time, then its id. */
export const byDeviceSk = (time: string, id: string): string => `${time}#${id}`;

// Attendance results.
export const ATTENDANCE_DAY = sortKey('attDay', ['date', 'personKey'] as const);
export const ATTENDANCE_MONTH = sortKey('attMonth', ['month', 'personKey'] as const);
export const ATTENDANCE_COUNTS = sortKey('attCounts', ['date'] as const);
export const ATTENDANCE_MAIL_SENT = sortKey('attMail', ['day'] as const);
export const ATTENDANCE_RECOMPUTE = sortKey('attRecompute', ['jobKey'] as const);

// Calls of the intercoms.
export const CALL = sortKey('call', ['startTime', 'callId'] as const);
export const CALL_MARKER = sortKey('callid', ['callId'] as const);
/** Calls stored before both ends shared one item: one per (reporting intercom, call), read until retention ends them. */
export const LEGACY_CALL_MARKER = sortKey('callid', ['deviceKey', 'callId'] as const);

// Questionnaire answers.
export const QUESTIONNAIRE_RESULT = sortKey('qresult', ['questionnaireKey', 'answeredAt', 'resultId'] as const);
export const QUESTIONNAIRE_ANSWER = sortKey('qanswer', ['deviceKey', 'answerId'] as const);
export const SURVEY_LINK = sortKey('qlink', ['linkId'] as const);

// Devices' commands and logs.
export const DEVICE_COMMAND = sortKey('command', ['deviceKey', 'commandKey'] as const);
export const DEVICE_LOG = sortKey('log', ['deviceKey', 'logKey'] as const);
export const ALERT_GATE = sortKey('alertGate', ['kind', 'deviceKey', 'who'] as const);

// Mail records, and the queue of those to try again (gsi1).
export const MAIL = sortKey('mail', ['sentAt', 'mailId'] as const);
export const MAIL_RETRY_QUEUE = `${SYSTEM_SCOPE}#mailRetry`;

// Webhook deliveries.
export const WEBHOOK_DELIVERY = sortKey('webhookDelivery', ['webhookKey', 'eventId'] as const);

// Background jobs and their slots.
export const IMPORT_JOB = sortKey('import', ['jobKey'] as const);
export const EXPORT_JOB = sortKey('recordExport', ['jobKey'] as const);
export const GRANT_JOB = sortKey('grantJob', ['jobKey'] as const);
export const GRANT_PIECE = sortKey('grantPiece', ['jobKey', 'deviceKey'] as const);
export const JOB_SLOTS = sortKey('jobSlots', ['kind'] as const);
