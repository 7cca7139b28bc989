import { beforeAll, describe, expect, it } from 'vitest';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '@passcloud/functions/lib/aws';
import { newTimeId } from '@passcloud/functions/lib/crypto';
import { people, personTerms, termItems } from '@passcloud/functions/data/people';
import { keywordCountLimit } from '@passcloud/functions/data/peopleLists';
import { MAIN_TABLE, tableName } from '@passcloud/functions/data/tables';
import { searchTerms, termText } from '@passcloud/functions/domain/people';
import { call, login, newCompany, unique } from '../support/api.ts';

interface Person {
  employeeKey: string;
  visitorKey: string;
  personId: string;
  name: string;
  version: number;
}
interface Page {
  items: Person[];
  nextCursor: string | null;
  total?: number;
  totalAtLeast?: number;
}

let token: string;
let tenantId: string;
let staff: string;

const list = async (query: string, kind: 'employees' | 'visitors' = 'employees') => {
  const answer = await call<Page>('GET', `/v1/${kind}?${query}`, { token });
  expect(answer.status, query).toBe(200);
  return answer.body.data;
};
const names = async (keyword: string, extra = '') => (await list(`keyword=${encodeURIComponent(keyword)}${extra}`)).items.map((p) => p.name);

async function employee(name: string, fields: Record<string, unknown> = {}, groupKey = staff): Promise<Person> {
  const answer = await call<Person>('POST', '/v1/employees', {
    token,
    body: { personId: unique('K'), name, role: 'Clerk', gender: 'female', groupKey, ...fields },
  });
  expect(answer.body.code).toBe(201);
  return answer.body.data;
}

beforeAll(async () => {
  const owner = await newCompany();
  const session = await login(owner.username, owner.password);
  token = session.token;
  tenantId = token.split('.')[0]!;
  staff = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Staff', type: 'employee' } })).body.data.groupKey;
});

