import type { Fleet } from '@passcloud/device-shadow/fleet';
import { portrait } from '@passcloud/device-shadow/portraits';
import { simulateTraffic, type Traffic } from '@passcloud/device-shadow/traffic';
import { facePersonOf, type FacePerson } from '@passcloud/functions/data/authorities';
import { grantPairs } from '@passcloud/functions/data/authorityGrants';
import { deviceFaceCount } from '@passcloud/functions/data/authorityLists';
import { createDepartment, listDepartments } from '@passcloud/functions/data/departments';
import { createGroup, listGroups } from '@passcloud/functions/data/groups';
import { saveEmailSettings } from '@passcloud/functions/data/mailSettings';
import { emailSettingsBody } from '@passcloud/functions/contract/mail';
import { createPerson, type Person } from '@passcloud/functions/data/people';
import { anyPerson } from '@passcloud/functions/data/peopleLists';
import { companyTimezone } from '@passcloud/functions/data/tenants';
import { addDays, dayOf, endOfDay, startOfDay } from '@passcloud/functions/domain/time';
import { putObject } from '@passcloud/functions/lib/storage';
import { seedDemoAttendance } from './demoAttendance.ts';
import { seedDemoQuestionnaires } from './demoQuestionnaires.ts';
import { seedDemoSchedules } from './demoSchedules.ts';

/**
 * The demo company's people and authorizations, made on the first start so that a newcomer sees
 * a living product: about 60 employees in departments and 15 visitors with drawn portraits (no
 * photo of a real person), everyone authorized on the simulated terminals, one employee without a
 * photo and one whose photo is too small for the terminals (so failed syncs show), and one visitor
 * on the blacklist, a month of attendance (demoAttendance.ts) and two access schedules
 * (demoSchedules.ts). Then the terminals make passes at SIMULATE_TRAFFIC a minute.
 */

const FIRST = [
  'Ada',
  'Ben',
  'Chen',
  'Dana',
  'Eli',
  'Fatima',
  'Gus',
  'Hana',
  'Ivan',
  'Jun',
  'Kofi',
  'Lena',
  'Mateo',
  'Nia',
  'Omar',
  'Priya',
  'Quinn',
  'Rosa',
  'Sven',
  'Tara',
];
const LAST = ['Park', 'Okafor', 'Rossi', 'Sato', 'Novak', 'Haddad', 'Silva', 'Kim', 'Larsen', 'Moreau', 'Wang', 'Petrov'];
const DEPARTMENTS = [
  { name: 'Engineering', roles: ['Engineer', 'Senior engineer', 'Tester'] },
  { name: 'Sales', roles: ['Account manager', 'Sales assistant'] },
  { name: 'Operations', roles: ['Technician', 'Facilities'] },
  { name: 'Front desk', roles: ['Receptionist', 'Security'] },
];
export const DEMO_EMPLOYEES = 60;
export const DEMO_VISITORS = 15;
/** The employee left without a photo, and the one whose photo the terminals refuse (640×480). */
const NO_PHOTO = 17;
const SMALL_PHOTO = 33;
/** The visitor on the blacklist. */
const WATCHED = 7;

const nameOf = (i: number) => `${FIRST[i % FIRST.length]} ${LAST[(i * 7 + Math.floor(i / FIRST.length)) % LAST.length]}`;

async function photo(tenantId: string, key: string, seed: string, width = 800, height = 600): Promise<string> {
  const fileKey = `avatar/demo/${key}.jpg`;
  await putObject('photos', tenantId, fileKey, portrait(seed, width, height), 'image/jpeg');
  return fileKey;
}

async function groupKey(tenantId: string, type: 'employee' | 'visitor', name: string): Promise<string> {
  const existing = (await listGroups(tenantId, type)).find((g) => g.name === name);
  return (existing ?? (await createGroup(tenantId, name, type))).groupKey;
}

async function departmentKey(tenantId: string, name: string): Promise<string> {
  const existing = (await listDepartments(tenantId)).find((d) => d.name === name);
  return (existing ?? (await createDepartment(tenantId, name))).departmentKey;
}

export interface DemoPeople {
  passList: FacePerson[];
  watched: FacePerson[];
  visitors: FacePerson[];
}

