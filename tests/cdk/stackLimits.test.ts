import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { App, type CfnElement } from 'aws-cdk-lib';
import { PassCloudStack } from '@passcloud/infra/aws/stack';
import { DEFAULT_ROUTE_THROTTLE, DEVICE_RESOURCES, DEVICE_ROUTE_THROTTLE } from '@passcloud/infra/aws/api';
import { apiRouteKey, apiRoutes, deriveApiRoutes, matchApiRoute, type ApiRoute } from '@passcloud/functions/apiRoutes';
import { routes, routeKey, type Method, type Resource, type RouteEntry } from '@passcloud/functions/routes';
import { SYNTH_STACK_NAME, SYNTH_STACK_PROPS, synthesized } from '../support/synthOutput.ts';

/**
 * What CloudFormation and API Gateway refuse at deploy time, asserted on the template `cdk synth`
 * writes: a stack of at most 500 resources and a template uploaded through S3 of at most 1 MB
 * (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html), the
 * HTTP API's routes derived from the route table by path prefix (functions/apiRoutes.ts), so that
 * a new entry of the table adds no resource, and the throttles of the terminals' routes.
 */

interface Resources {
  [id: string]: { Type: string; Properties?: Record<string, unknown>; DependsOn?: string | string[] };
}

const STACK_RESOURCES_MAX = 500;
const TEMPLATE_S3_MAX_BYTES = 1_000_000;
/** The routes the stack must still be able to take, were each of them one resource. */
const MORE_ROUTES = 100;
/** The account's HTTP API throttle per region by default (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-throttling.html). */
const ACCOUNT_RATE = 10_000;
const ACCOUNT_BURST = 5_000;

let resources: Resources;
let templateFile: string;
let functionOf: Record<string, string>;

beforeAll(async () => {
  const synth = await synthesized();
  templateFile = synth.templateFile;
  resources = (JSON.parse(readFileSync(templateFile, 'utf8')) as { Resources: Resources }).Resources;
  // The constructs, for the functions' logical ids, built again without bundling.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new PassCloudStack(app, SYNTH_STACK_NAME, SYNTH_STACK_PROPS);
  functionOf = Object.fromEntries(Object.entries(stack.api.functions).map(([resource, fn]) => [resource, stack.getLogicalId(fn.node.defaultChild as CfnElement)]));
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

/** A request path for an entry, its parameters filled with a value no fixed segment of the table has. */
const samplePath = (path: string): string => path.replace(/\{\w+\}/g, 'k0a1b2c3d4e5f6g7');

/** 100 entries the table does not have, spread over its resources, each under a path its resource already has. */
function syntheticEntries(): RouteEntry[] {
  const methods: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
  return Array.from({ length: MORE_ROUTES }, (_, i) => {
    const base = routes[(i * 7) % routes.length] as RouteEntry;
    return { ...base, method: methods[i % methods.length]!, path: `${base.path}/added${i}${i % 3 === 0 ? '/{addedKey}' : ''}` };
  });
}

describe('the stack within CloudFormation’s limits', () => {
  it(`leaves room for ${MORE_ROUTES} more routes under ${STACK_RESOURCES_MAX} resources`, () => {
    // 326 resources when this was written, 50 of them HTTP API routes.
    const count = Object.keys(resources).length;
    expect(count + MORE_ROUTES, `${count} resources`).toBeLessThanOrEqual(STACK_RESOURCES_MAX);
  });

  it('is a template under the 1 MB CloudFormation takes from S3', () => {
    expect(statSync(templateFile).size).toBeLessThan(TEMPLATE_S3_MAX_BYTES);
  });

  it('has exactly the API routes derived from the route table, each integrated with its resource’s function', () => {
    const integrations = Object.fromEntries(ofType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [id, (r.Properties!.IntegrationUri as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]]));
    const declared = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => {
      const target = JSON.stringify(r.Properties!.Target);
      const integration = Object.keys(integrations).find((id) => target.includes(`"${id}"`));
      return { key: r.Properties!.RouteKey as string, fn: integration ? integrations[integration] : undefined };
    });
    expect(declared.map((d) => d.key).sort()).toEqual(apiRoutes.map(apiRouteKey).sort());
    for (const route of apiRoutes) expect(declared.find((d) => d.key === apiRouteKey(route))?.fn, apiRouteKey(route)).toBe(functionOf[route.resource]);
  });

  it('sends every entry of the route table, by API Gateway’s choice of route, to its own resource’s function', () => {
    const keys = apiRoutes.map(apiRouteKey);
    // No API route is two resources'.
    expect(new Set(keys).size).toBe(keys.length);
    const astray: string[] = [];
    for (const entry of routes as readonly RouteEntry[]) {
      const matched = matchApiRoute(apiRoutes, entry.method, samplePath(entry.path));
      if (matched?.route.resource !== entry.resource) astray.push(`${routeKey(entry)} (${entry.resource}) -> ${matched ? `${apiRouteKey(matched.route)} (${matched.route.resource})` : 'nothing'}`);
    }
    expect(astray).toEqual([]);
  });

  it(`takes ${MORE_ROUTES} more entries of the route table without a new API route`, () => {
    const added = syntheticEntries();
    expect(new Set([...routes, ...added].map(routeKey)).size).toBe(routes.length + MORE_ROUTES);
    const derived: ApiRoute[] = deriveApiRoutes([...(routes as readonly RouteEntry[]), ...added]);
    expect(derived.map(apiRouteKey).sort()).toEqual(apiRoutes.map(apiRouteKey).sort());
    for (const entry of added) expect(matchApiRoute(derived, entry.method, samplePath(entry.path))?.route.resource, routeKey(entry)).toBe(entry.resource);
  });

  it('throttles the terminals’ routes at the rate and burst sized for them, within the account’s, and every other route at the default', () => {
    const [[stageId, stage]] = ofType('AWS::ApiGatewayV2::Stage') as [[string, Resources[string]]];
    expect(stageId).toBeDefined();
    const props = stage.Properties as { DefaultRouteSettings: Record<string, number>; RouteSettings?: Record<string, Record<string, number>> };
    expect(props.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: DEFAULT_ROUTE_THROTTLE.rateLimit, ThrottlingBurstLimit: DEFAULT_ROUTE_THROTTLE.burstLimit });
    const deviceRoutes = apiRoutes.filter((r) => DEVICE_RESOURCES.includes(r.resource as Resource));
    expect(deviceRoutes.map(apiRouteKey).sort()).toEqual(['ANY /v1/deviceSync', 'ANY /v1/deviceSync/{proxy+}']);
    expect(Object.keys(props.RouteSettings ?? {}).sort()).toEqual(deviceRoutes.map(apiRouteKey).sort());
    for (const route of deviceRoutes) expect(props.RouteSettings![apiRouteKey(route)]).toEqual({ ThrottlingRateLimit: 1_000, ThrottlingBurstLimit: 2_000 });
    expect(DEVICE_ROUTE_THROTTLE.rateLimit).toBeLessThanOrEqual(ACCOUNT_RATE);
    expect(DEVICE_ROUTE_THROTTLE.burstLimit).toBeLessThanOrEqual(ACCOUNT_BURST);
    // The stage names those routes, so CloudFormation makes them first.
    const routeIds = Object.fromEntries(ofType('AWS::ApiGatewayV2::Route').map(([id, r]) => [r.Properties!.RouteKey as string, id]));
    expect([stage.DependsOn ?? []].flat()).toEqual(expect.arrayContaining(deviceRoutes.map((r) => routeIds[apiRouteKey(r)])));
  });
});
