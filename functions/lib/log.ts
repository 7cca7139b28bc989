import { AsyncLocalStorage } from 'node:async_hooks';
import { env } from './env.ts';

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function threshold(): number {
  const wanted = env('LOG_LEVEL') ?? 'info';
  if (wanted === 'silent') return Infinity;
  return order[wanted as Level] ?? order.info;
}

/**
 * What every line of one piece of work carries: a request's id, route and tenant, or an event's.
 * Set once where the work starts (lib/http.ts for requests, `withLogContext` in the event
 * handlers); each piece of work has its own, also when many run in one process (the local host).
 */
export interface LogContext {
  requestId?: string;
  route?: string;
  tenantId?: string;
  /** The function's own work: `ingest`, `webhookSender`, … */
  work?: string;
  /** The background job a worker runs. */
  jobKey?: string;
}

const context = new AsyncLocalStorage<LogContext>();

/** Runs `work` with `fields` on every log line it writes, within the context it was started in. */
export function withLogContext<T>(fields: LogContext, work: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, work);
}

/** Adds what became known during the work (the tenant, once the caller is known) to its lines from now on. */
export function addLogContext(fields: LogContext): void {
  const store = context.getStore();
  if (store) Object.assign(store, fields);
}

/** One JSON line per event, so CloudWatch Logs Insights and the local console read the same thing. */
export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  if (order[level] < threshold()) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg, ...context.getStore(), ...fields });
  if (level === 'error' || level === 'warn') process.stderr.write(line + '\n');
  else process.stdout.write(line + '\n');
}

/**
 * A Lambda handler whose every log line names its work, and the company and job when the event
 * names them (a worker's task: `{ tenantId, jobKey }`).
 */
export function logged<E, R>(work: string, handle: (event: E) => Promise<R>): (event: E) => Promise<R> {
  return (event: E) => {
    const task = (event && typeof event === 'object' ? event : {}) as { tenantId?: unknown; jobKey?: unknown };
    const fields: LogContext & { jobKey?: string } = { work };
    if (typeof task.tenantId === 'string') fields.tenantId = task.tenantId;
    if (typeof task.jobKey === 'string') fields.jobKey = task.jobKey;
    return withLogContext(fields, () => handle(event));
  };
}
