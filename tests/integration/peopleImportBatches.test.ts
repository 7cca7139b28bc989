import { beforeAll, describe, expect, it } from 'vitest';
import { people, personTerms, personUniques, peopleCounters, termItems } from '@passcloud/functions/data/people';
import { call, login, newCompany, unique } from '../support/api.ts';
import { EN_HEADERS, workbook } from '../support/files.ts';

/**
 * Workbook imports write new people in batches: the counts and the rejected rows are exact, a
 * rejected row leaves nothing behind, and imports racing on the same personnel IDs create each
 * person once.
 */

interface ImportAnswer {
  created: number;
  updated: number;
  rejected: number;
  rows: { row: number; personId: string; status: string; reasons?: string[] }[];
}

let token: string;
let tenantId: string;

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
});

async function upload(rows: (string | number)[][], as = token) {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(await workbook(EN_HEADERS, rows))]), 'people.xlsx');
  const answer = await call<ImportAnswer>('POST', '/v1/employees/imports', { token: as, form });
  expect(answer.status).toBe(200);
  return answer.body.data;
}

/** What the table holds for the tenant: people, their claims, their keyword index and the counter. */
async function stored() {
  const [persons, claims, terms, counter] = await Promise.all([
    people().query.primary({ tenantId }).go({ pages: 'all' }),
    personUniques().query.primary({ tenantId }).go({ pages: 'all' }),
    personTerms().query.primary({ tenantId }).go({ pages: 'all' }),
    peopleCounters().get({ tenantId, kind: 'employee', state: 'active' }).go(),
  ]);
  return { persons: persons.data, claims: claims.data, terms: terms.data, counter: counter.data?.count ?? 0 };
}

/** Every person stored whole: its claims and index items are there, and nothing else is. */
function expectWhole(table: Awaited<ReturnType<typeof stored>>) {
  const active = table.persons.filter((p) => p.kind === 'employee' && p.state === 'active');
  expect(table.counter).toBe(active.length);
  const claims = table.claims.map((c) => `${c.field}:${c.value}>${c.personKey}`).sort();
  const expected = table.persons
    .flatMap((p) => [`personId:${p.personId.toUpperCase()}>${p.personKey}`, ...(p.icCard ? [`icCard:${p.icCard.toUpperCase()}>${p.personKey}`] : [])])
    .sort();
  expect(claims).toEqual(expected);
  const terms = table.terms.map((t) => `${t.term}>${t.personKey}`).sort();
  expect(terms).toEqual(table.persons.flatMap((p) => termItems(p).map((t) => `${t.term}>${t.personKey}`)).sort());
}

describe('batched workbook import', () => {
  it('imports a few hundred rows with duplicates and bad rows: exact counts and reasons, and nothing half-written', async () => {
    const p = unique('BT');
    // Someone stored before the import: a row of the workbook updates them, another wants their IC card.
    const group = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Before', type: 'employee' } })).body.data.groupKey;
    const before = await call('POST', '/v1/employees', {
      token,
      body: { personId: `${p}-OLD`, name: 'Stored Before', role: 'Clerk', gender: 'male', groupKey: group, icCard: `${p}OLDCARD` },
    });
    expect(before.body.code).toBe(201);

    const rows: (string | number)[][] = Array.from({ length: 300 }, (_, i) => [
      `${p}-${i}`,
      `Batch Person ${i}`,
      'Operator',
      i % 2 ? 'male' : 'female',
      `Line ${i % 3}`,
      `700${i}`,
      `b${i}@example.com`,
      `${p}C${i}`,
      'Plant',
      '',
    ]);
    rows[10]![1] = ''; // no name: row 12
    rows[40]![6] = 'not-an-email'; // row 42
    rows[70]![3] = 'robot'; // row 72
    rows[100]![7] = `${p}OLDCARD`; // an IC card someone already has: row 102
    rows[130]![7] = `${p}C120`; // the IC card of an earlier row: row 132
    rows.push([`${p}-5`, 'Batch Person 5 Renamed', 'Lead', 'male', 'Line 0', '', '', `${p}C5`, '', '']); // the same personnel ID again: row 302 updates it
    rows.push([`${p}-OLD`, 'Stored Before', 'Lead', 'male', 'Before', '', '', '', '', '']); // row 303 updates the one stored before
    rows.push([`${p}-301`, 'Lower Case Twin', 'Operator', 'male', 'Line 0', '', '', '', '', '']); // row 304
    rows.push([`${p}-301`.toLowerCase(), 'Lower Case Twin Again', 'Operator', 'male', 'Line 0', '', '', '', '', '']); // row 305: the same ID, other case

    const answer = await upload(rows);
    expect(answer).toMatchObject({ created: 296, updated: 3, rejected: 5 });
    const rejected = answer.rows.filter((r) => r.status === 'rejected');
    expect(rejected.map((r) => [r.row, r.personId, r.reasons])).toEqual([
      [12, `${p}-10`, ['Name is required']],
      [42, `${p}-40`, ['Email is not a valid email address']],
      [72, `${p}-70`, ['Gender must be male or female']],
      [102, `${p}-100`, ['This IC card number is already used by someone else']],
      [132, `${p}-130`, ['This IC card number is already used by someone else']],
    ]);
    expect(answer.rows.filter((r) => r.status === 'updated').map((r) => r.row)).toEqual([302, 303, 305]);
    expect(answer.rows.map((r) => r.row)).toEqual(Array.from({ length: 304 }, (_, i) => i + 2));

    const table = await stored();
    expectWhole(table);
    expect(table.persons).toHaveLength(297);
    const byId = new Map(table.persons.map((person) => [person.personId, person]));
    for (const i of [10, 40, 70, 100, 130]) expect(byId.has(`${p}-${i}`)).toBe(false);
    expect(byId.get(`${p}-5`)).toMatchObject({ name: 'Batch Person 5 Renamed', role: 'Lead', version: 2 });
    expect(byId.get(`${p}-OLD`)).toMatchObject({ role: 'Lead', icCard: `${p}OLDCARD` });
    // The row that updates writes the personnel ID as it is written there.
    expect(byId.get(`${p}-301`.toLowerCase())).toMatchObject({ name: 'Lower Case Twin Again' });

    // The list counts them, and finds them by keyword.
    const list = await call<{ total: number }>('GET', '/v1/employees?pageSize=1', { token });
    expect(list.body.data.total).toBe(297);
    const found = await call<{ items: { name: string }[]; total: number }>('GET', '/v1/employees?keyword=batch person 29', { token });
    expect(found.body.data.total).toBe(11);
  });

  it('creates each person once when two imports of the same personnel IDs race', async () => {
    const p = unique('RACE');
    const rows = (name: string) =>
      Array.from({ length: 200 }, (_, i) => [`${p}-${i}`, `${name} ${i}`, 'Operator', 'female', 'Racers', '', '', `${p}C${i}`, '', '']);
    const before = (await stored()).persons.length;
    const [one, two] = await Promise.all([upload(rows('Racer One')), upload(rows('Racer Two'))]);
    expect([...one.rows, ...two.rows].filter((r) => r.status === 'rejected').slice(0, 3)).toEqual([]);
    expect(one.rejected + two.rejected).toBe(0);
    expect(one.created + two.created).toBe(200);
    expect(one.updated + two.updated).toBe(200);

    const table = await stored();
    expectWhole(table);
    const racers = table.persons.filter((person) => person.personId.startsWith(`${p}-`));
    expect(racers).toHaveLength(200);
    expect(new Set(racers.map((person) => person.personId)).size).toBe(200);
    expect(table.persons).toHaveLength(before + 200);
  });
});
