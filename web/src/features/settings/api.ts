import type * as z from 'zod';
import { MENU, type AuthCode, type MenuItem } from '@passcloud/functions/contract/menu';
import { KEY_CODES, type ApiKeyCreateBody, type ApiKeyJson, type ApiKeySecret, type apiKeyList } from '@passcloud/functions/contract/apiKeys';
import type { AccountJson, accountPage } from '@passcloud/functions/contract/accounts';
import type { LicenceJson, licenceList } from '@passcloud/functions/contract/licences';
import { api } from '../../app/api.ts';
import { showFailure } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';

/** What the settings routes answer (functions/contract/accounts.ts, licences.ts). */
export type Account = AccountJson;
export type AccountPage = z.output<typeof accountPage>;
export type Licence = LicenceJson;
export type LicenceState = LicenceJson['state'];
export type LicenceList = z.output<typeof licenceList>;

export const ACCOUNTS_PATH = '/settings/account';
export const accountPath = (key: string): string => `${ACCOUNTS_PATH}/${key}`;

/** A node of the permission tree: the menu's own titles, and every code of its branch. */
export interface PermissionNode {
  id: string;
  titles: string[];
  codes: AuthCode[];
  children: PermissionNode[];
}

/**
 * The menu tree as permissions: screens that share their parent's code (create and detail pages)
 * are left out, and siblings with one code (daily and monthly statistics) become one node.
 */
export function permissionTree(items: readonly MenuItem[] = MENU, parentCode?: AuthCode): PermissionNode[] {
  const nodes: PermissionNode[] = [];
  for (const item of items) {
    const children = permissionTree(item.children ?? [], item.authCode ?? parentCode);
    const own = item.authCode && item.authCode !== parentCode ? item.authCode : undefined;
    if (!own && children.length === 0) continue;
    const codes = [...new Set([...(own ? [own] : []), ...children.flatMap((c) => c.codes)])];
    const twin = own && children.length === 0 ? nodes.find((n) => n.children.length === 0 && n.codes.length === 1 && n.codes[0] === own) : undefined;
    if (twin) twin.titles.push(item.title);
    else nodes.push({ id: item.path, titles: [item.title], codes, children });
  }
  return nodes;
}

/** The first field named by a 422 or 409 issue path ("authCodes.0" names authCodes). */
export const issueField = (path: string): string => path.split(/[.[]/)[0] ?? path;

/** Field problems of a refused request, by form field; empty when the refusal named none. */
export function fieldIssues(error: unknown, fields: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof RequestError)) return out;
  for (const issue of error.issues) {
    const field = issueField(issue.path);
    if (fields.includes(field) && !out[field]) out[field] = issue.message;
  }
  return out;
}

/**
 * A form's refusal: the problems the server names go to their fields, and a refusal that names
 * none goes to the toast. Answers the field problems (empty when it named none).
 */
export function showRefusal(form: { setErrors(errors: Record<string, string>): void }, fields: readonly string[], error: unknown): Record<string, string> {
  const issues = fieldIssues(error, fields);
  form.setErrors(issues);
  if (!Object.keys(issues).length) showFailure(error);
  return issues;
}

/** The menu title keys of the screens each code opens, as the permission tree names them ("Attendance groups / Shifts / Holidays"). */
export function codeTitles(tree: PermissionNode[] = permissionTree()): Map<AuthCode, string[]> {
  const titles = new Map<AuthCode, string[]>();
  const walk = (nodes: PermissionNode[]) => {
    for (const node of nodes) {
      if (node.children.length === 0 && node.codes.length === 1) titles.set(node.codes[0]!, [...(titles.get(node.codes[0]!) ?? []), ...node.titles]);
      walk(node.children);
    }
  };
  walk(tree);
  return titles;
}

/** The codes a key may be given, grouped under the platform of the menu they belong to (the pass platform, intercom, settings). */
export function keyCodeGroups(held: ReadonlySet<string>, tree: PermissionNode[] = permissionTree()): { title: string; codes: AuthCode[] }[] {
  return tree
    .map((platform) => ({ title: platform.titles[0]!, codes: KEY_CODES.filter((code) => platform.codes.includes(code) && held.has(code)) }))
    .filter((group) => group.codes.length > 0);
}

/** `GET /v1/apiKeys`: the company's keys, how many it may hold, and how many requests each may make in a window. */
export type ApiKeyList = z.output<typeof apiKeyList>;

export const API_KEYS_PATH = '/v1/apiKeys';

/**
 * The API key routes. Making a key, giving it a new secret and revoking it ask for the password
 * again (the request client shows the dialog); refusals are left to the caller (`silent`).
 */
export const apiKeys = {
  create: (body: ApiKeyCreateBody) => api.post<ApiKeySecret>(API_KEYS_PATH, body, { silent: true }),
  newSecret: (key: ApiKeyJson) => api.post<ApiKeySecret>(`${API_KEYS_PATH}/${key.apiKeyKey}/secret`, { version: key.version }, { silent: true }),
  revoke: (key: ApiKeyJson) => api.del<null>(`${API_KEYS_PATH}/${key.apiKeyKey}`, { query: { version: key.version }, silent: true }),
};
