import { AssetHashType, DockerImage, Duration, Lazy, RemovalPolicy, Stack, type ILocalBundling, type Size } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, type CfnRoute, type CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { resolve } from 'node:path';
import { resources, type Resource } from '@passcloud/functions/routes';
import { apiRouteKey, apiRoutes } from '@passcloud/functions/apiRoutes';
import { VARIABLES } from '@passcloud/functions/lib/env';
import { declaredBy, type StackEnvironment } from './environment.ts';
import { bundleHandler } from './bundle.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** scrypt needs 128 MiB per hash and workbook imports hold a sheet in memory; CPU share grows with memory too. */
const MEMORY: Partial<Record<Resource, number>> = { systems: 1024, employees: 1024, visitors: 1024 };

export interface HandlerFunctionProps {
  /** The handler file; it exports `handler` and `environment`, the deployed variables it reads. */
  entry: string;
  /**
   * The stack's values; the function gets exactly the variables its entry declares. A declared
   * variable the stack has no value for fails the synthesis (an operator's setting, such as the
   * licence key, is left unset instead).
   */
  environment: StackEnvironment;
  memorySize?: number;
  timeout?: Duration;
  /** Space in /tmp (512 MiB when unset). */
  ephemeralStorageSize?: Size;
  /** Concurrent runs reserved for the function and capped there (none reserved when unset). */
  reservedConcurrentExecutions?: number;
  description?: string;
}

/**
 * Bundles one entry on this machine. The entry is a property, not only in the closure: CDK keys
 * its cache of bundled assets on the bundling options' data, so each entry must show in them.
 */
class LocalBundling implements ILocalBundling {
  constructor(readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    bundleHandler(this.entry, outputDir);
    return true;
  }
}

/**
 * Function defaults every Lambda of the stack shares: Node 22 on arm64, its entry bundled by the
 * local esbuild (no Docker) as infra/aws/bundle.ts describes: `index.mjs` with what every
 * request needs, chunks beside it for what only some paths load, and the locale catalogues when
 * the code translates messages.
 */
export class HandlerFunction extends LambdaFunction {
  /** The handler file the bundle is made from. */
  readonly entry: string;

  constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    const entry = resolve(props.entry);
    super(scope, id, {
      code: Code.fromAsset(REPO_ROOT, {
        // The hash of the bundle itself: a change anywhere else in the repository makes no new version.
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // Never pulled: bundling runs locally, and fails rather than falling back to a container.
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-alpine'),
          local: new LocalBundling(entry),
        },
      }),
      handler: 'index.handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(29),
      ...(props.ephemeralStorageSize ? { ephemeralStorageSize: props.ephemeralStorageSize } : {}),
      ...(props.reservedConcurrentExecutions !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrentExecutions } : {}),
      environment: declaredEnvironment(id, props.entry, props.environment),
      logGroup: new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
    });
    this.entry = entry;
  }
}

/** The variables a function's entry declares, each taken from the stack's values when it is synthesized. */
function declaredEnvironment(id: string, entry: string, values: StackEnvironment): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const name of declaredBy(entry)) {
    if (VARIABLES[name].kind === 'operator') {
      if (values[name] !== undefined) variables[name] = values[name];
      continue;
    }
    variables[name] = Lazy.string({
      produce: () => {
        const value = values[name];
        if (value === undefined) throw new Error(`${id}: ${entry} declares ${name}, but the stack gives it no value`);
        return value;
      },
    });
  }
  return variables;
}

/** One function per `/v1` resource of the route table. */
export class ApiFunction extends HandlerFunction {
  constructor(scope: Construct, id: string, resource: Resource, environment: StackEnvironment) {
    super(scope, id, {
      entry: resolve(REPO_ROOT, 'functions/resources', `${resource}.ts`),
      memorySize: MEMORY[resource] ?? 512,
      timeout: Duration.seconds(29),
      environment,
    });
  }
}

/**
 * What each route of the stage lets through (HTTP API throttling: a token bucket per route, on top
 * of the account's own, which is 10,000 requests a second with bursts of 5,000 per region by default
 * and shared by every API of the account;
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-throttling.html). A route's
 * limits above the account's would never be reached. A route is a whole path prefix
 * (functions/apiRoutes.ts), and a console screen makes a handful of requests, so 100 a second with
 * bursts of 200 bounds what one resource's prefix can cost.
 */
export const DEFAULT_ROUTE_THROTTLE = { rateLimit: 100, burstLimit: 200 } as const;

