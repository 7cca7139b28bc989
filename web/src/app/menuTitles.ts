import { msg } from '@lingui/core/macro';
import type { MessageDescriptor } from '@lingui/core';
import { i18n } from './i18n.ts';

/** Titles of the menu tree (functions/contract/menu.ts), by their keys. */
export const MENU_TITLES: Record<string, MessageDescriptor> = {
  'menu.passPlatform': msg`Pass platform`,
  'menu.dashboard': msg`Dashboard`,
  'menu.enterprise': msg`Enterprise`,
  'menu.employee': msg`Employees`,
  'menu.employeeCreate': msg`New employee`,
  'menu.employeeResigned': msg`Resigned employees`,
  'menu.employeeImportInfo': msg`Import employees`,
  'menu.employeeImportAvatar': msg`Import employee photos`,
  'menu.employeeDetail': msg`Employee details`,
  'menu.attendance': msg`Attendance`,
  'menu.attendanceDaily': msg`Daily statistics`,
  'menu.attendanceMonthly': msg`Monthly statistics`,
  'menu.attendanceGroup': msg`Attendance groups`,
  'menu.attendanceGroupCreate': msg`New attendance group`,
  'menu.attendanceGroupDetail': msg`Attendance group details`,
  'menu.attendanceShift': msg`Shifts`,
  'menu.attendanceShiftCreate': msg`New shift`,
  'menu.attendanceShiftDetail': msg`Shift details`,
  'menu.attendanceHoliday': msg`Holidays`,
  'menu.visitor': msg`Visitors`,
  'menu.visitorCreate': msg`New visitor`,
  'menu.visitorImportInfo': msg`Import visitors`,
  'menu.visitorImportAvatar': msg`Import visitor photos`,
  'menu.visitorDetail': msg`Visitor details`,
  'menu.passage': msg`Passage`,
  'menu.authority': msg`Passage authority`,
  'menu.authoritySetting': msg`Authorize`,
  'menu.passRecord': msg`Pass records`,
  'menu.blacklistMonitoring': msg`Blacklist monitoring`,
  'menu.blacklistSetting': msg`Blacklist setting`,
  'menu.blacklistRecord': msg`Blacklist records`,
  'menu.questionnaire': msg`Questionnaire results`,
  'menu.questionnaireSetting': msg`Questionnaire setting`,
  'menu.device': msg`Devices`,
  'menu.deviceDetail': msg`Device details`,
  'menu.intercomPlatform': msg`Intercom platform`,
  'menu.intercomDevice': msg`Intercom devices`,
  'menu.intercomDeviceDetail': msg`Intercom device details`,
  'menu.callRecords': msg`Call records`,
  'menu.settings': msg`System settings`,
  'menu.settingsSystem': msg`Ports and versions`,
  'menu.settingsEmail': msg`Email settings`,
  'menu.settingsAccount': msg`Accounts`,
  'menu.settingsAccountCreate': msg`New account`,
  'menu.settingsAccountDetail': msg`Account details`,
  'menu.settingsPrivacy': msg`Privacy`,
  'menu.settingsLicence': msg`Licences`,
  'menu.settingsMail': msg`Mail records`,
  'menu.settingsAudit': msg`Audit log`,
  'menu.settingsWebhooks': msg`Webhooks`,
  'menu.settingsApiKeys': msg`API keys`,
};

export function menuTitle(key: string): string {
  const descriptor = MENU_TITLES[key];
  return descriptor ? i18n._(descriptor) : key;
}
