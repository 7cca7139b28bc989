/**
 * The menu tree of MENU.md: the server filters it by authCodes, the console builds its shell from it.
 * No zod here: the console's first page loads this file (its schema is menuAnswer.ts).
 */

export const AUTH_CODES = [
  'pass:dashboard',
  'pass:employee',
  'pass:attendance-statistics',
  'pass:attendance-settings',
  'pass:visitor',
  'pass:authority',
  'pass:record',
  'pass:blacklist',
  'pass:questionnaire',
  'pass:device',
  'intercom:device',
  'intercom:record',
  'settings:system',
  'settings:email',
  'settings:account',
  'settings:privacy',
  'settings:licence',
  'settings:mail',
  'settings:audit',
  'settings:webhooks',
  'settings:apikeys',
] as const;

export type AuthCode = (typeof AUTH_CODES)[number];

export interface MenuItem {
  path: string;
  /** Message id of the title; the console translates it. */
  title: string;
  icon?: string;
  authCode?: AuthCode;
  open?: boolean;
  isShow: boolean;
  /** 0 = passage authority setting, 1 = blacklist setting (the same screen). */
  setType?: 0 | 1;
  /** Where a platform or group goes when opened directly. */
  redirect?: string;
  children?: MenuItem[];
}

const hidden = (path: string, title: string, authCode: AuthCode, extra: Partial<MenuItem> = {}): MenuItem => ({
  path,
  title,
  authCode,
  isShow: false,
  ...extra,
});

