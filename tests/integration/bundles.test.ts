import '../support/localEnv.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { PassCloudStack } from '@passcloud/infra/aws/stack';
import { HandlerFunction } from '@passcloud/infra/aws/api';
import { bundleSize, functionName } from '@passcloud/infra/aws/bundle';
import { BUNDLE_BUDGETS_KB } from '@passcloud/infra/aws/bundleBudgets';
import { ruleEvent, thingName } from '@passcloud/functions/contract/protocol';
import { LIVE_USERNAME, type LiveConnection } from '@passcloud/functions/contract/live';
import { TABLES } from '@passcloud/functions/data/tables';
import { BUCKETS } from '@passcloud/functions/lib/storage';
import { routes, type RouteEntry } from '@passcloud/functions/routes';
import { apiRouteKey, apiRoutes, matchApiRoute } from '@passcloud/functions/apiRoutes';
import { VARIABLES } from '@passcloud/functions/lib/env';
import { addDelivery, deliverySk, deliveryTtl, findDelivery } from '@passcloud/functions/data/webhookDeliveries';
import { listAudit } from '@passcloud/functions/data/auditLog';
import { newId } from '@passcloud/functions/lib/crypto';
import { eventBody, eventId } from '@passcloud/functions/lib/webhookEvents';
import type { WebhookCreated } from '@passcloud/functions/contract/webhooks';
import { call, encrypt, login, newCompany, securityKey, unique } from '../support/api.ts';
import { startWebhookReceiver } from '../support/webhookReceiver.ts';
import { loadMillis } from '../support/bundles.ts';
import { SYNTH_STACK_NAME, SYNTH_STACK_PROPS, synthesized } from '../support/synthOutput.ts';

/**
 * What deploys is the bundle `cdk synth` makes, not the source. The stack is synthesized, and
 * each Lambda asset it produced is imported in a fresh Node process that has only the
 * environment its construct gives it (plus the local stand-ins' endpoints), and its `handler` is
 * called with real events: API Gateway v2 events for every route of its resource (among them a
 * login, lists, creates, unknown keys and invalid bodies), the IoT events the terminals cause,
 * and the scheduled and worker events. A bundle without a handler, or needing a file, module or
 * variable it does not get, fails here.
 */

const RUNNER = resolve(import.meta.dirname, '../support/bundleRunner.mjs');
const ORIGIN_SECRET = 'bundle-test-origin-secret';
/** Variables that point the AWS SDK at the local stand-ins instead of AWS (never set by a construct). */
const STAND_INS = ['AWS_REGION', 'DYNAMODB_ENDPOINT', 'S3_ENDPOINT', 'IOT_DATA_ENDPOINT', 'IOT_DATA_ACCESS_KEY_ID', 'IOT_DATA_SECRET_ACCESS_KEY', 'SMTP_HOST', 'SMTP_PORT', 'SETTINGS_KEY_FILE', 'SMTP_ALLOW_PRIVATE'];

interface Bundle {
  id: string;
  /** The function's entry under functions/ (`resources/systems`), as its budget names it. */
  name: string;
  file: string;
  environment: Record<string, unknown>;
}

interface Outcome {
  ok: boolean;
  value?: unknown;
  error?: string;
}

/** Lambda's Invoke API as the functions that start workers call it: each invocation is kept and answered 202. */
let lambda: Server;
let lambdaUrl: string;
const invoked: { functionName: string; payload: unknown }[] = [];

/** Deployed variables a bundle read at run time without its construct setting them. */
const undeclaredReads = new Set<string>();
let stack: PassCloudStack;
let bundles: Bundle[];
let token: string;
let tenantId: string;
let owner: { username: string; password: string };

