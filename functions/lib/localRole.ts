import { AsyncLocalStorage } from 'node:async_hooks';
import type { EnvName } from './env.ts';

/**
 * The role a function runs with, on the local host. On AWS each function is its own Lambda and
 * every AWS call it makes is signed with its own role; the local host runs them all in one
 * process, so it says which function is running (`runAs`) and checks each call against that
 * function's role as `cdk synth` writes it (infra/local/roles.ts). On AWS nothing registers a
 * checker and all of this does nothing.
 */
export interface LocalRoles {
  /** The role (the function's logical id in the template) of a function entry, e.g. `resources/dashboard`. */
  roleOfEntry(entry: string): string | undefined;
  /** The role of the function a variable of the stack names (`GRANT_WORKER_FUNCTION`). */
  roleOfWorker(workerEnv: EnvName): string | undefined;
  /** Throws AWS's AccessDenied when `role` may not call `action` on `resource` (with the request's condition keys). */
  check(role: string, action: string, resource: string, context?: Record<string, string>): void;
  /** The ARN of what a variable of the stack names (a function, a queue), as the roles name it. */
  arnOf(name: EnvName): string;
  /** Adds the permission check to a new AWS client. */
  guard(client: { middlewareStack: unknown }, service: GuardedService): void;
}

export type GuardedService = 'dynamodb' | 's3' | 'iot-data';

const current = new AsyncLocalStorage<string>();
let roles: LocalRoles | undefined;

/** The local host checks every AWS call against the roles from now on. */
export function enforceLocalRoles(checker: LocalRoles | undefined): void {
  roles = checker;
}

/** The role the code running now has, on the local host; undefined on AWS and for the host's own work. */
export function currentRole(): string | undefined {
  return current.getStore();
}

/** Runs `work` as the function made from `entry` (under functions/, without `.ts`), with its role. */
export function runAs<T>(entry: string, work: () => T): T {
  if (!roles) return work();
  const role = roles.roleOfEntry(entry);
  if (!role) throw new Error(`the stack has no function made from functions/${entry}.ts`);
  return current.run(role, work);
}

/** `handler` run as the function made from `entry`, each time it is called. */
export function asFunction<A extends unknown[], R>(entry: string, handler: (...args: A) => R): (...args: A) => R {
  return (...args: A) => runAs(entry, () => handler(...args));
}

/**
 * Local background work that AWS runs as an invocation of the worker `workerEnv` names: the
 * caller's role must be allowed to invoke it (lambda:InvokeFunction, checked now, as the
 * invocation would be), and `work` runs with the worker's role whenever it is called.
 */
export function asWorker<A extends unknown[], R>(workerEnv: EnvName, work: (...args: A) => R): (...args: A) => R {
  if (!roles) return work;
  const caller = current.getStore();
  if (caller) roles.check(caller, 'lambda:InvokeFunction', roles.arnOf(workerEnv));
  const role = roles.roleOfWorker(workerEnv);
  if (!role) throw new Error(`the stack has no function ${workerEnv} names`);
  return (...args: A) => current.run(role, () => work(...args));
}

/**
 * Local work that AWS does in another function fed by a queue: the caller's role must be allowed
 * to queue the message on the queue `queueEnv` names (sqs:SendMessage, checked now), and `work`
 * runs with the role of the function made from `entry`, the queue's reader.
 */
export function asQueueReader<A extends unknown[], R>(queueEnv: EnvName, entry: string, work: (...args: A) => R): (...args: A) => R {
  if (!roles) return work;
  checkLocalCall('sqs:SendMessage', queueEnv);
  return (...args: A) => runAs(entry, () => work(...args));
}

/** Throws as AWS would when the running function may not call `action` on what the stack variable `name` names. */
export function checkLocalCall(action: string, name: EnvName): void {
  const role = current.getStore();
  if (roles && role) roles.check(role, action, roles.arnOf(name));
}

/** Adds the local permission check to a new AWS client; nothing on AWS. */
export function guardClient(client: { middlewareStack: unknown }, service: GuardedService): void {
  roles?.guard(client, service);
}
