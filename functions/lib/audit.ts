import type { AuditKind } from '#contract/audit';
import { UNKNOWN_TENANT, type NewAuditEntry } from '#data/auditLog';
import type { AuditItem } from '#data/auditItems';
import type { RouteEntry } from '../routes.ts';
import type { Auth } from './auth.ts';
import { log } from './log.ts';
import { sqs } from './aws.ts';
import { newId } from './crypto.ts';
import { env } from './env.ts';
import { asQueueReader } from './localRole.ts';

/** Longest parameter, field name or user agent kept in an entry. */
const MAX_TEXT = 200;
const MAX_FIELDS = 50;
const clip = (text: string): string => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);

/**
 * What a request of a console session leaves in the audit log: every change (any
 * method but GET) and the reads the route table marks (`audit`: exports and recordings). A GET
 * not marked leaves nothing.
 */
export function auditKindOf(route: RouteEntry): AuditKind | undefined {
  if (route.access !== 'session') return undefined;
  if (route.audit) return route.audit;
  return route.method === 'GET' ? undefined : 'change';
}

/** The names of what a request sent: the body's top-level fields, or for a GET the query's. Never values. */
function fieldNames(method: RouteEntry['method'], body: unknown, query: Record<string, string | undefined> | undefined): string[] {
  const source = method === 'GET' ? query : body;
  if (!source || typeof source !== 'object' || Array.isArray(source)) return [];
  return Object.keys(source).slice(0, MAX_FIELDS).map(clip);
}

/**
 * Naming an item reads it through its data module; those modules load with the first audited
 * request, so that a function does not carry every other function's data modules at start.
 */
const itemNames = () => import('../data/auditItems.ts');

/**
 * The item an audited request acts on, named before its handler runs, so that an item the request
 * deletes is still named in its entry. A name that cannot be read leaves the entry without one.
 */
export async function auditedItemBefore(route: RouteEntry, auth: Auth, params: Record<string, string | undefined>): Promise<AuditItem | null> {
  if (!auditKindOf(route)) return null;
  return itemNames()
    .then((names) => names.itemOfPath(auth.tenantId, params))
    .catch((error: unknown) => {
      log('warn', 'audited item not named', { error: error instanceof Error ? error.message : String(error) });
      return null;
    });
}

export interface AuditedRequest {
  route: RouteEntry;
  auth: Auth;
  params: Record<string, string | undefined> | undefined;
  /** The item named before the handler ran (auditedItemBefore). */
  item: AuditItem | null;
  /** What the handler answered: the item a `POST` to a collection made is read from it. */
  answer: unknown;
  body: unknown;
  query: Record<string, string | undefined> | undefined;
  code: number;
  sourceIp: string;
  userAgent: string | undefined;
  requestId: string;
}

/**
 * Records a request of a console session, when its route is audited, with the code it answered:
 * every success, and every failure (5xx) of a handler that had started, since a change may have
 * happened before the error. A refusal (4xx) changed nothing and is not recorded. An entry that
 * cannot be written is logged as an error with everything it held, and the answer still goes.
 */
export async function auditRequest(request: AuditedRequest): Promise<void> {
  const kind = auditKindOf(request.route);
  if (!kind) return;
  const target = Object.fromEntries(Object.entries(request.params ?? {}).map(([name, value]) => [name, clip(String(value ?? ''))]));
  const made =
    !request.item && request.route.method === 'POST' && request.code < 300
      ? await itemNames()
          .then((names) => names.itemMade(request.auth.tenantId, request.route.path, request.answer))
          .catch(() => null)
      : null;
  const item = request.item ?? made;
  await write({
    tenantId: request.auth.tenantId,
    kind,
    accountId: request.auth.accountId,
    username: request.auth.account.username,
    action: `${request.route.method} ${request.route.path}`,
    target,
    item: item && { ...item, name: clip(item.name) },
    fields: fieldNames(request.route.method, request.body, request.query),
    code: request.code,
    reason: null,
    sourceIp: request.sourceIp,
    userAgent: request.userAgent ? clip(request.userAgent) : null,
    requestId: request.requestId,
  });
}

/** Why a login failed; `secondFactor`: the password was right, the code of the second step was not. */
export type LoginFailure = 'badCredentials' | 'disabled' | 'throttled' | 'secondFactor';

/**
 * Records a login or a failed one. A failure under a name no company knows is written too (where
 * no company reads it), so a known name and an unknown one cost the same time.
 */
export async function auditLogin(
  account: { tenantId: string; accountId: string; username: string } | undefined,
  attempted: string,
  outcome: { code: number; reason?: LoginFailure },
  request: { sourceIp: string; userAgent: string | undefined; requestId: string },
): Promise<void> {
  await write({
    tenantId: account?.tenantId ?? UNKNOWN_TENANT,
    kind: outcome.reason ? 'loginFailed' : 'login',
    accountId: account?.accountId ?? null,
    username: clip(account?.username ?? attempted),
    action: null,
    target: {},
    item: null,
    fields: [],
    code: outcome.code,
    reason: outcome.reason ?? null,
    sourceIp: request.sourceIp,
    userAgent: request.userAgent ? clip(request.userAgent) : null,
    requestId: request.requestId,
  });
}

/** The local host's writer: it adds each entry at once, in this process, where AWS queues it for the writer function. */
let inProcess: ((entry: NewAuditEntry) => Promise<unknown>) | undefined;
export function addAuditInProcess(writer: (entry: NewAuditEntry) => Promise<unknown>): void {
  inProcess = writer;
}

/**
 * Queues the entry for the audit log's only writer (functions/jobs/auditWriter.ts): a function
 * that serves requests may add entries, never change or remove one (infra/aws/audit.ts). On the
 * local host the writer adds it at once, with its own role.
 */
async function write(input: NewAuditEntry): Promise<void> {
  const entry: NewAuditEntry = { ...input, at: input.at ?? new Date().toISOString(), auditId: input.auditId ?? newId() };
  try {
    const queueUrl = env('AUDIT_QUEUE_URL');
    if (!queueUrl) {
      if (!inProcess) throw new Error('no audit queue is configured (AUDIT_QUEUE_URL)');
      return void (await asQueueReader('AUDIT_QUEUE_URL', 'jobs/auditWriter', inProcess)(entry));
    }
    const { client, sdk } = await sqs();
    await client.send(new sdk.SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(entry) }));
  } catch (error) {
    log('error', 'audit entry not written', { entry, error: error instanceof Error ? error.message : String(error) });
  }
}