/** The value a variable the construct sets from a CloudFormation token takes on this machine. */
function localValue(name: string): string {
  const local = inject('localEnv');
  if (local[name] !== undefined) return local[name]!;
  const table = TABLES.find((t) => t.env === name);
  if (table) return table.defaultName;
  const bucket = Object.values(BUCKETS).find((b) => b.env === name);
  if (bucket) return bucket.defaultName;
  if (name === 'ORIGIN_VERIFY_SECRET') return ORIGIN_SECRET;
  // A function name, a key id, an endpoint of AWS: a value that is set, as on AWS.
  return `deployed-${name.toLowerCase()}`;
}

function environmentOf(bundle: Bundle): Record<string, string> {
  const local = inject('localEnv');
  const env: Record<string, string> = { LOG_LEVEL: 'error', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  for (const [name, value] of Object.entries(bundle.environment)) env[name] = typeof value === 'string' ? value : localValue(name);
  // A stand-in for a deployed variable (the IoT endpoint) replaces the value the construct set; it is not given where none was.
  for (const name of STAND_INS) if (local[name] !== undefined && (name in env || !(name in VARIABLES) || VARIABLES[name as keyof typeof VARIABLES].kind === 'local' || name === 'AWS_REGION')) env[name] = local[name]!;
  // KMS has no stand-in here: the local key file seals and opens secrets (two-factor login's, the SMTP passwords) instead.
  if (env.SETTINGS_KMS_KEY_ID && local.SETTINGS_KEY_FILE) {
    delete env.SETTINGS_KMS_KEY_ID;
    env.SETTINGS_KEY_FILE = local.SETTINGS_KEY_FILE;
  }
  env.AWS_ENDPOINT_URL_LAMBDA = lambdaUrl;
  // The local stand-ins take these made-up credentials; nothing else of this process goes over.
  env.AWS_ACCESS_KEY_ID = 'local';
  env.AWS_SECRET_ACCESS_KEY = 'local';
  return env;
}

async function run(bundle: Bundle, events: unknown[], extraEnv: Record<string, string> = {}): Promise<Outcome[]> {
  const child = spawn(process.execPath, [RUNNER, bundle.file], { env: { ...environmentOf(bundle), ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(JSON.stringify(events));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  await new Promise<void>((done) => child.on('close', () => done()));
  clearTimeout(timer);
  const marker = stdout.lastIndexOf('@@OUTCOMES@@');
  if (marker < 0) throw new Error(`${bundle.id} did not run: ${stderr.slice(-2000) || stdout.slice(-2000)}`);
  const answer = JSON.parse(stdout.slice(marker + '@@OUTCOMES@@'.length)) as { loadError?: string; outcomes?: Outcome[]; reads?: string[] };
  if (answer.loadError) throw new Error(`${bundle.id} could not be loaded: ${answer.loadError}`);
  // A deployed variable read that the construct did not set (functions/lib/env.ts).
  for (const name of answer.reads ?? []) {
    const kind = (VARIABLES as Record<string, { kind: string } | undefined>)[name]?.kind;
    if ((kind === 'stack' || kind === 'operator') && !(name in bundle.environment)) undeclaredReads.add(`${bundle.id} read ${name}`);
  }
  return answer.outcomes!;
}

/** Path parameters and queries of a well-formed request where the plain ones would not be. */
const PARAMS: Record<string, string> = { mailKey: '1700000000000-zzzzzzzzzzzzzzzz' };
const QUERIES: Record<string, Record<string, string>> = { 'GET /v1/groups': { type: 'employee' }, 'GET /v1/pickers/people': { type: 'visitor' }, 'GET /v1/pickers/groups': { type: 'device' } };

const bundleOf = (fn: HandlerFunction): Bundle => bundles.find((b) => b.id === stack.getLogicalId(fn.node.defaultChild as CfnElement))!;

/**
 * An API Gateway v2 event as the HTTP API sends it through CloudFront: for the API route of the
 * entry's path prefix (functions/apiRoutes.ts), with that route's key and path parameters.
 */
function apiEvent(route: RouteEntry, options: { body?: unknown; query?: Record<string, string>; params?: Record<string, string>; token?: string; headers?: Record<string, string> } = {}) {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const params = Object.fromEntries(names.map((n) => [n, options.params?.[n] ?? PARAMS[n] ?? 'zzzzzzzzzzzzzzzz']));
  const path = route.path.replace(/\{(\w+)\}/g, (_, n: string) => params[n]!);
  const query = options.query ?? QUERIES[`${route.method} ${route.path}`] ?? {};
  const body = options.body === undefined ? (route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}') : JSON.stringify(options.body);
  const api = matchApiRoute(apiRoutes, route.method, path);
  if (api?.route.resource !== route.resource) throw new Error(`${route.method} ${route.path}: no API route of ${route.resource} takes it`);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: apiRouteKey(api.route),
    rawPath: path,
    rawQueryString: new URLSearchParams(query).toString(),
    headers: {
      'content-type': 'application/json',
      'accept-language': 'en_US',
      'x-origin-verify': ORIGIN_SECRET,
      'cloudfront-viewer-address': '198.51.100.7:443',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.headers ?? {}),
    },
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(api.pathParameters).length ? { pathParameters: api.pathParameters } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'bundletest',
      domainName: 'bundletest.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'bundletest',
      http: { method: route.method, path, protocol: 'HTTP/1.1', sourceIp: '130.176.0.1', userAgent: 'Amazon CloudFront' },
      requestId: randomUUID(),
      routeKey: apiRouteKey(api.route),
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: false,
  };
}

interface ApiAnswer {
  statusCode: number;
  body: string;
}
const envelope = (outcome: Outcome): { code: number; message: string; data: unknown } => {
  expect(outcome.ok, outcome.error).toBe(true);
  const answer = outcome.value as ApiAnswer;
  return JSON.parse(answer.body) as { code: number; message: string; data: unknown };
};

beforeAll(async () => {
  lambda = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const name = /\/functions\/([^/]+)\/invocations/.exec(req.url ?? '')?.[1];
      if (!name || req.headers['x-amz-invocation-type'] !== 'Event') {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"only asynchronous invocations"}');
        return;
      }
      invoked.push({ functionName: decodeURIComponent(name), payload: JSON.parse(body || 'null') });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((done) => lambda.listen(0, '127.0.0.1', () => done()));
  lambdaUrl = `http://127.0.0.1:${(lambda.address() as { port: number }).port}`;
  // The bundles `cdk synth` made, once for the run (tests/support/synth.ts); the constructs, for
  // their logical ids, are built again here without bundling.
  const synth = await synthesized();
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new PassCloudStack(app, SYNTH_STACK_NAME, SYNTH_STACK_PROPS);
  const ours = stack.node.findAll().filter((c): c is HandlerFunction => c instanceof HandlerFunction);
  bundles = ours.map((fn) => {
    const id = Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement);
    const made = synth.functions.find((f) => f.id === id);
    if (!made) throw new Error(`${id}: not in the synthesized stack`);
    const file = ['index.mjs', 'index.js'].map((f) => join(made.dir, f)).find((f) => existsSync(f));
    if (!file) throw new Error(`${id}: no bundle in ${made.dir} (${existsSync(made.dir) ? readdirSync(made.dir).join(', ') : 'missing'})`);
    expect(made.handler).toBe('index.handler');
    return { id, name: functionName(fn.entry), file, environment: made.environment };
  });

  const made = await newCompany();
  owner = made;
  token = (await login(made.username, made.password)).token;
  tenantId = token.split('.')[0]!;
}, 600_000);

