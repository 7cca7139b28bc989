import type { AuthCode } from '#contract/menu';
import { LIVE_TOPIC_CODES } from '#contract/live';
import { PICKER_CODES } from '#contract/pickers';
import { SESSION_ONLY_CODES } from '#contract/apiKeys';

/**
 * THE route table: the only place a URL is spelled. The AWS stack makes one Lambda per
 * `resource`, and HTTP API routes by path prefix that send each entry's requests to its
 * resource's Lambda (functions/apiRoutes.ts); the Lambda picks the entry by method and path
 * (lib/http.ts). The local host routes the same way.
 *
 * access: `public` needs no session; `session` needs a console session and, when given, the
 * authCode (or one of the authCodes); `device` is for face terminals and intercoms.
 */
export type Access = 'public' | 'session' | 'device';
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteEntry {
  method: Method;
  path: string;
  resource: string;
  access: Access;
  authCode?: AuthCode;
  /** Any one of these opens the route (pickers, which several screens use); the handler checks by type where a type narrows it. */
  authCodes?: readonly AuthCode[];
  /** Request bodies are binary (multipart); hosts pass them through base64-encoded. */
  binary?: boolean;
  /**
   * A session route an account whose password someone else chose may use before it chooses its
   * own: what it takes to change the password or leave. Every other session route answers 401.
   */
  beforePasswordChange?: true;
  /**
   * A session route a session that must first enrol in two-factor login (its company requires it)
   * may use: enrolling, and what an account may do before its password change. Every other answers 401.
   */
  beforeTwoFactor?: true;
  /**
   * What a successful call leaves in the audit log (lib/audit.ts), where it is not a change: every
   * session route but GET is recorded as a change unless it says otherwise here; a GET only when
   * it is marked (exports, recordings played).
   */
  audit?: 'export' | 'playback' | 'logout';
  /**
   * The caller confirms its password (ASVS V6: re-authentication before sensitive actions): the
   * request carries it sealed with the session's key in `x-confirm-password` (lib/auth.ts).
   */
  reauth?: true;
  /**
   * A session route only people use, whatever its code: their own session, password, two-factor
   * login and live channel. An API key is refused here, as on `reauth` routes and those of
   * SESSION_ONLY_CODES (`keyMayUse`).
   */
  sessionOnly?: true;
}