export const MENU: MenuItem[] = [
  {
    path: '/pass-platform',
    title: 'menu.passPlatform',
    icon: 'shield',
    isShow: true,
    redirect: '/pass-platform/dashboard',
    children: [
      { path: '/pass-platform/dashboard', title: 'menu.dashboard', icon: 'dashboard', authCode: 'pass:dashboard', isShow: true },
      {
        path: '/pass-platform/enterprise',
        title: 'menu.enterprise',
        icon: 'building',
        open: true,
        isShow: true,
        redirect: '/pass-platform/enterprise/employee',
        children: [
          {
            path: '/pass-platform/enterprise/employee',
            title: 'menu.employee',
            icon: 'users',
            authCode: 'pass:employee',
            isShow: true,
            children: [
              hidden('/pass-platform/enterprise/employee/create', 'menu.employeeCreate', 'pass:employee'),
              hidden('/pass-platform/enterprise/employee/resigned', 'menu.employeeResigned', 'pass:employee'),
              hidden('/pass-platform/enterprise/employee/import/info', 'menu.employeeImportInfo', 'pass:employee'),
              hidden('/pass-platform/enterprise/employee/import/avatar', 'menu.employeeImportAvatar', 'pass:employee'),
              hidden('/pass-platform/enterprise/employee/:employeeKey', 'menu.employeeDetail', 'pass:employee'),
            ],
          },
          {
            path: '/pass-platform/enterprise/attendance',
            title: 'menu.attendance',
            icon: 'clock',
            isShow: true,
            redirect: '/pass-platform/enterprise/attendance/statistics/daily',
            children: [
              { path: '/pass-platform/enterprise/attendance/statistics/daily', title: 'menu.attendanceDaily', authCode: 'pass:attendance-statistics', isShow: true },
              { path: '/pass-platform/enterprise/attendance/statistics/monthly', title: 'menu.attendanceMonthly', authCode: 'pass:attendance-statistics', isShow: true },
              {
                path: '/pass-platform/enterprise/attendance/settings/group',
                title: 'menu.attendanceGroup',
                authCode: 'pass:attendance-settings',
                isShow: true,
                children: [
                  hidden('/pass-platform/enterprise/attendance/settings/group/create', 'menu.attendanceGroupCreate', 'pass:attendance-settings'),
                  hidden('/pass-platform/enterprise/attendance/settings/group/:attendanceGroupKey', 'menu.attendanceGroupDetail', 'pass:attendance-settings'),
                ],
              },
              {
                path: '/pass-platform/enterprise/attendance/settings/shift',
                title: 'menu.attendanceShift',
                authCode: 'pass:attendance-settings',
                isShow: true,
                children: [
                  hidden('/pass-platform/enterprise/attendance/settings/shift/create', 'menu.attendanceShiftCreate', 'pass:attendance-settings'),
                  hidden('/pass-platform/enterprise/attendance/settings/shift/:shiftKey', 'menu.attendanceShiftDetail', 'pass:attendance-settings'),
                ],
              },
              { path: '/pass-platform/enterprise/attendance/settings/holiday', title: 'menu.attendanceHoliday', authCode: 'pass:attendance-settings', isShow: true },
            ],
          },
        ],
      },
      {
        path: '/pass-platform/personnel/management',
        title: 'menu.visitor',
        icon: 'id-badge',
        authCode: 'pass:visitor',
        isShow: true,
        children: [
          hidden('/pass-platform/personnel/management/create', 'menu.visitorCreate', 'pass:visitor'),
          hidden('/pass-platform/personnel/management/import/info', 'menu.visitorImportInfo', 'pass:visitor'),
          hidden('/pass-platform/personnel/management/import/avatar', 'menu.visitorImportAvatar', 'pass:visitor'),
          hidden('/pass-platform/personnel/management/:visitorKey', 'menu.visitorDetail', 'pass:visitor'),
        ],
      },
      {
        path: '/pass-platform/passage',
        title: 'menu.passage',
        icon: 'door',
        isShow: true,
        redirect: '/pass-platform/passage/authority',
        children: [
          {
            path: '/pass-platform/passage/authority',
            title: 'menu.authority',
            authCode: 'pass:authority',
            isShow: true,
            children: [hidden('/pass-platform/passage/authority/setting', 'menu.authoritySetting', 'pass:authority', { setType: 0 })],
          },
          {
            path: '/pass-platform/passage/schedule',
            title: 'menu.schedule',
            authCode: 'pass:authority',
            isShow: true,
            children: [
              hidden('/pass-platform/passage/schedule/create', 'menu.scheduleCreate', 'pass:authority'),
              hidden('/pass-platform/passage/schedule/:scheduleKey', 'menu.scheduleDetail', 'pass:authority'),
            ],
          },
          { path: '/pass-platform/passage/record', title: 'menu.passRecord', authCode: 'pass:record', isShow: true },
          {
            path: '/pass-platform/passage/blacklist/monitoring',
            title: 'menu.blacklistMonitoring',
            authCode: 'pass:blacklist',
            isShow: true,
            children: [hidden('/pass-platform/passage/blacklist/monitoring/setting', 'menu.blacklistSetting', 'pass:blacklist', { setType: 1 })],
          },
          { path: '/pass-platform/passage/blacklist/record', title: 'menu.blacklistRecord', authCode: 'pass:blacklist', isShow: true },
          {
            path: '/pass-platform/passage/questionnaire',
            title: 'menu.questionnaire',
            authCode: 'pass:questionnaire',
            isShow: true,
            children: [hidden('/pass-platform/passage/questionnaire/setting', 'menu.questionnaireSetting', 'pass:questionnaire')],
          },
        ],
      },
      {
        path: '/pass-platform/device/management',
        title: 'menu.device',
        icon: 'device',
        authCode: 'pass:device',
        isShow: true,
        children: [hidden('/pass-platform/device/management/:deviceKey', 'menu.deviceDetail', 'pass:device')],
      },
    ],
  },
  {
    path: '/intercom-platform',
    title: 'menu.intercomPlatform',
    icon: 'phone',
    isShow: true,
    redirect: '/intercom-platform/device/management',
    children: [
      {
        path: '/intercom-platform/device/management',
        title: 'menu.intercomDevice',
        icon: 'device',
        authCode: 'intercom:device',
        isShow: true,
        children: [hidden('/intercom-platform/device/management/:deviceKey', 'menu.intercomDeviceDetail', 'intercom:device')],
      },
      { path: '/intercom-platform/records', title: 'menu.callRecords', icon: 'record', authCode: 'intercom:record', isShow: true },
    ],
  },
  {
    path: '/settings',
    title: 'menu.settings',
    icon: 'settings',
    isShow: false,
    children: [
      { path: '/settings/system', title: 'menu.settingsSystem', authCode: 'settings:system', isShow: false },
      { path: '/settings/email', title: 'menu.settingsEmail', authCode: 'settings:email', isShow: false },
      {
        path: '/settings/account',
        title: 'menu.settingsAccount',
        authCode: 'settings:account',
        isShow: false,
        children: [
          hidden('/settings/account/create', 'menu.settingsAccountCreate', 'settings:account'),
          hidden('/settings/account/:key', 'menu.settingsAccountDetail', 'settings:account'),
        ],
      },
      { path: '/settings/privacy', title: 'menu.settingsPrivacy', authCode: 'settings:privacy', isShow: false },
      { path: '/settings/licence', title: 'menu.settingsLicence', authCode: 'settings:licence', isShow: false },
      { path: '/settings/mail', title: 'menu.settingsMail', authCode: 'settings:mail', isShow: false },
      { path: '/settings/audit', title: 'menu.settingsAudit', authCode: 'settings:audit', isShow: false },
      { path: '/settings/webhooks', title: 'menu.settingsWebhooks', authCode: 'settings:webhooks', isShow: false },
      { path: '/settings/apikeys', title: 'menu.settingsApiKeys', authCode: 'settings:apikeys', isShow: false },
    ],
  },
];

/** Redirects of SPEC.md §2 that are not menu entries. */
export const MENU_REDIRECTS: Record<string, string> = {
  '/enterprise': '/pass-platform/enterprise/employee',
  '/personnel': '/pass-platform/personnel/management',
  '/pass-platform/passage': '/pass-platform/passage/authority',
};
