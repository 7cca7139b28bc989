import { attendanceDays, engineInputShape, type EngineInput } from '@passcloud/functions/domain/attendance/index';
import { addDays, atLocalTime } from '@passcloud/functions/domain/time';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { monthTotals } from '@passcloud/functions/data/attendanceDays';
import { EVENTS_TABLE, tableName } from '@passcloud/functions/data/tables';
import { dynamo, resetClients } from '@passcloud/functions/lib/aws';
import { adminToken, fmt, percentile } from './api.ts';
import { figure } from './figures.ts';

/**
 * The attendance engine alone: a month of 1,000 employees with four punches a day (two periods),
 * then ten times the employees, each computed the way the daily statistics do, one employee at
 * a time.
 */

const FROM = '2026-03-01';
const DAYS = 31;

function employeeInput(seed: number): EngineInput {
  const punches: EngineInput['punches'] = [];
  for (let d = 0; d < DAYS; d++) {
    const date = addDays(FROM, d);
    const jitter = (n: number) => ((seed * 7919 + d * 104_729 + n * 31) % 23) - 8;
    for (const [n, minutes] of [
      [0, 8 * 60 + 55],
      [1, 12 * 60 + 2],
      [2, 12 * 60 + 58],
      [3, 18 * 60 + 5],
    ] as const) {
      punches.push({ at: atLocalTime(date, minutes + jitter(n), 'Asia/Tokyo').toISOString(), temperature: 36.4 });
    }
  }
  return engineInputShape.parse({
    timezone: 'Asia/Tokyo',
    from: FROM,
    to: addDays(FROM, DAYS - 1),
    shifts: {
      A: [
        { onDuty: '09:00', offDuty: '12:00', earliestCheckIn: '07:00', latestCheckOut: '12:30', lateTolerance: 5, earlyLeaveTolerance: 5 },
        { onDuty: '13:00', offDuty: '18:00', earliestCheckIn: '12:30', latestCheckOut: '23:00', lateTolerance: 5, earlyLeaveTolerance: 5 },
      ],
    },
    group: { weekdays: { mon: 'A', tue: 'A', wed: 'A', thu: 'A', fri: 'A', sat: null, sun: null }, workdayOvertimeAfter: '19:00', restDayMinHours: 4 },
    holidays: [{ name: 'Spring', start: '2026-03-20', end: '2026-03-20', workday: false }],
    employee: { since: '2025-01-01', resignedOn: null },
    punches,
  });
}

function timed(employees: number): { ms: number; days: number } {
  const inputs = Array.from({ length: employees }, (_, i) => employeeInput(i));
  const started = performance.now();
  let days = 0;
  for (const input of inputs) days += attendanceDays(input).length;
  return { ms: performance.now() - started, days };
}

export function attendanceBench(): string[] {
  timed(50);
  const small = timed(1000);
  const large = timed(10_000);
  figure({ area: 'attendance', name: 'engine, 1,000 employees x a month', value: small.ms, unit: 'ms', goal: 2000, kind: 'max', note: '4 punches a day' });
  figure({ area: 'attendance', name: 'engine, 10,000 employees / 1,000', value: large.ms / small.ms, unit: 'x', goal: 11, kind: 'max', note: 'time ratio, same run' });
  return [
    `attendance engine: 1,000 employees x ${DAYS} days x 4 punches: ${fmt(small.ms)} (budget 2 s), ${small.days} days`,
    `attendance engine: 10,000 employees: ${fmt(large.ms)}, ${(large.ms / small.ms).toFixed(1)} times the time (budget 11)`,
  ];
}

/**
 * The monthly statistics' first page over 1,000 employees: a month of totals stored for each
 * (as the day computation leaves them), then `GET /v1/attendance/monthly` read 40 times, plainly
 * and with a keyword that matches one employee (the whole month read).
 */
export async function monthlyPageBench(stack: { url: string; env: Record<string, string>; demo?: { tenantId: string } }): Promise<string[]> {
  Object.assign(process.env, stack.env);
  resetClients();
  const tenantId = stack.demo!.tenantId;
  const month = '2026-03';
  const items = Array.from({ length: 1000 }, (_, i) => {
    const personKey = `benchperson${String(i).padStart(5, '0')}`;
    return {
      pk: tenantId,
      sk: `attMonth#${month}#${personKey}`,
      kind: 'attendanceMonth',
      ...monthTotals([], { personKey, personId: `B${i}`, name: `Bench Employee ${i}`, departmentKey: null, attendanceGroupKey: 'benchgroup000001' }, month),
      workdays: 22,
      attended: 21,
      late: i % 37,
      lateCount: i % 3,
    };
  });
  for (let i = 0; i < items.length; i += 25) {
    await dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName(EVENTS_TABLE)]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  }
  const token = await adminToken(stack.url);
  const probe = async (query: string) => {
    const times: number[] = [];
    for (let i = 0; i < 45; i++) {
      const started = performance.now();
      const res = await fetch(`${stack.url}/v1/attendance/monthly?month=${month}&pageSize=20${query}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { code: number; data: { items: unknown[] } };
      if (body.code !== 200 || body.data.items.length === 0) throw new Error(`GET /v1/attendance/monthly answered ${body.code} with ${body.data?.items?.length} items`);
      if (i >= 5) times.push(performance.now() - started);
    }
    return { p50: percentile(times, 50), p95: percentile(times, 95) };
  };
  const plain = await probe('');
  const keyword = await probe('&keyword=Employee%20999');
  figure({ area: 'attendance', name: 'monthly first page p95', value: plain.p95!, unit: 'ms', goal: 200, kind: 'max', note: '1,000 employees' });
  figure({ area: 'attendance', name: 'monthly first page, keyword p95', value: keyword.p95!, unit: 'ms', goal: 200, kind: 'max', note: 'keyword matching one' });
  return [
    `attendance: monthly first page over 1,000 employees p50 ${fmt(plain.p50)}, p95 ${fmt(plain.p95)} (budget 200 ms); with a keyword matching one p50 ${fmt(keyword.p50)}, p95 ${fmt(keyword.p95)}`,
  ];
}
