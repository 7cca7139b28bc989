import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The partitions each tenant's items were written to, as one process's DynamoDB client wrote
 * them: what a test reads to see everything a company has without scanning the shared table (the
 * events table spreads a company over `<tenantId>#…` partitions named after days, devices and
 * people). The local host keeps one for the handlers and workers it runs (`/_local/partitions`),
 * and each test process one for what it writes itself (tests/support/tenantItems.ts).
 */
const written = new Map<string, Map<string, Set<string>>>();

type Key = Record<string, unknown> | undefined;
/** A key attribute as the document client takes it (a string) or as the plain client does (`{ S }`). */
const text = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : value && typeof value === 'object' && typeof (value as { S?: unknown }).S === 'string'
      ? (value as { S: string }).S
      : undefined;

function note(table: unknown, key: Key): void {
  const pk = text(key?.pk);
  if (typeof table !== 'string' || !pk) return;
  const tenant = pk.split('#')[0]!;
  let tables = written.get(tenant);
  if (!tables) written.set(tenant, (tables = new Map()));
  let pks = tables.get(table);
  if (!pks) tables.set(table, (pks = new Set()));
  pks.add(pk);
}

interface WriteInput {
  TableName?: string;
  Item?: Key;
  Key?: Key;
  TransactItems?: { Put?: WriteInput; Update?: WriteInput; Delete?: WriteInput }[];
  RequestItems?: Record<string, { PutRequest?: { Item?: Key }; DeleteRequest?: { Key?: Key } }[]>;
}

function noteWrites(input: WriteInput): void {
  note(input.TableName, input.Item ?? input.Key);
  for (const item of input.TransactItems ?? [])
    for (const write of [item.Put, item.Update, item.Delete]) if (write) note(write.TableName, write.Item ?? write.Key);
  for (const [table, requests] of Object.entries(input.RequestItems ?? {})) for (const r of requests) note(table, r.PutRequest?.Item ?? r.DeleteRequest?.Key);
}

const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
  'PutCommand',
  'UpdateCommand',
  'DeleteCommand',
  'TransactWriteCommand',
  'BatchWriteCommand',
]);

/** Notes the partition of every write `client` sends from now on. */
export function journalWrites(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (WRITES.has(context.commandName ?? '')) noteWrites(args.input as WriteInput);
      return next(args);
    },
    { step: 'initialize', name: 'localWriteJournal', override: true },
  );
}

/** The partitions of `tenantId` written through a journaled client of this process, by table name. */
export function partitionsOf(tenantId: string): Record<string, string[]> {
  return Object.fromEntries([...(written.get(tenantId) ?? new Map<string, Set<string>>()).entries()].map(([table, pks]) => [table, [...pks].sort()]));
}