afterAll(async () => {
  await new Promise<void>((done) => (lambda ? lambda.close(() => done()) : done()));
});

describe('the deployed bundles', () => {
  it('are one per function of the stack, each a file that exports `handler`', () => {
    expect(bundles.length).toBeGreaterThanOrEqual(Object.keys(stack.api.functions).length + 8);
    for (const bundle of bundles) expect(existsSync(bundle.file), bundle.id).toBe(true);
  });

  it('stay within their size budgets, and every function has one (infra/aws/bundleBudgets.ts)', () => {
    const wrong: string[] = [];
    for (const bundle of bundles) {
      const kb = bundleSize(dirname(bundle.file)).startBytes / 1024;
      const budget = BUNDLE_BUDGETS_KB[bundle.name];
      if (budget === undefined) wrong.push(`${bundle.name}: ${kb.toFixed(0)} KB and no budget`);
      else if (kb > budget) wrong.push(`${bundle.name}: ${kb.toFixed(0)} KB at start, over its budget of ${budget} KB`);
    }
    expect(wrong).toEqual([]);
  });

  it('load in a fresh Node process that has nothing but the region (their load times are measured by npm run bench -- --bundles-only)', async () => {
    const failed: string[] = [];
    for (const bundle of bundles) await loadMillis(bundle.file, 1).catch((error: unknown) => failed.push(`${bundle.name}: ${String(error).slice(0, 300)}`));
    expect(failed).toEqual([]);
  });

  it('log in through the systems bundle, as the console does', async () => {
    const key = await securityKey();
    const body = { securityId: key.securityId, account: await encrypt(key.publicKey, owner.username), password: await encrypt(key.publicKey, owner.password) };
    const systems = routes.find((r) => r.method === 'POST' && r.path === '/v1/systems/login')!;
    const [answer] = await run(bundleOf(stack.api.functions.systems), [apiEvent(systems, { body })]);
    const result = envelope(answer!);
    expect(result.code).toBe(200);
    expect((result.data as { token: string }).token).toMatch(new RegExp(`^${tenantId}\\.`));
    // Without the origin secret CloudFront adds, the API refuses the request.
    const [direct] = await run(bundleOf(stack.api.functions.systems), [apiEvent(systems, { body, headers: { 'x-origin-verify': 'wrong' } })]);
    expect(envelope(direct!).code).toBe(403);
  });

  it('answer every route of their resource: lists, creates, unknown keys and invalid bodies, never a 5xx', async () => {
    // A fresh session: the login through the bundle above replaced the first one.
    token = (await login(owner.username, owner.password)).token;
    const failures: string[] = [];
    // The systems resource last, and its logout last of all: logging out ends the session the others use.
    const order = Object.entries(stack.api.functions).sort(([a], [b]) => Number(a === 'systems') - Number(b === 'systems'));
    for (const [resource, fn] of order) {
      const own = routes.filter((r) => r.resource === resource).sort((a, b) => Number(a.path === '/v1/systems/logout') - Number(b.path === '/v1/systems/logout'));
      // Each route with an empty body, and each that takes a body with one of the wrong shape too.
      const calls = own.flatMap((route) => [
        { route, name: `${route.method} ${route.path}`, event: apiEvent(route, { token }) },
        ...(route.method !== 'GET' && route.method !== 'DELETE' && route.path !== '/v1/systems/logout'
          ? [{ route, name: `${route.method} ${route.path} [1]`, event: apiEvent(route, { token, body: [1] }) }]
          : []),
      ]);
      const outcomes = await run(
        bundleOf(fn),
        calls.map((c) => c.event),
      );
      const codes = new Map<string, number>();
      outcomes.forEach((outcome, i) => {
        const { name } = calls[i]!;
        if (!outcome.ok) return failures.push(`${name}: threw ${outcome.error?.slice(0, 300)}`);
        const answer = outcome.value as ApiAnswer & { headers?: Record<string, string> };
        // Exports answer the workbook itself.
        if (answer.statusCode === 200 && !(answer.headers?.['content-type'] ?? '').includes('json')) return codes.set(name, 200);
        let code: number;
        try {
          code = (JSON.parse(answer.body) as { code: number }).code;
        } catch {
          return failures.push(`${name}: answered no envelope (${answer.statusCode})`);
        }
        if (answer.statusCode >= 500 || code >= 500) return failures.push(`${name}: ${answer.statusCode} ${answer.body.slice(0, 300)}`);
        codes.set(name, code);
      });
      // Of each resource a console account uses: a list answers 200, an unknown key 404 and an empty body 422.
      const session = own.filter((r) => r.access === 'session');
      const expectSome = (names: string[], wanted: number, what: string) => {
        if (names.length > 0 && !names.some((n) => codes.get(n) === wanted)) failures.push(`${resource}: no ${what} (${names.map((n) => `${n} ${codes.get(n)}`).join('; ')})`);
      };
      const named = (r: RouteEntry, suffix = '') => `${r.method} ${r.path}${suffix}`;
      expectSome(session.filter((r) => r.method === 'GET' && !r.path.includes('{')).map((r) => named(r)), 200, 'list answering 200');
      expectSome(session.filter((r) => r.method === 'GET' && r.path.includes('{')).map((r) => named(r)), 404, 'unknown key answering 404');
      expectSome(session.filter((r) => r.method !== 'GET' && r.method !== 'DELETE' && !r.path.includes('{') && r.path !== '/v1/systems/logout').map((r) => named(r, ' [1]')), 422, 'create refusing an invalid body with 422');
    }
    // The functions that start a worker reached Lambda, naming the worker their construct gave them.
    expect(invoked.map((i) => i.functionName)).toEqual(expect.arrayContaining([localValue('EXPORT_WORKER_FUNCTION')]));
    expect(failures).toEqual([]);
  });

  it('take the events the terminals cause: the broker’s authorizer and the topic rules', async () => {
    const authorizer = await run(bundleOf(stack.iot.authorizerFunction), [
      { protocolData: { mqtt: { username: thingName(tenantId, 'nosuchdevice01'), password: Buffer.from('wrong').toString('base64'), clientId: thingName(tenantId, 'nosuchdevice01') } }, connectionMetadata: { id: randomUUID() } },
    ]);
    expect(authorizer[0]).toMatchObject({ ok: true, value: { isAuthenticated: false } });
    // A console tab on the live channel, with a session of the company (the logout above ended the last one).
    const live = (await login(owner.username, owner.password)).token;
    const where = (await call<LiveConnection>('GET', '/v1/systems/live', { token: live })).body.data;
    const [tab] = await run(bundleOf(stack.iot.authorizerFunction), [
      { protocolData: { mqtt: { username: `${LIVE_USERNAME}?x-amz-customauthorizer-name=PassCloudDeviceAuthorizer`, password: Buffer.from(live).toString('base64'), clientId: `${where.clientPrefix}bundle1` } } },
    ]);
    expect(tab, tab?.error).toMatchObject({ ok: true, value: { isAuthenticated: true, refreshAfterInSeconds: 300 } });
    const policy = JSON.parse((tab!.value as { policyDocuments: string[] }).policyDocuments[0]!) as { Statement: { Action: string[]; Resource: string[] }[] };
    expect(policy.Statement.flatMap((st) => st.Action).sort()).toEqual(['iot:Connect', 'iot:Receive', 'iot:Subscribe']);
    expect(JSON.stringify(policy)).toContain(`client/${where.clientPrefix}bundle1`);
    const thing = thingName(tenantId, 'nosuchdevice01');
    const ingest = await run(bundleOf(stack.iot.ingestFunction), [
      ruleEvent(`pc/${thing}/heartbeat`, JSON.stringify({ time: Date.now(), info: {} })),
      ruleEvent(`pc/${thing}/records`, JSON.stringify({ records: [{ recordId: 'r1', passState: 'passed', source: 'face', verifyTime: Date.now() }] })),
      ruleEvent(`$aws/events/presence/connected/${thing}`, JSON.stringify({ clientId: thing, timestamp: Date.now(), eventType: 'connected' })),
      ruleEvent(`pc/${thing}/logs`, 'not json'),
      ruleEvent(`pc/${thing}/calls`, JSON.stringify({ calls: [{ callId: 'c1', direction: 'outgoing', status: 3, peer: { number: '101' }, startTime: Date.now() }] })),
      ruleEvent(`pc/${thing}/calls/open`, JSON.stringify({ callId: 'c1' })),
      // The console tab left: its session no longer counts it.
      ruleEvent(`$aws/events/presence/disconnected/${where.clientPrefix}bundle1`, JSON.stringify({ clientId: `${where.clientPrefix}bundle1`, timestamp: Date.now(), eventType: 'disconnected' })),
    ]);
    for (const outcome of ingest) expect(outcome, outcome.error).toMatchObject({ ok: true });
  });

  it('take their scheduled and worker events', async () => {
    const task = { tenantId, jobKey: 'nosuchjob0000001' };
    const scheduled = { version: '0', id: randomUUID(), 'detail-type': 'Scheduled Event', source: 'aws.events', account: '123456789012', time: new Date().toISOString(), region: 'eu-west-1', resources: [], detail: {} };
    for (const fn of [stack.importWorker, stack.recordExportWorker, stack.grantWorker, stack.recomputeWorker]) {
      const [outcome] = await run(bundleOf(fn), [task]);
      expect(outcome, `${fn.node.id}: ${outcome?.error}`).toMatchObject({ ok: true });
    }
    const [piece] = await run(bundleOf(stack.grantPieceWorker), [{ ...task, deviceKey: 'nosuchdevice01' }]);
    expect(piece, piece?.error).toMatchObject({ ok: true });
    const [notice] = await run(bundleOf(stack.packageNoticeWorker), [{ tenantId, packageKey: 'nosuchpackage001' }]);
    expect(notice, notice?.error).toMatchObject({ ok: true });
    // A failed invocation of a worker, as Lambda hands it to the on-failure destination.
    const [failure] = await run(bundleOf(stack.jobFailures), [
      { version: '1.0', requestContext: { condition: 'RetriesExhausted', functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:worker:$LATEST' }, requestPayload: task, responseContext: { functionError: 'Unhandled' } },
    ]);
    expect(failure, failure?.error).toMatchObject({ ok: true });
    for (const fn of [stack.mail.retryFunction, stack.retentionSweep, stack.licenceReminders, stack.attendanceClose, stack.attendanceMail]) {
      const [outcome] = await run(bundleOf(fn), [scheduled]);
      expect(outcome, `${fn.node.id}: ${outcome?.error}`).toMatchObject({ ok: true });
    }
  });

  it('deliver a webhook from its queue, and mark a delivery of its dead-letter queue dead', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const as = (await login(owner.username, owner.password)).token;
      const made = await call<WebhookCreated>('POST', '/v1/webhooks', { token: as, body: { url: receiver.url('/bundle'), events: ['pass.record'] }, confirm: true });
      expect(made.body.code, made.body.message).toBe(201);
      const { webhookKey } = made.body.data.webhook;
      const pending = async () => {
        const now = Date.now();
        const created = new Date(now).toISOString();
        const id = eventId(tenantId, 'webhook.test', unique('bundle'), created);
        await addDelivery({ pk: tenantId, sk: deliverySk(webhookKey, id), webhookKey, eventId: id, eventType: 'webhook.test', created, body: eventBody(id, 'webhook.test', created, { message: 'bundle' }), status: 'pending', attempts: 0, windowStart: now, nextAttemptAt: now, replays: 0, ttl: deliveryTtl(now) });
        return id;
      };
      const sqsEvent = (arn: string, ids: string[]) => ({
        Records: ids.map((id) => ({ messageId: randomUUID(), receiptHandle: 'r', body: JSON.stringify({ tenantId, webhookKey, eventId: id }), attributes: {}, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: arn, awsRegion: 'eu-west-1' })),
      });
      const sender = bundleOf(stack.webhooks.sender);
      const [refused, queued, lost] = [await pending(), await pending(), await pending()];
      const queueArn = 'arn:aws:sqs:eu-west-1:123456789012:deliveries';
      // As deployed, a receiver on loopback is refused at the time of sending.
      const [asDeployed] = await run(sender, [sqsEvent(queueArn, [refused])]);
      expect(asDeployed, asDeployed?.error).toMatchObject({ ok: true, value: { batchItemFailures: [] } });
      expect(await findDelivery(tenantId, webhookKey, refused)).toMatchObject({ status: 'dead', attempts: 1, error: 'addressRefused' });
      expect(receiver.received).toHaveLength(0);
      // With the local switch (the test receiver listens on loopback) the bundle delivers.
      const [sent] = await run(sender, [sqsEvent(queueArn, [queued])], { SMTP_ALLOW_PRIVATE: '1' });
      expect(sent, sent?.error).toMatchObject({ ok: true, value: { batchItemFailures: [] } });
      expect(receiver.received.map((r) => r.headers['passcloud-event-id'])).toEqual([queued]);
      expect(await findDelivery(tenantId, webhookKey, queued)).toMatchObject({ status: 'delivered', attempts: 1, responseCode: 200 });
      const [dead] = await run(sender, [sqsEvent(localValue('WEBHOOK_DEAD_LETTER_ARN'), [lost])]);
      expect(dead, dead?.error).toMatchObject({ ok: true, value: { batchItemFailures: [] } });
      expect(await findDelivery(tenantId, webhookKey, lost)).toMatchObject({ status: 'dead', error: 'workerFailed', attempts: 0 });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.stop();
    }
  });

  it('add audit entries from their queue, each once and never over another, and drop a message that is not an entry', async () => {
    const entry = {
      tenantId,
      auditId: newId(),
      at: new Date().toISOString(),
      kind: 'change',
      accountId: null,
      username: 'bundle-writer',
      action: 'POST /v1/groups',
      target: {},
      fields: ['name'],
      code: 200,
      reason: null,
      sourceIp: '203.0.113.9',
      userAgent: null,
      requestId: randomUUID(),
    };
    const message = (body: string) => ({ messageId: randomUUID(), receiptHandle: 'r', body, attributes: {}, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:audit', awsRegion: 'eu-west-1' });
    const writer = bundleOf(stack.audit.writer);
    const [first] = await run(writer, [{ Records: [message(JSON.stringify(entry)), message('{"not":"an entry"}'), message('not json')] }]);
    expect(first, first?.error).toMatchObject({ ok: true, value: { batchItemFailures: [] } });
    // The same message received again, or one naming the same key with other values, changes nothing.
    const [again] = await run(writer, [{ Records: [message(JSON.stringify(entry)), message(JSON.stringify({ ...entry, username: 'someone-else' }))] }]);
    expect(again, again?.error).toMatchObject({ ok: true, value: { batchItemFailures: [] } });
    const listed = await listAudit(tenantId, {}, 100);
    expect(listed.items.filter((item) => item.auditId === entry.auditId)).toEqual([expect.objectContaining({ username: 'bundle-writer', action: 'POST /v1/groups' })]);
  });

  it('read no deployed variable their construct does not set', () => {
    expect([...undeclaredReads]).toEqual([]);
  });

  it('are all exercised here', () => {
    const covered = new Set([
      ...Object.values(stack.api.functions),
      stack.iot.authorizerFunction,
      stack.iot.ingestFunction,
      stack.importWorker,
      stack.recordExportWorker,
      stack.grantWorker,
      stack.grantPieceWorker,
      stack.packageNoticeWorker,
      stack.mail.retryFunction,
      stack.retentionSweep,
      stack.licenceReminders,
      stack.attendanceClose,
      stack.attendanceMail,
      stack.recomputeWorker,
      stack.jobFailures,
      stack.webhooks.sender,
      stack.audit.writer,
    ].map((fn) => stack.getLogicalId(fn.node.defaultChild as CfnElement)));
    expect(bundles.map((b) => b.id).filter((id) => !covered.has(id))).toEqual([]);
  });
});

