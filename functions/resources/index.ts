import type { Resource } from '../routes.ts';
import type { HttpEvent, HttpResult } from '#lib/http';
import { accounts } from './accounts.ts';
import { apiKeys } from './apiKeys.ts';
import { attendance } from './attendance.ts';
import { audit } from './audit.ts';
import { authorities } from './authorities.ts';
import { dashboard } from './dashboard.ts';
import { departments } from './departments.ts';
import { deviceSync } from './deviceSync.ts';
import { devices } from './devices.ts';
import { employees } from './employees.ts';
import { files } from './files.ts';
import { groups } from './groups.ts';
import { intercom } from './intercom.ts';
import { licences } from './licences.ts';
import { mailRecords } from './mailRecords.ts';
import { mailSettings } from './mailSettings.ts';
import { passRecords } from './passRecords.ts';
import { pickers } from './pickers.ts';
import { questionnaires } from './questionnaires.ts';
import { settings } from './settings.ts';
import { systems } from './systems.ts';
import { visitors } from './visitors.ts';
import { webhooks } from './webhooks.ts';

/** Every resource's Lambda handler, for the local host (AWS bundles each file on its own). */
export const handlers: Record<Resource, (event: HttpEvent) => Promise<HttpResult>> = {
  systems: systems.handler,
  files: files.handler,
  groups: groups.handler,
  departments: departments.handler,
  employees: employees.handler,
  attendance: attendance.handler,
  visitors: visitors.handler,
  devices: devices.handler,
  intercom: intercom.handler,
  authorities: authorities.handler,
  deviceSync: deviceSync.handler,
  licences: licences.handler,
  mailSettings: mailSettings.handler,
  mailRecords: mailRecords.handler,
  audit: audit.handler,
  accounts: accounts.handler,
  settings: settings.handler,
  passRecords: passRecords.handler,
  dashboard: dashboard.handler,
  pickers: pickers.handler,
  questionnaires: questionnaires.handler,
  webhooks: webhooks.handler,
  apiKeys: apiKeys.handler,
};