export const routes = [
  { method: 'POST', path: '/v1/systems/security', resource: 'systems', access: 'public' },
  { method: 'POST', path: '/v1/systems/login', resource: 'systems', access: 'public' },
  // The second step of a login with two-factor login on: the challenge the first step answered, and a code.
  { method: 'POST', path: '/v1/systems/login/twoFactor', resource: 'systems', access: 'public' },
  { method: 'POST', path: '/v1/systems/logout', resource: 'systems', access: 'session', beforePasswordChange: true, beforeTwoFactor: true, audit: 'logout', sessionOnly: true },
  { method: 'GET', path: '/v1/systems/me', resource: 'systems', access: 'session', beforePasswordChange: true, beforeTwoFactor: true, sessionOnly: true },
  { method: 'GET', path: '/v1/systems/routes', resource: 'systems', access: 'session', beforePasswordChange: true, beforeTwoFactor: true, sessionOnly: true },
  // Where the console's live channel is, for an account that sees passes as they happen (contract/live.ts).
  { method: 'GET', path: '/v1/systems/live', resource: 'systems', access: 'session', authCodes: [...new Set(Object.values(LIVE_TOPIC_CODES).flat())], sessionOnly: true },
  { method: 'PATCH', path: '/v1/systems/reset', resource: 'systems', access: 'session', beforePasswordChange: true, beforeTwoFactor: true, sessionOnly: true },
  // The caller's own two-factor login: its state, a new secret to enrol, turning it on (answering the
  // recovery codes), new recovery codes, turning it off.
  { method: 'GET', path: '/v1/systems/twoFactor', resource: 'systems', access: 'session', beforeTwoFactor: true, sessionOnly: true },
  { method: 'POST', path: '/v1/systems/twoFactor/enrolment', resource: 'systems', access: 'session', beforeTwoFactor: true, sessionOnly: true },
  { method: 'POST', path: '/v1/systems/twoFactor', resource: 'systems', access: 'session', beforeTwoFactor: true, sessionOnly: true },
  { method: 'POST', path: '/v1/systems/twoFactor/recoveryCodes', resource: 'systems', access: 'session', sessionOnly: true },
  { method: 'POST', path: '/v1/systems/twoFactor/disable', resource: 'systems', access: 'session', sessionOnly: true },
  { method: 'POST', path: '/v1/systems/validateCodes', resource: 'systems', access: 'public' },
  { method: 'POST', path: '/v1/systems/register', resource: 'systems', access: 'public' },
  { method: 'GET', path: '/v1/systems/terms', resource: 'systems', access: 'public' },
  { method: 'POST', path: '/v1/systems/retrieve', resource: 'systems', access: 'public' },
  { method: 'PATCH', path: '/v1/systems/retrieve', resource: 'systems', access: 'public' },
  // An invitation link: whose account it is for, and the password chosen through it.
  { method: 'GET', path: '/v1/systems/invitation', resource: 'systems', access: 'public' },
  { method: 'POST', path: '/v1/systems/invitation', resource: 'systems', access: 'public' },
  // This API as OpenAPI 3.1 (docs/openapi.json, written by `npm run openapi` from this table and the handlers' schemas).
  { method: 'GET', path: '/v1/openapi.json', resource: 'systems', access: 'public' },
  // Packages (and small files of API clients) travel in the request; photos through a presigned upload.
  { method: 'POST', path: '/v1/files/uploads', resource: 'files', access: 'session', binary: true },
  { method: 'POST', path: '/v1/files/uploads/presign', resource: 'files', access: 'session' },
  { method: 'POST', path: '/v1/files/uploads/{uploadKey}/complete', resource: 'files', access: 'session' },
  // What a person's photo must be in this company: SPEC's minimum raised to its face terminals' needs.
  { method: 'GET', path: '/v1/files/photoRules', resource: 'files', access: 'session', authCodes: ['pass:employee', 'pass:visitor'] },
  // Groups serve employees and visitors alike; the handler checks the code of the group's type.
  { method: 'GET', path: '/v1/groups', resource: 'groups', access: 'session' },
  { method: 'POST', path: '/v1/groups', resource: 'groups', access: 'session' },
  { method: 'PATCH', path: '/v1/groups/{groupKey}', resource: 'groups', access: 'session' },
  { method: 'DELETE', path: '/v1/groups/{groupKey}', resource: 'groups', access: 'session' },
  { method: 'GET', path: '/v1/departments', resource: 'departments', access: 'session', authCode: 'pass:employee' },
  { method: 'POST', path: '/v1/departments', resource: 'departments', access: 'session', authCode: 'pass:employee' },
  { method: 'PATCH', path: '/v1/departments/{departmentKey}', resource: 'departments', access: 'session', authCode: 'pass:employee' },
  { method: 'DELETE', path: '/v1/departments/{departmentKey}', resource: 'departments', access: 'session', authCode: 'pass:employee' },
  { method: 'GET', path: '/v1/employees', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  { method: 'POST', path: '/v1/employees', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  // The filtered list as a workbook, written in the background by the export worker; the job as the console follows it.
  { method: 'POST', path: '/v1/employees/exports', resource: 'employees', access: 'session', authCode: 'pass:employee', audit: 'export', reauth: true },
  { method: 'GET', path: '/v1/employees/exports/{jobKey}', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  { method: 'POST', path: '/v1/employees/imports', resource: 'employees', access: 'session', authCode: 'pass:employee', binary: true },
  { method: 'POST', path: '/v1/employees/imports/avatars', resource: 'employees', access: 'session', authCode: 'pass:employee', binary: true },
  { method: 'POST', path: '/v1/employees/imports/jobs', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  { method: 'GET', path: '/v1/employees/imports/jobs/{jobKey}', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  { method: 'POST', path: '/v1/employees/imports/jobs/{jobKey}/start', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  { method: 'GET', path: '/v1/employees/{employeeKey}', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  { method: 'PATCH', path: '/v1/employees/{employeeKey}', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  { method: 'DELETE', path: '/v1/employees/{employeeKey}', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  // Erasing a person: them, every photo, the captures and names of their pass records, their answers and attendance; a receipt, read again later.
  { method: 'POST', path: '/v1/employees/{employeeKey}/erase', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  { method: 'GET', path: '/v1/employees/{employeeKey}/erasure', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  { method: 'POST', path: '/v1/employees/{employeeKey}/resign', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  { method: 'POST', path: '/v1/employees/{employeeKey}/entry', resource: 'employees', access: 'session', authCode: 'pass:employee' },
  // Attendance rules: shifts, attendance groups (their staff are employees who need attendance) and holidays.
  { method: 'GET', path: '/v1/attendance/shifts', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'POST', path: '/v1/attendance/shifts', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'GET', path: '/v1/attendance/shifts/{shiftKey}', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'PATCH', path: '/v1/attendance/shifts/{shiftKey}', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'DELETE', path: '/v1/attendance/shifts/{shiftKey}', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'GET', path: '/v1/attendance/groups', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'POST', path: '/v1/attendance/groups', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'GET', path: '/v1/attendance/groups/{attendanceGroupKey}', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'PATCH', path: '/v1/attendance/groups/{attendanceGroupKey}', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'DELETE', path: '/v1/attendance/groups/{attendanceGroupKey}', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'GET', path: '/v1/attendance/staff', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'GET', path: '/v1/attendance/holidays', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'POST', path: '/v1/attendance/holidays', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'PATCH', path: '/v1/attendance/holidays/{holidayKey}', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'DELETE', path: '/v1/attendance/holidays/{holidayKey}', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  // Attendance statistics: the stored days and months, and a range computed again on demand.
  { method: 'GET', path: '/v1/attendance/daily', resource: 'attendance', access: 'session', authCode: 'pass:attendance-statistics' },
  { method: 'GET', path: '/v1/attendance/daily/export', resource: 'attendance', access: 'session', authCode: 'pass:attendance-statistics', audit: 'export' },
  { method: 'GET', path: '/v1/attendance/monthly', resource: 'attendance', access: 'session', authCode: 'pass:attendance-statistics' },
  { method: 'GET', path: '/v1/attendance/monthly/export', resource: 'attendance', access: 'session', authCode: 'pass:attendance-statistics', audit: 'export' },
  // The names of the attendance groups, for the statistics' group filter.
  { method: 'GET', path: '/v1/attendance/groupNames', resource: 'attendance', access: 'session', authCodes: ['pass:attendance-statistics', 'pass:attendance-settings'] },
  // Computing a range again runs in the background, one at a time per company; the statistics screen shows the newest run.
  { method: 'POST', path: '/v1/attendance/recompute', resource: 'attendance', access: 'session', authCode: 'pass:attendance-settings' },
  { method: 'GET', path: '/v1/attendance/recompute', resource: 'attendance', access: 'session', authCodes: ['pass:attendance-statistics', 'pass:attendance-settings'] },
  { method: 'GET', path: '/v1/attendance/recompute/{jobKey}', resource: 'attendance', access: 'session', authCodes: ['pass:attendance-statistics', 'pass:attendance-settings'] },
  { method: 'GET', path: '/v1/visitors', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  { method: 'POST', path: '/v1/visitors', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  // The filtered list as a workbook, written in the background by the export worker; the job as the console follows it.
  { method: 'POST', path: '/v1/visitors/exports', resource: 'visitors', access: 'session', authCode: 'pass:visitor', audit: 'export', reauth: true },
  { method: 'GET', path: '/v1/visitors/exports/{jobKey}', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  { method: 'POST', path: '/v1/visitors/imports', resource: 'visitors', access: 'session', authCode: 'pass:visitor', binary: true },
  { method: 'POST', path: '/v1/visitors/imports/avatars', resource: 'visitors', access: 'session', authCode: 'pass:visitor', binary: true },
  { method: 'POST', path: '/v1/visitors/imports/jobs', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  { method: 'GET', path: '/v1/visitors/imports/jobs/{jobKey}', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  { method: 'POST', path: '/v1/visitors/imports/jobs/{jobKey}/start', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  { method: 'GET', path: '/v1/visitors/{visitorKey}', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  { method: 'PATCH', path: '/v1/visitors/{visitorKey}', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  { method: 'DELETE', path: '/v1/visitors/{visitorKey}', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  { method: 'POST', path: '/v1/visitors/{visitorKey}/erase', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  { method: 'GET', path: '/v1/visitors/{visitorKey}/erasure', resource: 'visitors', access: 'session', authCode: 'pass:visitor' },
  // Face terminals bind with the tenant's device binding code; the console manages them.
  { method: 'POST', path: '/v1/devices/bind', resource: 'devices', access: 'device' },
  { method: 'GET', path: '/v1/devices', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'POST', path: '/v1/devices/batchSettings', resource: 'devices', access: 'session', authCode: 'pass:device' },
  // Terminals binding again under the serial number of a deleted device wait here for approval.
  { method: 'GET', path: '/v1/devices/requests', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'POST', path: '/v1/devices/requests/{requestKey}', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'DELETE', path: '/v1/devices/requests/{requestKey}', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'GET', path: '/v1/devices/{deviceKey}', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'PATCH', path: '/v1/devices/{deviceKey}', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'DELETE', path: '/v1/devices/{deviceKey}', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'POST', path: '/v1/devices/{deviceKey}/replacement', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'DELETE', path: '/v1/devices/{deviceKey}/replacement', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'POST', path: '/v1/devices/{deviceKey}/commands', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'GET', path: '/v1/devices/{deviceKey}/commands', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'GET', path: '/v1/devices/{deviceKey}/photo', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'GET', path: '/v1/devices/{deviceKey}/logs', resource: 'devices', access: 'session', authCode: 'pass:device' },
  // Door modes (contract/doorModes.ts): lockdown or doors held open for all terminals, groups or chosen ones; who a lockdown lets pass.
  { method: 'GET', path: '/v1/doorModes', resource: 'devices', access: 'session', authCode: 'pass:device' },
  // The banner every console screen shows while a mode is in force: what, where, who and since when, for every account.
  { method: 'GET', path: '/v1/doorModes/banner', resource: 'devices', access: 'session' },
  { method: 'PUT', path: '/v1/doorModes', resource: 'devices', access: 'session', authCode: 'pass:device', reauth: true },
  { method: 'GET', path: '/v1/doorModes/exemptions', resource: 'devices', access: 'session', authCode: 'pass:device' },
  { method: 'PUT', path: '/v1/doorModes/exemptions', resource: 'devices', access: 'session', authCode: 'pass:device', reauth: true },
  // The intercom platform: door stations and indoor monitors (bound through /v1/devices/bind), and their calls.
  { method: 'GET', path: '/v1/intercom/devices', resource: 'intercom', access: 'session', authCode: 'intercom:device' },
  { method: 'GET', path: '/v1/intercom/devices/{intercomKey}', resource: 'intercom', access: 'session', authCode: 'intercom:device' },
  { method: 'PATCH', path: '/v1/intercom/devices/{intercomKey}', resource: 'intercom', access: 'session', authCode: 'intercom:device' },
  { method: 'DELETE', path: '/v1/intercom/devices/{intercomKey}', resource: 'intercom', access: 'session', authCode: 'intercom:device' },
  { method: 'GET', path: '/v1/intercom/devices/{intercomKey}/logs', resource: 'intercom', access: 'session', authCode: 'intercom:device' },
  // The intercoms' names and numbers, for the call records' device filter.
  { method: 'GET', path: '/v1/intercom/names', resource: 'intercom', access: 'session', authCodes: ['intercom:device', 'intercom:record'] },
  { method: 'GET', path: '/v1/intercom/calls', resource: 'intercom', access: 'session', authCode: 'intercom:record' },
  { method: 'POST', path: '/v1/intercom/calls/exports', resource: 'intercom', access: 'session', authCode: 'intercom:record', audit: 'export' },
  { method: 'GET', path: '/v1/intercom/calls/exports/{jobKey}', resource: 'intercom', access: 'session', authCode: 'intercom:record' },
  // A short-lived link to play or download a call's recording.
  { method: 'GET', path: '/v1/intercom/calls/{callKey}/recording', resource: 'intercom', access: 'session', authCode: 'intercom:record', audit: 'playback' },
  // Opens the door of the door station in a live, answered call.
  { method: 'POST', path: '/v1/intercom/calls/{callKey}/openDoor', resource: 'intercom', access: 'session', authCode: 'intercom:record' },
  // Questionnaires: surveys shown on face terminals or answered on a phone through a terminal's QR code.
  { method: 'GET', path: '/v1/questionnaires', resource: 'questionnaires', access: 'session', authCode: 'pass:questionnaire' },
  { method: 'POST', path: '/v1/questionnaires', resource: 'questionnaires', access: 'session', authCode: 'pass:questionnaire' },
  { method: 'GET', path: '/v1/questionnaires/{questionnaireKey}', resource: 'questionnaires', access: 'session', authCode: 'pass:questionnaire' },
  { method: 'PATCH', path: '/v1/questionnaires/{questionnaireKey}', resource: 'questionnaires', access: 'session', authCode: 'pass:questionnaire' },
  { method: 'DELETE', path: '/v1/questionnaires/{questionnaireKey}', resource: 'questionnaires', access: 'session', authCode: 'pass:questionnaire' },
  { method: 'POST', path: '/v1/questionnaires/{questionnaireKey}/open', resource: 'questionnaires', access: 'session', authCode: 'pass:questionnaire' },
  { method: 'POST', path: '/v1/questionnaires/{questionnaireKey}/close', resource: 'questionnaires', access: 'session', authCode: 'pass:questionnaire' },
  { method: 'GET', path: '/v1/questionnaires/{questionnaireKey}/results', resource: 'questionnaires', access: 'session', authCode: 'pass:questionnaire' },
  { method: 'POST', path: '/v1/questionnaires/{questionnaireKey}/results/exports', resource: 'questionnaires', access: 'session', authCode: 'pass:questionnaire', audit: 'export' },
  { method: 'GET', path: '/v1/questionnaires/{questionnaireKey}/results/exports/{jobKey}', resource: 'questionnaires', access: 'session', authCode: 'pass:questionnaire' },
  // The public page behind a terminal's QR code (resources/surveys.ts): the link's token is the only credential.
  { method: 'POST', path: '/v1/surveys/open', resource: 'questionnaires', access: 'public' },
  { method: 'POST', path: '/v1/surveys/answers', resource: 'questionnaires', access: 'public' },
  // Authorizations: people on devices, in the pass list (setType 0) or the blacklist (setType 1);
  // the handler checks the code of the setType (pass:authority or pass:blacklist).
  { method: 'GET', path: '/v1/authorities', resource: 'authorities', access: 'session' },
  { method: 'POST', path: '/v1/authorities', resource: 'authorities', access: 'session' },
  { method: 'GET', path: '/v1/authorities/jobs/{jobKey}', resource: 'authorities', access: 'session' },
  { method: 'POST', path: '/v1/authorities/check', resource: 'authorities', access: 'session' },
  { method: 'GET', path: '/v1/authorities/sync', resource: 'authorities', access: 'session' },
  { method: 'POST', path: '/v1/authorities/sync/retry', resource: 'authorities', access: 'session' },
  { method: 'PATCH', path: '/v1/authorities/{authorityKey}', resource: 'authorities', access: 'session' },
  { method: 'DELETE', path: '/v1/authorities/{authorityKey}', resource: 'authorities', access: 'session' },
  { method: 'GET', path: '/v1/schedules', resource: 'authorities', access: 'session', authCode: 'pass:authority' },
  { method: 'POST', path: '/v1/schedules', resource: 'authorities', access: 'session', authCode: 'pass:authority' },
  { method: 'GET', path: '/v1/schedules/{scheduleKey}', resource: 'authorities', access: 'session', authCode: 'pass:authority' },
  { method: 'PATCH', path: '/v1/schedules/{scheduleKey}', resource: 'authorities', access: 'session', authCode: 'pass:authority' },
  { method: 'DELETE', path: '/v1/schedules/{scheduleKey}', resource: 'authorities', access: 'session', authCode: 'pass:authority' },
  // Face sync, called by the terminals with their own credentials.
  { method: 'GET', path: '/v1/deviceSync/faces', resource: 'deviceSync', access: 'device' },
  { method: 'POST', path: '/v1/deviceSync/results', resource: 'deviceSync', access: 'device' },
  // The access schedules the terminal's faces name, and the holiday dates that close them.
  { method: 'GET', path: '/v1/deviceSync/schedules', resource: 'deviceSync', access: 'device' },
  // Questionnaires as the terminals meet them: the surveys to show, answers on the screen, links for QR codes.
  { method: 'GET', path: '/v1/deviceSync/questionnaires', resource: 'deviceSync', access: 'device' },
  { method: 'POST', path: '/v1/deviceSync/questionnaireAnswers', resource: 'deviceSync', access: 'device' },
  { method: 'POST', path: '/v1/deviceSync/questionnaireLinks', resource: 'deviceSync', access: 'device' },
  { method: 'GET', path: '/v1/deviceSync/doorModeExemptions', resource: 'deviceSync', access: 'device' },
  { method: 'GET', path: '/v1/accounts', resource: 'accounts', access: 'session', authCode: 'settings:account' },
  { method: 'POST', path: '/v1/accounts', resource: 'accounts', access: 'session', authCode: 'settings:account' },
  { method: 'GET', path: '/v1/accounts/{accountKey}', resource: 'accounts', access: 'session', authCode: 'settings:account' },
  { method: 'PATCH', path: '/v1/accounts/{accountKey}', resource: 'accounts', access: 'session', authCode: 'settings:account' },
  { method: 'DELETE', path: '/v1/accounts/{accountKey}', resource: 'accounts', access: 'session', authCode: 'settings:account', reauth: true },
  { method: 'POST', path: '/v1/accounts/{accountKey}/password', resource: 'accounts', access: 'session', authCode: 'settings:account' },
  // Another account's two-factor login turned off (a lost phone): its session ends. As sensitive as deleting the account.
  { method: 'DELETE', path: '/v1/accounts/{accountKey}/twoFactor', resource: 'accounts', access: 'session', authCode: 'settings:account', reauth: true },
  { method: 'GET', path: '/v1/licences', resource: 'licences', access: 'session', authCode: 'settings:licence' },
  { method: 'POST', path: '/v1/licences', resource: 'licences', access: 'session', authCode: 'settings:licence' },
  { method: 'PATCH', path: '/v1/licences/reminder', resource: 'licences', access: 'session', authCode: 'settings:licence' },
  { method: 'POST', path: '/v1/licences/trial', resource: 'licences', access: 'session', authCode: 'settings:licence' },
  // The seats left, as the device screens show them beside the binding code.
  { method: 'GET', path: '/v1/licences/seats', resource: 'licences', access: 'session', authCodes: ['settings:licence', 'pass:device', 'intercom:device'] },
  // System settings (service addresses, versions, the client package) and privacy settings.
  { method: 'GET', path: '/v1/settings/system', resource: 'settings', access: 'session', authCode: 'settings:system' },
  { method: 'POST', path: '/v1/settings/system/packages', resource: 'settings', access: 'session', authCode: 'settings:system' },
  { method: 'POST', path: '/v1/settings/system/packages/{packageKey}/complete', resource: 'settings', access: 'session', authCode: 'settings:system' },
  { method: 'GET', path: '/v1/settings/privacy', resource: 'settings', access: 'session', authCode: 'settings:privacy' },
  // What pass records keep and for how long: a change keeps more of people's data or deletes what was kept.
  { method: 'PUT', path: '/v1/settings/privacy', resource: 'settings', access: 'session', authCode: 'settings:privacy', reauth: true },
  // Whether the company requires two-factor login of every account; only its owner changes it.
  { method: 'GET', path: '/v1/settings/twoFactor', resource: 'settings', access: 'session', authCode: 'settings:privacy' },
  // Switching the company's two-factor requirement weakens every account's login: the password first.
  { method: 'PUT', path: '/v1/settings/twoFactor', resource: 'settings', access: 'session', authCode: 'settings:privacy', reauth: true },
  // Email settings (the company's SMTP server, recipients, content types) and the mail records.
  { method: 'GET', path: '/v1/settings/email', resource: 'mailSettings', access: 'session', authCode: 'settings:email' },
  { method: 'PUT', path: '/v1/settings/email', resource: 'mailSettings', access: 'session', authCode: 'settings:email', reauth: true },
  { method: 'POST', path: '/v1/settings/email/test', resource: 'mailSettings', access: 'session', authCode: 'settings:email' },
  { method: 'GET', path: '/v1/audit', resource: 'audit', access: 'session', authCode: 'settings:audit' },
  { method: 'GET', path: '/v1/audit/export', resource: 'audit', access: 'session', authCode: 'settings:audit', audit: 'export' },
  // Webhooks: subscriptions (their secrets shown once), each one's delivery log, a test event, deliveries sent again.
  { method: 'GET', path: '/v1/webhooks', resource: 'webhooks', access: 'session', authCode: 'settings:webhooks' },
  { method: 'POST', path: '/v1/webhooks', resource: 'webhooks', access: 'session', authCode: 'settings:webhooks', reauth: true },
  { method: 'GET', path: '/v1/webhooks/{webhookKey}', resource: 'webhooks', access: 'session', authCode: 'settings:webhooks' },
  { method: 'PATCH', path: '/v1/webhooks/{webhookKey}', resource: 'webhooks', access: 'session', authCode: 'settings:webhooks', reauth: true },
  { method: 'DELETE', path: '/v1/webhooks/{webhookKey}', resource: 'webhooks', access: 'session', authCode: 'settings:webhooks' },
  { method: 'POST', path: '/v1/webhooks/{webhookKey}/secret', resource: 'webhooks', access: 'session', authCode: 'settings:webhooks', reauth: true },
  { method: 'POST', path: '/v1/webhooks/{webhookKey}/test', resource: 'webhooks', access: 'session', authCode: 'settings:webhooks' },
  { method: 'GET', path: '/v1/webhooks/{webhookKey}/deliveries', resource: 'webhooks', access: 'session', authCode: 'settings:webhooks' },
  { method: 'POST', path: '/v1/webhooks/{webhookKey}/deliveries/{deliveryKey}/replay', resource: 'webhooks', access: 'session', authCode: 'settings:webhooks' },
  { method: 'POST', path: '/v1/webhooks/{webhookKey}/replay', resource: 'webhooks', access: 'session', authCode: 'settings:webhooks' },
  // API keys for the company's machines (contract/apiKeys.ts): made, given a new secret and revoked after a password confirmation.
  { method: 'GET', path: '/v1/apiKeys', resource: 'apiKeys', access: 'session', authCode: 'settings:apikeys' },
  { method: 'POST', path: '/v1/apiKeys', resource: 'apiKeys', access: 'session', authCode: 'settings:apikeys', reauth: true },
  { method: 'POST', path: '/v1/apiKeys/{apiKeyKey}/secret', resource: 'apiKeys', access: 'session', authCode: 'settings:apikeys', reauth: true },
  { method: 'DELETE', path: '/v1/apiKeys/{apiKeyKey}', resource: 'apiKeys', access: 'session', authCode: 'settings:apikeys', reauth: true },
  { method: 'GET', path: '/v1/mailRecords', resource: 'mailRecords', access: 'session', authCode: 'settings:mail' },
  { method: 'GET', path: '/v1/mailRecords/{mailKey}', resource: 'mailRecords', access: 'session', authCode: 'settings:mail' },
  { method: 'POST', path: '/v1/mailRecords/{mailKey}/resend', resource: 'mailRecords', access: 'session', authCode: 'settings:mail' },
  // Pass records the terminals uploaded, and the blacklist's view of them; exports run in the background.
  { method: 'GET', path: '/v1/dashboard', resource: 'dashboard', access: 'session', authCode: 'pass:dashboard' },
  { method: 'GET', path: '/v1/dashboard/captures', resource: 'dashboard', access: 'session', authCode: 'pass:dashboard' },
  { method: 'GET', path: '/v1/passRecords', resource: 'passRecords', access: 'session', authCode: 'pass:record' },
  { method: 'POST', path: '/v1/passRecords/exports', resource: 'passRecords', access: 'session', authCode: 'pass:record', audit: 'export' },
  { method: 'GET', path: '/v1/passRecords/exports/{jobKey}', resource: 'passRecords', access: 'session', authCode: 'pass:record' },
  // One record, as an alert mail links to it.
  { method: 'GET', path: '/v1/passRecords/{recordKey}', resource: 'passRecords', access: 'session', authCode: 'pass:record' },
  { method: 'GET', path: '/v1/blacklistRecords', resource: 'passRecords', access: 'session', authCode: 'pass:blacklist' },
  { method: 'POST', path: '/v1/blacklistRecords/exports', resource: 'passRecords', access: 'session', authCode: 'pass:blacklist', audit: 'export' },
  { method: 'GET', path: '/v1/blacklistRecords/exports/{jobKey}', resource: 'passRecords', access: 'session', authCode: 'pass:blacklist' },
  { method: 'GET', path: '/v1/blacklistRecords/{recordKey}', resource: 'passRecords', access: 'session', authCode: 'pass:blacklist' },
  // Names and keys to choose from, for every screen that chooses people, groups, departments or devices.
  { method: 'GET', path: '/v1/pickers/people', resource: 'pickers', access: 'session', authCodes: [...new Set(Object.values(PICKER_CODES.people).flat())] },
  { method: 'GET', path: '/v1/pickers/groups', resource: 'pickers', access: 'session', authCodes: [...new Set(Object.values(PICKER_CODES.groups).flat())] },
  { method: 'GET', path: '/v1/pickers/departments', resource: 'pickers', access: 'session', authCodes: PICKER_CODES.departments },
  { method: 'GET', path: '/v1/pickers/devices', resource: 'pickers', access: 'session', authCodes: PICKER_CODES.devices },
] as const satisfies readonly RouteEntry[];

export type Route = (typeof routes)[number];
export type Resource = Route['resource'];
export type RouteKey = `${Route['method']} ${Route['path']}`;
export type RouteOf<K extends RouteKey> = Extract<Route, { method: K extends `${infer M} ${string}` ? M : never; path: K extends `${string} ${infer P}` ? P : never }>;
export type RouteKeyOf<R extends Resource> = Route extends infer E ? (E extends Route ? (E['resource'] extends R ? `${E['method']} ${E['path']}` : never) : never) : never;

export const routeKey = (route: Pick<RouteEntry, 'method' | 'path'>): string => `${route.method} ${route.path}`;

export const resources: Resource[] = [...new Set(routes.map((r) => r.resource))];

/**
 * Whether an API key may call the route: a session route that is not for people only (their own
 * session, password and two-factor login: `sessionOnly`), asks for no password (a key has none:
 * `reauth` guards webhooks' secrets, mail server passwords and the security settings), and whose
 * codes are not SESSION_ONLY_CODES (accounts, privacy and two-factor settings, the keys themselves).
 */
export function keyMayUse(route: RouteEntry): boolean {
  if (route.access !== 'session' || route.sessionOnly || route.reauth) return false;
  const codes: readonly AuthCode[] = route.authCodes ?? (route.authCode ? [route.authCode] : []);
  return !codes.some((code) => (SESSION_ONLY_CODES as readonly string[]).includes(code));
}

const byKey = new Map<string, RouteEntry>(routes.map((r) => [routeKey(r), r]));
export function findRoute(key: string): RouteEntry | undefined {
  return byKey.get(key);
}

/** The names of an entry's path parameters, in order (`/v1/groups/{groupKey}` -> `groupKey`). */
export const pathParamsOf = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/**
 * A percent-encoded part of a path, decoded; one with a malformed escape (`%zz`) is kept as
 * sent, and the route's schema refuses it as it refuses any other key that is not one.
 */
export function decodePathPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

const patterns = new Map<string, RegExp>();
function patternOf(path: string): RegExp {
  let pattern = patterns.get(path);
  if (!pattern) {
    const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '([^/]+)');
    pattern = new RegExp(`^${source}$`);
    patterns.set(path, pattern);
  }
  return pattern;
}

/** The path parameters of a request's path (as sent, percent-encoded) when it is the entry's path, each decoded. */
export function matchPath(path: string, requestPath: string): Record<string, string> | undefined {
  const match = patternOf(path).exec(requestPath);
  if (!match) return undefined;
  return Object.fromEntries(pathParamsOf(path).map((name, i) => [name, decodePathPart(match[i + 1]!)]));
}

/**
 * The entry of `table` a request is for: of the entries with the request's method, the first
 * whose path matches, those with fewer path parameters first (a fixed segment wins over a
 * parameter in its place, as it does in API Gateway). None when no entry has both the path and
 * the method.
 */
export function findEntry<E extends RouteEntry>(table: readonly E[], method: string, requestPath: string): { route: E; params: Record<string, string> } | undefined {
  const candidates = table.filter((r) => r.method === method).sort((a, b) => pathParamsOf(a.path).length - pathParamsOf(b.path).length);
  for (const route of candidates) {
    const params = matchPath(route.path, requestPath);
    if (params) return { route, params };
  }
  return undefined;
}
