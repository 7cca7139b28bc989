import { AssetHashType, DockerImage, Duration, Lazy, RemovalPolicy, Stack, type ILocalBundling, type Size } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, type CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { resolve } from 'node:path';
import { resources, routes, type Resource } from '@passcloud/functions/routes';
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

export interface ApiProps {
  /** The stack's values; each function takes the variables its entry declares. */
  environment: StackEnvironment;
}

/** The HTTP API: one function per resource, one route per entry of the route table. */
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
        routeKey: '$context.routeKey',
        status: '$context.status',
        latency: '$context.integrationLatency',
        error: '$context.integrationErrorMessage',
      }),
    };
    stage.defaultRouteSettings = { throttlingBurstLimit: 200, throttlingRateLimit: 100 };

    this.functions = Object.fromEntries(
      resources.map((resource) => [
        resource,
        new ApiFunction(this, `${pascal(resource)}Function`, resource, props.environment),
      ]),
    ) as Record<Resource, ApiFunction>;

    const integrations = new Map<Resource, HttpLambdaIntegration>();
    for (const route of routes) {
      let integration = integrations.get(route.resource);
      if (!integration) {
        // One invoke permission per function, for this API only, rather than one per route: a
        // stack holds at most 500 resources, and the routes alone are most of them.
        integration = new HttpLambdaIntegration(`${pascal(route.resource)}Integration`, this.functions[route.resource], { scopePermissionToRoute: false });
        integrations.set(route.resource, integration);
      }
      this.httpApi.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
    }
  }

  /** The API's host name, for CloudFront's origin. */
  get domainName(): string {
    return `${this.httpApi.apiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`;
  }
}

const pascal = (name: string): string => name.replace(/(^|[-_])(\w)/g, (_m, _s, c: string) => c.toUpperCase());
