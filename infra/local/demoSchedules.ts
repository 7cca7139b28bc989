import { allSchedules, createSchedule } from '@passcloud/functions/data/schedules';

/**
 * The demo company's access schedules: "Office hours" (Monday to Friday 07:00–19:00, closed on the
 * company's holidays) and "Always". Made once, with the demo's people.
 */
export async function seedDemoSchedules(tenantId: string): Promise<void> {
  if ((await allSchedules(tenantId)).length > 0) return;
  const workday = [{ from: '07:00', to: '19:00' }];
  await createSchedule(tenantId, {
    name: 'Office hours',
    weekly: [workday, workday, workday, workday, workday, [], []],
    exceptions: [],
    holidaysClosed: true,
  });
  const allDay = [{ from: '00:00', to: '24:00' }];
  await createSchedule(tenantId, { name: 'Always', weekly: Array.from({ length: 7 }, () => allDay), exceptions: [], holidaysClosed: false });
}