/** Creates the demo people once (a company that has people keeps them). Answers undefined when they already existed. */
export async function seedDemoPeople(tenantId: string): Promise<DemoPeople | undefined> {
  if (await anyPerson(tenantId, {})) return undefined;
  const employees = await groupKey(tenantId, 'employee', 'Employees');
  const contractors = await groupKey(tenantId, 'employee', 'Contractors');
  const guests = await groupKey(tenantId, 'visitor', 'Visitors');
  const delivery = await groupKey(tenantId, 'visitor', 'Delivery');
  const departments = [];
  for (const d of DEPARTMENTS) departments.push({ ...d, key: await departmentKey(tenantId, d.name) });
  const made: Person[] = [];
  for (let i = 1; i <= DEMO_EMPLOYEES; i++) {
    const department = departments[i % departments.length]!;
    const name = nameOf(i);
    const personId = `E${String(i).padStart(4, '0')}`;
    const avatar = i === NO_PHOTO ? undefined : await photo(tenantId, personId, name, ...(i === SMALL_PHOTO ? ([640, 480] as const) : ([800, 600] as const)));
    made.push(
      await createPerson(tenantId, 'employee', {
        personId,
        name,
        role: department.roles[i % department.roles.length]!,
        gender: i % 2 ? 'female' : 'male',
        groupKey: i % 10 === 0 ? contractors : employees,
        departmentKey: department.key,
        email: `${name.toLowerCase().replace(/\s+/g, '.')}@demo.passcloud.local`,
        needsAttendance: i % 10 !== 0,
        ...(avatar ? { avatar } : {}),
      }),
    );
  }
  const visitors: Person[] = [];
  for (let i = 1; i <= DEMO_VISITORS; i++) {
    const name = nameOf(100 + i * 3);
    const personId = `V${String(i).padStart(4, '0')}`;
    visitors.push(
      await createPerson(tenantId, 'visitor', {
        personId,
        name,
        role: i % 3 ? 'Guest' : 'Courier',
        gender: i % 2 ? 'male' : 'female',
        groupKey: i % 3 ? guests : delivery,
        avatar: await photo(tenantId, personId, name),
      }),
    );
  }
  const watched = visitors.splice(WATCHED - 1, 1);
  // Fever and blacklist alerts go to the front desk (see them at /_local/mails).
  await saveEmailSettings(tenantId, {
    ...emailSettingsBody.parse({ version: 0 }),
    recipients: ['security@demo.passcloud.local'],
    feverAlert: true,
    blacklistAlert: true,
  });
  return { passList: made.map(facePersonOf), visitors: visitors.map(facePersonOf), watched: watched.map(facePersonOf) };
}

/**
 * Authorizes the demo people on every simulated terminal that has no authorization yet: employees
 * permanently, visitors for a week from today, the watched visitor on the blacklist.
 */
export async function authorizeDemo(tenantId: string, people: DemoPeople, deviceKeys: string[]): Promise<void> {
  const fresh = [];
  for (const deviceKey of deviceKeys) if ((await deviceFaceCount(tenantId, deviceKey)) === 0) fresh.push(deviceKey);
  if (fresh.length === 0) return;
  await grantPairs(tenantId, 0, people.passList, fresh, {});
  const timeZone = await companyTimezone(tenantId);
  const today = dayOf(new Date(), timeZone);
  const end = addDays(today, 7);
  const week = { startDay: today, endDay: end, validFrom: startOfDay(today, timeZone).toISOString(), validTo: endOfDay(end, timeZone).toISOString() };
  await grantPairs(tenantId, 0, people.visitors, fresh, week);
  await grantPairs(tenantId, 1, people.watched, fresh, {});
}

/** Seeds people and authorizations (first start only) and starts the traffic; answers the traffic to stop. */
export async function startDemo(tenantId: string, fleet: Fleet | undefined, perMinute: number): Promise<Traffic | undefined> {
  const people = await seedDemoPeople(tenantId);
  if (people) await seedDemoSchedules(tenantId);
  if (fleet && people) {
    const deviceKeys = fleet.agents.map((a) => a.deviceKey).filter((k): k is string => !!k);
    await authorizeDemo(tenantId, people, deviceKeys);
    await seedDemoAttendance(tenantId, deviceKeys);
    await seedDemoQuestionnaires(tenantId, deviceKeys, [...people.passList, ...people.visitors]);
  }
  if (!fleet || perMinute <= 0) return undefined;
  return simulateTraffic(fleet.agents, { perMinute });
}