/**
 * The face terminals' routes (the deviceSync function's: face changes and their results, the
 * questionnaires shown on the terminals), sized from the traffic of docs/scale.md:
 * - Rate: after an outage the terminals connect again at IoT Core's 500 connect requests a second
 *   per account (https://docs.aws.amazon.com/general/latest/gr/iot-core.html), and each pulls its
 *   face changes when it connects: up to 500 pulls a second, and as many results posted after
 *   them, so 1,000 a second. The same rate serves the poll every terminal makes every 5 minutes
 *   (docs/device-protocol.md) for 300,000 terminals, and a grant's pages (one pull and one
 *   result per 100 changes per terminal) without a terminal waiting on the throttle more than on
 *   its photo downloads.
 * - Burst: a change to a person notifies every terminal that holds them at once, and each pulls at
 *   once: the 1,000 terminals of docs/scale.md's deployment pull together, and post their results
 *   while the bucket fills again; 2,000 takes both rounds at once.
 * That is a tenth of the account's rate and two fifths of its burst, leaving the console the rest.
 * Terminals wait and try again after a 429 (device-shadow/src/agent.ts), so a larger fleet is
 * slowed, not refused.
 */
export const DEVICE_ROUTE_THROTTLE = { rateLimit: 1_000, burstLimit: 2_000 } as const;

/** The resources whose API routes take DEVICE_ROUTE_THROTTLE. */
export const DEVICE_RESOURCES: readonly Resource[] = ['deviceSync'];

export interface ApiProps {
  /** The stack's values; each function takes the variables its entry declares. */
  environment: StackEnvironment;
}

/** The HTTP API: one function per resource, and the routes functions/apiRoutes.ts derives from the route table. */
export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly functions: Record<Resource, ApiFunction>;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'Http', { description: 'Pass Cloud /v1 API', createDefaultStage: true });
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY });
    const stage = this.httpApi.defaultStage!.node.defaultChild as CfnStage;
    stage.accessLogSettings = {
      destinationArn: accessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        time: '$context.requestTime',
        // The API route is a prefix's (`ANY /v1/employees/{proxy+}`): the method and path say which entry of the table answered.
        // https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-logging-variables.html
        routeKey: '$context.routeKey',
        method: '$context.httpMethod',
        path: '$context.path',
        status: '$context.status',
        latency: '$context.integrationLatency',
        error: '$context.integrationErrorMessage',
      }),
    };
    stage.defaultRouteSettings = { throttlingBurstLimit: DEFAULT_ROUTE_THROTTLE.burstLimit, throttlingRateLimit: DEFAULT_ROUTE_THROTTLE.rateLimit };

    this.functions = Object.fromEntries(
      resources.map((resource) => [
        resource,
        new ApiFunction(this, `${pascal(resource)}Function`, resource, props.environment),
      ]),
    ) as Record<Resource, ApiFunction>;

    const integrations = new Map<Resource, HttpLambdaIntegration>();
    const deviceRoutes: CfnRoute[] = [];
    for (const route of apiRoutes) {
      const resource = route.resource as Resource;
      let integration = integrations.get(resource);
      if (!integration) {
        // One invoke permission per function, for this API only, rather than one per route: a
        // stack holds at most 500 resources
        // (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html).
        integration = new HttpLambdaIntegration(`${pascal(resource)}Integration`, this.functions[resource], { scopePermissionToRoute: false });
        integrations.set(resource, integration);
      }
      const made = this.httpApi.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
      if (DEVICE_RESOURCES.includes(resource)) deviceRoutes.push(...made.map((r) => r.node.defaultChild as CfnRoute));
    }

    stage.routeSettings = Object.fromEntries(
      apiRoutes
        .filter((route) => DEVICE_RESOURCES.includes(route.resource as Resource))
        .map((route) => [apiRouteKey(route), { ThrottlingRateLimit: DEVICE_ROUTE_THROTTLE.rateLimit, ThrottlingBurstLimit: DEVICE_ROUTE_THROTTLE.burstLimit }]),
    );
    // A stage names only routes that exist: CloudFormation makes the routes before the stage
    // (otherwise "Unable to find Route by key ... within the provided RouteSettings").
    for (const route of deviceRoutes) stage.node.addDependency(route);
  }

  /** The API's host name, for CloudFront's origin. */
  get domainName(): string {
    return `${this.httpApi.apiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`;
  }
}

const pascal = (name: string): string => name.replace(/(^|[-_])(\w)/g, (_m, _s, c: string) => c.toUpperCase());