describe('keyword search', () => {
  it('finds a name from the start of any of its words, and a Chinese name from any character', async () => {
    await employee('John Ronald Tolkien');
    await employee('张三丰');
    for (const keyword of ['john', 'RONALD', 'ronald tol', 'tolkien', '  Tolkien ']) expect(await names(keyword), keyword).toEqual(['John Ronald Tolkien']);
    for (const keyword of ['张', '三', '三丰', '丰']) expect(await names(keyword), keyword).toEqual(['张三丰']);
    // Inside a word is not a word start.
    expect(await names('olkien')).toEqual([]);
  });

  it('finds a personnel ID, an IC card, and a phone by its start, any group of it, its digits or its last four', async () => {
    const made = await employee('Phone Owner', { personId: unique('PX'), icCard: unique('CARD'), phone: '+1 (555) 0142-77' });
    for (const keyword of [made.personId, made.personId.slice(0, -2).toLowerCase(), '+1 (555', '555', '0142-77', '1555014277', '4277']) {
      expect(await names(keyword), keyword).toEqual(['Phone Owner']);
    }
  });

  it('follows every change: a rename, a new phone, resigning and deleting', async () => {
    const made = await employee('Olga Petrova', { phone: '600 1111' });
    expect(await names('petrova')).toEqual(['Olga Petrova']);

    const renamed = await call<Person>('PATCH', `/v1/employees/${made.employeeKey}`, { token, body: { name: 'Olga Ivanova', phone: '600 2222', version: 1 } });
    expect(renamed.body.code).toBe(201);
    expect(await names('petrova')).toEqual([]);
    expect(await names('1111')).toEqual([]);
    expect(await names('ivanova')).toEqual(['Olga Ivanova']);
    expect(await names('2222')).toEqual(['Olga Ivanova']);
    expect(await names('olga')).toEqual(['Olga Ivanova']);

    await call('POST', `/v1/employees/${made.employeeKey}/resign`, { token, body: { version: 2 } });
    expect(await names('ivanova', '&state=active')).toEqual([]);
    expect(await names('ivanova', '&state=resigned')).toEqual(['Olga Ivanova']);

    const stale = await call('DELETE', `/v1/employees/${made.employeeKey}?version=2`, { token });
    expect(stale.status).toBe(409);
    expect(await names('ivanova', '&state=resigned')).toEqual(['Olga Ivanova']);
    await call('DELETE', `/v1/employees/${made.employeeKey}?version=3`, { token });
    expect(await names('ivanova', '&state=resigned')).toEqual([]);
    expect(await names('ivanova', '&state=active')).toEqual([]);
  });

  it('pages a keyword newest first with an exact total, within a group, and keeps visitors apart', async () => {
    const paging = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Paging', type: 'employee' } })).body.data.groupKey;
    for (let i = 0; i < 7; i++) await employee(`Iris Index ${i}`, {}, paging);
    await employee('Iris Index elsewhere');
    const guests = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Guests', type: 'visitor' } })).body.data.groupKey;
    await call('POST', '/v1/visitors', {
      token,
      body: { personId: unique('V'), name: 'Iris Index visitor', role: 'Guest', gender: 'female', groupKey: guests },
    });

    const first = await list(`keyword=iris&groupKey=${paging}&pageSize=3`);
    expect(first.total).toBe(7);
    expect(first.items.map((p) => p.name)).toEqual(['Iris Index 6', 'Iris Index 5', 'Iris Index 4']);
    const second = await list(`keyword=iris&groupKey=${paging}&pageSize=3&cursor=${first.nextCursor}`);
    expect(second.total).toBeUndefined();
    expect(second.items.map((p) => p.name)).toEqual(['Iris Index 3', 'Iris Index 2', 'Iris Index 1']);
    const third = await list(`keyword=iris&groupKey=${paging}&pageSize=3&cursor=${second.nextCursor}`);
    expect(third.items.map((p) => p.name)).toEqual(['Iris Index 0']);
    expect(third.nextCursor).toBeNull();

    expect((await list('keyword=iris index')).total).toBe(8);
    expect((await list('keyword=iris', 'visitors')).items.map((p) => p.name)).toEqual(['Iris Index visitor']);
  });

  it('answers a keyword that matches more people than a first page counts: the same people read in order, and how many at least', async () => {
    // Each of these people has four terms starting with "qu" and one starting with "quinn". The
    // test host counts up to 300 (PEOPLE_COUNT_LIMIT, tests/support/localStack.ts); the index is
    // read up to four terms a person, so a keyword that starts more terms of each (here "q", which
    // also starts the personnel IDs) may answer "at least" sooner.
    const limit = keywordCountLimit();
    const now = new Date().toISOString();
    const itemOf = (params: unknown) => ({ PutRequest: { Item: (params as { Item: Record<string, unknown> }).Item } });
    const seed = async (from: number, to: number) => {
      const items = Array.from({ length: to - from }, (_, j) => {
        const i = from + j;
        const record = {
          tenantId,
          kind: 'employee' as const,
          personKey: newTimeId(Date.now() - (10_000 - i) * 1000),
          personId: `Q${i}`,
          name: `Quinn Quill Quest Quay ${i}`,
          role: 'Clerk',
          gender: 'male' as const,
          groupKey: staff,
          state: 'active' as const,
          createdAt: now,
          updatedAt: now,
          version: 1,
        };
        return [
          itemOf(
            people()
              .create({ ...record, terms: termText(searchTerms(record)) })
              .params(),
          ),
          ...termItems(record).map((t) => itemOf(personTerms().put(t).params())),
        ];
      }).flat();
      for (let k = 0; k < items.length; k += 25 * 8) {
        const batches = Array.from({ length: 8 }, (_, b) => items.slice(k + b * 25, k + b * 25 + 25)).filter((b) => b.length);
        await Promise.all(batches.map((batch) => dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName(MAIN_TABLE)]: batch } }))));
      }
    };

    // Fewer than the limit: counted exactly, however many terms each has.
    const few = limit - 50;
    await seed(0, few);
    const narrow = await list('keyword=quinn&pageSize=20');
    const broad = await list('keyword=qu&pageSize=20');
    expect([narrow.total, narrow.totalAtLeast]).toEqual([few, undefined]);
    expect([broad.total, broad.totalAtLeast]).toEqual([few, undefined]);
    expect(broad.items.map((p) => p.name)).toEqual(narrow.items.map((p) => p.name));

    // More than the limit: the first page and "at least the limit", the people read newest first.
    const many = limit + 50;
    await seed(few, many);
    const started = performance.now();
    const first = await list('keyword=qu&pageSize=20');
    expect(performance.now() - started).toBeLessThan(2000);
    expect([first.total, first.totalAtLeast]).toEqual([undefined, limit]);
    expect(first.items.map((p) => p.name)).toEqual(Array.from({ length: 20 }, (_, i) => `Quinn Quill Quest Quay ${many - 1 - i}`));
    const next = await list(`keyword=qu&pageSize=20&cursor=${first.nextCursor}`);
    expect([next.total, next.totalAtLeast]).toEqual([undefined, undefined]);
    expect(next.items[0]!.name).toBe(`Quinn Quill Quest Quay ${many - 21}`);
    const quinn = await list('keyword=quinn&pageSize=20');
    expect(quinn.totalAtLeast).toBe(limit);
    expect(quinn.items.map((p) => p.name)).toEqual(first.items.map((p) => p.name));
    // A narrower keyword among them still has its exact total.
    expect((await list('keyword=quinn quill quest quay 3&pageSize=20')).total).toBe(1 + 10 + Math.min(100, many - 300));
    const q = await list('keyword=q&pageSize=20');
    expect(q.totalAtLeast).toBeLessThanOrEqual(limit);
    expect(q.items.map((p) => p.name)).toEqual(first.items.map((p) => p.name));
  });
});
