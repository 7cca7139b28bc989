import type { ComponentType } from 'react';

type PageModule = Record<string, ComponentType>;
type Loader = () => Promise<PageModule>;

/** Lazy page modules by feature; each feature folder owns its screens. */
const features: Record<string, Loader> = {
  dashboard: () => import('../features/dashboard/pages.tsx'),
  employees: () => import('../features/employees/pages.tsx'),
  attendance: () => import('../features/attendance/pages.tsx'),
  visitors: () => import('../features/visitors/pages.tsx'),
  passage: () => import('../features/passage/pages.tsx'),
  devices: () => import('../features/devices/pages.tsx'),
  intercom: () => import('../features/intercom/pages.tsx'),
  settings: () => import('../features/settings/pages.tsx'),
};

type Screen = [feature: string, page: string];

/** Every screen path of SPEC.md §2 and the page that renders it. */
export const SCREENS: Record<string, Screen> = {
  '/pass-platform/dashboard': ['dashboard', 'DashboardPage'],
  '/pass-platform/enterprise/employee': ['employees', 'EmployeeListPage'],
  '/pass-platform/enterprise/employee/create': ['employees', 'EmployeeCreatePage'],
  '/pass-platform/enterprise/employee/resigned': ['employees', 'EmployeeResignedPage'],
  '/pass-platform/enterprise/employee/import/info': ['employees', 'EmployeeImportInfoPage'],
  '/pass-platform/enterprise/employee/import/avatar': ['employees', 'EmployeeImportAvatarPage'],
  '/pass-platform/enterprise/employee/:employeeKey': ['employees', 'EmployeeDetailPage'],
  '/pass-platform/enterprise/attendance/statistics/daily': ['attendance', 'DailyStatisticsPage'],
  '/pass-platform/enterprise/attendance/statistics/monthly': ['attendance', 'MonthlyStatisticsPage'],
  '/pass-platform/enterprise/attendance/settings/group': ['attendance', 'AttendanceGroupListPage'],
  '/pass-platform/enterprise/attendance/settings/group/create': ['attendance', 'AttendanceGroupCreatePage'],
  '/pass-platform/enterprise/attendance/settings/group/:attendanceGroupKey': ['attendance', 'AttendanceGroupDetailPage'],
  '/pass-platform/enterprise/attendance/settings/shift': ['attendance', 'ShiftListPage'],
  '/pass-platform/enterprise/attendance/settings/shift/create': ['attendance', 'ShiftCreatePage'],
  '/pass-platform/enterprise/attendance/settings/shift/:shiftKey': ['attendance', 'ShiftDetailPage'],
  '/pass-platform/enterprise/attendance/settings/holiday': ['attendance', 'HolidayPage'],
  '/pass-platform/personnel/management': ['visitors', 'VisitorListPage'],
  '/pass-platform/personnel/management/create': ['visitors', 'VisitorCreatePage'],
  '/pass-platform/personnel/management/import/info': ['visitors', 'VisitorImportInfoPage'],
  '/pass-platform/personnel/management/import/avatar': ['visitors', 'VisitorImportAvatarPage'],
  '/pass-platform/personnel/management/:visitorKey': ['visitors', 'VisitorDetailPage'],
  '/pass-platform/passage/authority': ['passage', 'AuthorityPage'],
  '/pass-platform/passage/authority/setting': ['passage', 'AuthoritySettingPage'],
  '/pass-platform/passage/schedule': ['passage', 'ScheduleListPage'],
  '/pass-platform/passage/schedule/create': ['passage', 'ScheduleCreatePage'],
  '/pass-platform/passage/schedule/:scheduleKey': ['passage', 'ScheduleDetailPage'],
  '/pass-platform/passage/record': ['passage', 'PassRecordPage'],
  '/pass-platform/passage/blacklist/monitoring': ['passage', 'BlacklistMonitoringPage'],
  '/pass-platform/passage/blacklist/monitoring/setting': ['passage', 'AuthoritySettingPage'],
  '/pass-platform/passage/blacklist/record': ['passage', 'BlacklistRecordPage'],
  '/pass-platform/passage/questionnaire': ['passage', 'QuestionnairePage'],
  '/pass-platform/passage/questionnaire/setting': ['passage', 'QuestionnaireSettingPage'],
  '/pass-platform/device/management': ['devices', 'DeviceListPage'],
  '/pass-platform/device/management/:deviceKey': ['devices', 'DeviceDetailPage'],
  '/intercom-platform/device/management': ['intercom', 'IntercomDeviceListPage'],
  '/intercom-platform/device/management/:deviceKey': ['intercom', 'IntercomDeviceDetailPage'],
  '/intercom-platform/records': ['intercom', 'CallRecordPage'],
  '/settings': ['settings', 'SettingsPage'],
  '/settings/system': ['settings', 'SettingsPage'],
  '/settings/email': ['settings', 'SettingsPage'],
  '/settings/account': ['settings', 'SettingsPage'],
  '/settings/privacy': ['settings', 'SettingsPage'],
  '/settings/licence': ['settings', 'SettingsPage'],
  '/settings/mail': ['settings', 'SettingsPage'],
  '/settings/audit': ['settings', 'SettingsPage'],
  '/settings/webhooks': ['settings', 'SettingsPage'],
  '/settings/apikeys': ['settings', 'SettingsPage'],
  '/settings/account/create': ['settings', 'AccountCreatePage'],
  '/settings/account/:key': ['settings', 'AccountDetailPage'],
};

/** Loads a chunk, giving up after 120 s (SPEC.md §9) so the page can offer a retry. */
export function withChunkTimeout<T>(load: () => Promise<T>, ms = 120_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ChunkLoadError()), ms);
    load().then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        reject(new ChunkLoadError());
      },
    );
  });
}

export class ChunkLoadError extends Error {
  constructor() {
    super('chunk load failed');
  }
}

export async function loadScreen(path: string): Promise<ComponentType> {
  const screen = SCREENS[path];
  if (!screen) throw new Error(`no screen for ${path}`);
  const [feature, name] = screen;
  const load = features[feature];
  if (!load) throw new Error(`no feature ${feature}`);
  const module = await withChunkTimeout(load);
  const Component = module[name];
  if (!Component) throw new Error(`${feature} has no ${name}`);
  return Component;
}
