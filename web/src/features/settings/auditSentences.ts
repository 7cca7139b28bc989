import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import type { Route } from '@passcloud/functions/routes';

/**
 * The routes the audit log records (functions/lib/audit.ts `auditKindOf`): every session route
 * but GET, and the GETs the route table marks with `audit`.
 */
type Audited<E> = E extends { access: 'session' } ? (E extends { audit: string } ? E : E extends { method: 'GET' } ? never : E) : never;
export type AuditedRouteKey = Audited<Route> extends infer E ? (E extends Route ? `${E['method']} ${E['path']}` : never) : never;

/** An entry's sentence: given the item's name where the action names one. */
type Sentence = (name: string) => MessageDescriptor;

/**
 * What each audited action reads as, in the reader's language: a sentence naming the item where
 * the route acts on one (functions/data/auditItems.ts names it). An audited route without one
 * fails the type check and tests/component/auditSentences.test.tsx.
 */
export const AUDIT_SENTENCES: Record<AuditedRouteKey, Sentence> = {
  'POST /v1/systems/logout': () => msg`Logged out`,
  'PATCH /v1/systems/reset': () => msg`Changed their own password`,
  'POST /v1/systems/twoFactor/enrolment': () => msg`Started setting up two-factor login`,
  'POST /v1/systems/twoFactor': () => msg`Turned on two-factor login`,
  'POST /v1/systems/twoFactor/recoveryCodes': () => msg`Made new two-factor recovery codes`,
  'POST /v1/systems/twoFactor/disable': () => msg`Turned off their own two-factor login`,

  'POST /v1/files/uploads': () => msg`Uploaded a file`,
  'POST /v1/files/uploads/presign': () => msg`Started a photo upload`,
  'POST /v1/files/uploads/{uploadKey}/complete': () => msg`Finished a photo upload`,

  'POST /v1/groups': (name) => msg`Created group ${name}`,
  'PATCH /v1/groups/{groupKey}': (name) => msg`Changed group ${name}`,
  'DELETE /v1/groups/{groupKey}': (name) => msg`Deleted group ${name}`,
  'POST /v1/departments': (name) => msg`Created department ${name}`,
  'PATCH /v1/departments/{departmentKey}': (name) => msg`Changed department ${name}`,
  'DELETE /v1/departments/{departmentKey}': (name) => msg`Deleted department ${name}`,

  'POST /v1/employees': (name) => msg`Added employee ${name}`,
  'POST /v1/employees/exports': () => msg`Exported employees`,
  'POST /v1/employees/imports': () => msg`Imported employees`,
  'POST /v1/employees/imports/avatars': () => msg`Imported employee photos`,
  'POST /v1/employees/imports/jobs': () => msg`Prepared an employee import`,
  'POST /v1/employees/imports/jobs/{jobKey}/start': () => msg`Started an employee import`,
  'PATCH /v1/employees/{employeeKey}': (name) => msg`Changed employee ${name}`,
  'DELETE /v1/employees/{employeeKey}': (name) => msg`Deleted employee ${name}`,
  'POST /v1/employees/{employeeKey}/erase': (name) => msg`Erased employee ${name}`,
  'POST /v1/employees/{employeeKey}/resign': (name) => msg`Marked employee ${name} as resigned`,
  'POST /v1/employees/{employeeKey}/entry': (name) => msg`Took employee ${name} on again`,

  'POST /v1/attendance/shifts': (name) => msg`Created shift ${name}`,
  'PATCH /v1/attendance/shifts/{shiftKey}': (name) => msg`Changed shift ${name}`,
  'DELETE /v1/attendance/shifts/{shiftKey}': (name) => msg`Deleted shift ${name}`,
  'POST /v1/attendance/groups': (name) => msg`Created attendance group ${name}`,
  'PATCH /v1/attendance/groups/{attendanceGroupKey}': (name) => msg`Changed attendance group ${name}`,
  'DELETE /v1/attendance/groups/{attendanceGroupKey}': (name) => msg`Deleted attendance group ${name}`,
  'POST /v1/attendance/holidays': (name) => msg`Added holiday ${name}`,
  'PATCH /v1/attendance/holidays/{holidayKey}': (name) => msg`Changed holiday ${name}`,
  'DELETE /v1/attendance/holidays/{holidayKey}': (name) => msg`Deleted holiday ${name}`,
  'POST /v1/attendance/recompute': () => msg`Recomputed attendance`,
  'GET /v1/attendance/daily/export': () => msg`Exported daily attendance`,
  'GET /v1/attendance/monthly/export': () => msg`Exported monthly attendance`,

  'POST /v1/visitors': (name) => msg`Added visitor ${name}`,
  'POST /v1/visitors/exports': () => msg`Exported visitors`,
  'POST /v1/visitors/imports': () => msg`Imported visitors`,
  'POST /v1/visitors/imports/avatars': () => msg`Imported visitor photos`,
  'POST /v1/visitors/imports/jobs': () => msg`Prepared a visitor import`,
  'POST /v1/visitors/imports/jobs/{jobKey}/start': () => msg`Started a visitor import`,
  'PATCH /v1/visitors/{visitorKey}': (name) => msg`Changed visitor ${name}`,
  'DELETE /v1/visitors/{visitorKey}': (name) => msg`Deleted visitor ${name}`,
  'POST /v1/visitors/{visitorKey}/erase': (name) => msg`Erased visitor ${name}`,

  'POST /v1/devices/batchSettings': () => msg`Changed the settings of several devices`,
  'POST /v1/devices/requests/{requestKey}': (name) => msg`Added terminal ${name} again`,
  'DELETE /v1/devices/requests/{requestKey}': (name) => msg`Kept terminal ${name} out`,
  'PATCH /v1/devices/{deviceKey}': (name) => msg`Changed device ${name}`,
  'DELETE /v1/devices/{deviceKey}': (name) => msg`Deleted device ${name}`,
  'POST /v1/devices/{deviceKey}/replacement': (name) => msg`Approved the replacement of device ${name}`,
  'DELETE /v1/devices/{deviceKey}/replacement': (name) => msg`Rejected the replacement of device ${name}`,
  'POST /v1/devices/{deviceKey}/commands': (name) => msg`Sent a command to device ${name}`,
  'PUT /v1/doorModes': () => msg`Set or ended a door mode`,
  'PUT /v1/doorModes/exemptions': () => msg`Changed who a lockdown lets pass`,

  'PATCH /v1/intercom/devices/{intercomKey}': (name) => msg`Changed intercom ${name}`,
  'DELETE /v1/intercom/devices/{intercomKey}': (name) => msg`Deleted intercom ${name}`,
  'POST /v1/intercom/calls/exports': () => msg`Exported call records`,
  'POST /v1/intercom/calls/{callKey}/openDoor': () => msg`Opened the door during a call`,
  'GET /v1/intercom/calls/{callKey}/recording': () => msg`Played a call recording`,

  'POST /v1/questionnaires': (name) => msg`Created survey ${name}`,
  'PATCH /v1/questionnaires/{questionnaireKey}': (name) => msg`Changed survey ${name}`,
  'DELETE /v1/questionnaires/{questionnaireKey}': (name) => msg`Deleted survey ${name}`,
  'POST /v1/questionnaires/{questionnaireKey}/open': (name) => msg`Opened survey ${name}`,
  'POST /v1/questionnaires/{questionnaireKey}/close': (name) => msg`Closed survey ${name}`,
  'POST /v1/questionnaires/{questionnaireKey}/results/exports': (name) => msg`Exported the results of survey ${name}`,

  'POST /v1/authorities': () => msg`Authorized people on devices`,
  'POST /v1/authorities/check': () => msg`Checked the devices' face capacity`,
  'POST /v1/authorities/sync/retry': () => msg`Sent authorizations to their devices again`,
  'PATCH /v1/authorities/{authorityKey}': () => msg`Changed the validity of an authorization`,
  'DELETE /v1/authorities/{authorityKey}': () => msg`Revoked an authorization`,
  'POST /v1/schedules': (name) => msg`Created access schedule ${name}`,
  'PATCH /v1/schedules/{scheduleKey}': (name) => msg`Changed access schedule ${name}`,
  'DELETE /v1/schedules/{scheduleKey}': (name) => msg`Deleted access schedule ${name}`,

  'POST /v1/accounts': (name) => msg`Created account ${name}`,
  'PATCH /v1/accounts/{accountKey}': (name) => msg`Changed account ${name}`,
  'DELETE /v1/accounts/{accountKey}': (name) => msg`Deleted account ${name}`,
  'POST /v1/accounts/{accountKey}/password': (name) => msg`Reset the password of account ${name}`,
  'DELETE /v1/accounts/{accountKey}/twoFactor': (name) => msg`Reset the two-factor login of account ${name}`,

  'POST /v1/licences': () => msg`Activated a licence`,
  'PATCH /v1/licences/reminder': () => msg`Changed the licence reminder`,
  'POST /v1/licences/trial': () => msg`Started the free trial`,
  'POST /v1/settings/system/packages': () => msg`Started uploading a client package`,
  'POST /v1/settings/system/packages/{packageKey}/complete': () => msg`Uploaded a client package`,
  'PUT /v1/settings/privacy': () => msg`Changed the privacy settings`,
  'PUT /v1/settings/twoFactor': () => msg`Changed the two-factor login requirement`,
  'PUT /v1/settings/email': () => msg`Changed the email settings`,
  'POST /v1/settings/email/test': () => msg`Sent a test mail`,

  'POST /v1/webhooks': (name) => msg`Created the webhook for ${name}`,
  'PATCH /v1/webhooks/{webhookKey}': (name) => msg`Changed the webhook for ${name}`,
  'DELETE /v1/webhooks/{webhookKey}': (name) => msg`Deleted the webhook for ${name}`,
  'POST /v1/webhooks/{webhookKey}/secret': (name) => msg`Rotated the secret of the webhook for ${name}`,
  'POST /v1/webhooks/{webhookKey}/test': (name) => msg`Sent a test event to the webhook for ${name}`,
  'POST /v1/webhooks/{webhookKey}/deliveries/{deliveryKey}/replay': (name) => msg`Sent a delivery of the webhook for ${name} again`,
  'POST /v1/webhooks/{webhookKey}/replay': (name) => msg`Sent deliveries of the webhook for ${name} again`,
  'POST /v1/apiKeys': (name) => msg`Made API key ${name}`,
  'POST /v1/apiKeys/{apiKeyKey}/secret': (name) => msg`Gave API key ${name} a new secret`,
  'DELETE /v1/apiKeys/{apiKeyKey}': (name) => msg`Revoked API key ${name}`,
  'POST /v1/mailRecords/{mailKey}/resend': () => msg`Sent a failed mail again`,
  'POST /v1/passRecords/exports': () => msg`Exported pass records`,
  'POST /v1/blacklistRecords/exports': () => msg`Exported blacklist records`,
  'GET /v1/audit/export': () => msg`Exported the audit log`,
};

/** The screen that shows an item, by the path parameter that carries its key. */
export const ITEM_SCREENS: Partial<Record<string, (key: string) => string>> = {
  accountKey: (key) => `/settings/account/${key}`,
  employeeKey: (key) => `/pass-platform/enterprise/employee/${key}`,
  visitorKey: (key) => `/pass-platform/personnel/management/${key}`,
  shiftKey: (key) => `/pass-platform/enterprise/attendance/settings/shift/${key}`,
  attendanceGroupKey: (key) => `/pass-platform/enterprise/attendance/settings/group/${key}`,
  holidayKey: () => '/pass-platform/enterprise/attendance/settings/holiday',
  deviceKey: (key) => `/pass-platform/device/management/${key}`,
  intercomKey: (key) => `/intercom-platform/device/management/${key}`,
  questionnaireKey: () => '/pass-platform/passage/questionnaire',
  webhookKey: () => '/settings/webhooks',
  apiKeyKey: () => '/settings/apikeys',
};
