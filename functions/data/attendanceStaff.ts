import { type EntityItem } from 'electrodb';
import { pool } from '#lib/pool';
import { people } from './people.ts';
import { isConditionFailure, nowIso } from './entity.ts';
import { noteRulesChanged } from './attendanceRules.ts';

/**
 * Who attendance counts: the company's active employees with their department and attendance
 * group, and moving them between groups.
 */

// ---- Staff

/** What the attendance screens need of an employee. */
export interface StaffMember {
  personKey: string;
  personId: string;
  name: string;
  departmentKey: string | null;
  attendanceGroupKey: string | null;
  needsAttendance: boolean;
  state: 'active' | 'resigned';
  createdAt: string;
  resignedAt: string | null;
}

const STAFF_ATTRIBUTES = [
  'personKey',
  'personId',
  'name',
  'departmentKey',
  'attendanceGroupKey',
  'needsAttendance',
  'state',
  'createdAt',
  'resignedAt',
] as const;

/** Every employee of the company, with what attendance needs of them. */
export async function attendanceStaff(tenantId: string): Promise<StaffMember[]> {
  const all = await people()
    .query.primary({ tenantId, kind: 'employee' })
    .go({ pages: 'all', attributes: [...STAFF_ATTRIBUTES] });
  return all.data.map(staffMemberOf);
}

/** The employees of `personKeys` (those that exist), read by key: what a few new punches need. */
export async function staffByKeys(tenantId: string, personKeys: readonly string[]): Promise<StaffMember[]> {
  const found = await people()
    .get(personKeys.map((personKey) => ({ tenantId, kind: 'employee' as const, personKey })))
    .go({ attributes: [...STAFF_ATTRIBUTES] });
  if (found.unprocessed.length) return (await attendanceStaff(tenantId)).filter((m) => personKeys.includes(m.personKey));
  return found.data.map(staffMemberOf);
}

function staffMemberOf(p: Pick<EntityItem<ReturnType<typeof people>>, (typeof STAFF_ATTRIBUTES)[number]>): StaffMember {
  return {
    personKey: p.personKey,
    personId: p.personId,
    name: p.name,
    departmentKey: p.departmentKey ?? null,
    attendanceGroupKey: p.attendanceGroupKey ?? null,
    needsAttendance: p.needsAttendance ?? false,
    state: p.state,
    createdAt: p.createdAt,
    resignedAt: p.resignedAt ?? null,
  };
}

/**
 * Moves employees into a group (or out of any, `to` null). Each write holds only while the
 * employee is still where the caller saw them (`from`), so a move made meanwhile elsewhere is not
 * overwritten; such employees are answered back.
 */
export async function moveStaff(tenantId: string, moves: { personKey: string; from: string | null }[], to: string | null): Promise<string[]> {
  const missed: string[] = [];
  await pool(moves, 16, async ({ personKey, from }) => {
    let update = people().patch({ tenantId, kind: 'employee', personKey }).set({ updatedAt: nowIso() }).add({ version: 1 });
    update = to ? update.set({ attendanceGroupKey: to }) : update.remove(['attendanceGroupKey']);
    try {
      await update.where((attr, op) => (from ? op.eq(attr.attendanceGroupKey, from) : op.notExists(attr.attendanceGroupKey))).go();
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      missed.push(personKey);
    }
  });
  if (missed.length < moves.length) await noteRulesChanged(tenantId);
  return missed;
}
