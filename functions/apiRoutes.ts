import { decodePathPart, routes, type Method, type RouteEntry } from './routes.ts';

/**
 * The HTTP API's routes, derived from the route table: one pair per path prefix that one
 * resource owns, `ANY /v1/<segment>` and `ANY /v1/<segment>/{proxy+}`, integrated with that
 * resource's function, which then picks the entry by method and path (lib/http.ts). An entry
 * added under a prefix its resource already owns adds no API route, and so no CloudFormation
 * resource: a stack holds at most 500 resources
 * (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html), and
 * an HTTP API at most 300 routes
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html).
 *
 * Where several resources share a prefix (`/v1/settings` of settings, `/v1/settings/email` of
 * mailSettings), the resource with the most entries under it keeps the pair, and each other
 * resource gets a pair for the longer prefix it owns. API Gateway sends a request to the most
 * specific route that matches it: a route without path variables before one with them, and one
 * with a greedy `{proxy+}` last; `ANY` only for methods no route of the same path names
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-routes.html).
 * `matchApiRoute` below is that choice, and tests/cdk/stackLimits.test.ts proves with it that
 * every entry of the table reaches its own resource's function.
 */

export type ApiMethod = Method | 'ANY';

export interface ApiRoute {
  method: ApiMethod;
  /** API Gateway's route path: `{name}` a path variable, `{proxy+}` (last only) the greedy one. */
  path: string;
  /** The resource whose function the route is integrated with. */
  resource: string;
}

export const GREEDY = '{proxy+}';

export const apiRouteKey = (route: Pick<ApiRoute, 'method' | 'path'>): string => `${route.method} ${route.path}`;

const segmentsOf = (path: string): string[] => path.split('/').slice(1);
const isVariable = (segment: string): boolean => /^\{\w+\+?\}$/.test(segment);

/** The resource with the most entries among `entries`; of equals, the first by name, so the derivation does not depend on the table's order. */
function mainResource(entries: readonly RouteEntry[]): string {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry.resource, (counts.get(entry.resource) ?? 0) + 1);
  return [...counts].sort(([a, m], [b, n]) => n - m || a.localeCompare(b))[0]![0];
}

function derive(prefix: string[], entries: readonly RouteEntry[], out: ApiRoute[]): void {
  const path = `/${prefix.join('/')}`;
  const owners = new Set(entries.map((e) => e.resource));
  if (owners.size === 1) {
    const [resource] = owners as Set<string>;
    out.push({ method: 'ANY', path, resource: resource! }, { method: 'ANY', path: `${path}/${GREEDY}`, resource: resource! });
    return;
  }
  const main = mainResource(entries);
  // The prefix itself: its own resource's where one resource has it, a route per method where several do.
  const exact = entries.filter((e) => segmentsOf(e.path).length === prefix.length);
  const exactOwners = new Set(exact.map((e) => e.resource));
  if (exactOwners.size > 1) for (const entry of exact) out.push({ method: entry.method, path, resource: entry.resource });
  out.push({ method: 'ANY', path, resource: exactOwners.size === 1 ? [...exactOwners][0]! : main });
  out.push({ method: 'ANY', path: `${path}/${GREEDY}`, resource: main });
  // Below it, a longer prefix for each next segment that has entries of another resource.
  const children = new Map<string, RouteEntry[]>();
  for (const entry of entries) {
    const segment = segmentsOf(entry.path)[prefix.length];
    if (segment === undefined) continue;
    children.set(segment, [...(children.get(segment) ?? []), entry]);
  }
  for (const [segment, below] of children) {
    if (below.every((e) => e.resource === main)) continue;
    // A path variable there would take every path of that depth from the greedy route, the other
    // resources' fixed segments among them; the table keeps shared prefixes to fixed segments.
    if (isVariable(segment)) throw new Error(`${path}/${segment}: a path parameter where the prefix ${path} is shared by ${[...owners].sort().join(', ')}; give the other resource a fixed segment`);
    derive([...prefix, segment], below, out);
  }
}

/**
 * The API routes for a route table. Every entry's path starts with `/v1/` and a fixed segment;
 * each prefix's routes are derived from the entries under it.
 */
export function deriveApiRoutes(table: readonly RouteEntry[]): ApiRoute[] {
  const byPrefix = new Map<string, RouteEntry[]>();
  for (const entry of table) {
    const [base, first] = segmentsOf(entry.path);
    if (base !== 'v1' || !first || isVariable(first)) throw new Error(`${entry.method} ${entry.path}: every path starts with /v1/ and a fixed segment`);
    byPrefix.set(first, [...(byPrefix.get(first) ?? []), entry]);
  }
  const out: ApiRoute[] = [];
  for (const [first, entries] of [...byPrefix].sort(([a], [b]) => a.localeCompare(b))) derive(['v1', first], entries, out);
  const keys = out.map(apiRouteKey);
  const twice = keys.filter((key, i) => keys.indexOf(key) !== i);
  if (twice.length > 0) throw new Error(`API routes derived twice: ${twice.join(', ')}`);
  return out;
}

/** The HTTP API's routes for THE route table. */
export const apiRoutes: readonly ApiRoute[] = deriveApiRoutes(routes);

export interface ApiRouteMatch {
  route: ApiRoute;
  /** The path parameters API Gateway gives the integration for this route: `proxy` for the greedy one, each decoded. */
  pathParameters: Record<string, string>;
}

/** How specific a match is: without path variables, with some, greedy; then the more fixed segments, then a named method before `ANY`. */
function rank(route: ApiRoute): [number, number, number] {
  const segments = segmentsOf(route.path);
  const kind = segments.at(-1) === GREEDY ? 2 : segments.some(isVariable) ? 1 : 0;
  return [kind, -segments.filter((s) => !isVariable(s)).length, route.method === 'ANY' ? 1 : 0];
}

const before = (a: readonly number[], b: readonly number[]): boolean => {
  const i = a.findIndex((value, j) => value !== b[j]);
  return i >= 0 && a[i]! < b[i]!;
};

function matchOne(route: ApiRoute, path: string[]): Record<string, string> | undefined {
  const segments = segmentsOf(route.path);
  const greedy = segments.at(-1) === GREEDY;
  const fixed = greedy ? segments.slice(0, -1) : segments;
  if (greedy ? path.length <= fixed.length : path.length !== fixed.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of fixed.entries()) {
    const part = path[i]!;
    if (isVariable(segment)) {
      if (!part) return undefined;
      params[segment.slice(1, -1)] = decodePathPart(part);
    } else if (segment !== part) return undefined;
  }
  if (greedy) {
    const rest = path.slice(fixed.length).join('/');
    if (!rest) return undefined;
    params.proxy = decodePathPart(rest);
  }
  return params;
}

/**
 * The API route API Gateway sends a request to, with the path parameters it gives the
 * integration; none when no route matches (API Gateway answers 404 itself).
 */
export function matchApiRoute(table: readonly ApiRoute[], method: string, requestPath: string): ApiRouteMatch | undefined {
  const path = segmentsOf(requestPath);
  let best: { match: ApiRouteMatch; rank: [number, number, number] } | undefined;
  for (const route of table) {
    if (route.method !== 'ANY' && route.method !== method) continue;
    const pathParameters = matchOne(route, path);
    if (!pathParameters) continue;
    const r = rank(route);
    if (!best || before(r, best.rank)) best = { match: { route, pathParameters }, rank: r };
  }
  return best?.match;
}
