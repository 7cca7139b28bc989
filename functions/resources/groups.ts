import type { AuthCode } from '#contract/menu';
import * as z from 'zod';
import { groupAnswer, groupBody, groupKeyParams, groupList, groupListQuery, groupPatchBody, versionQuery, type GroupType } from '#contract/people';
import { createGroup, deleteGroup, listGroups, renameGroup, requireGroup, type Group } from '#data/groups';
import { anyPerson } from '#data/peopleLists';
import { anyDeviceInGroup } from '#data/devices';
import type { Auth } from '#lib/auth';
import { ConflictError, NoPermissionError } from '#lib/errors';
import { created, defineResource, deleted, ok, sessionRoute } from '#lib/http';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET']);

/** Employee groups need the employee code, visitor groups the visitor code, device groups the device code. */
const CODE_OF: Record<GroupType, AuthCode> = { employee: 'pass:employee', visitor: 'pass:visitor', device: 'pass:device' };
function mayUse(auth: Auth, type: GroupType): void {
  if (!auth.account.authCodes.includes(CODE_OF[type])) throw new NoPermissionError();
}

const groupJson = (group: Group) => ({ groupKey: group.groupKey, name: group.name, type: group.type, createTime: group.createdAt, version: group.version });

export const groups = defineResource('groups', {
  'GET /v1/groups': sessionRoute({
    query: groupListQuery,
    answer: groupList,
    async handle({ auth, query }) {
      mayUse(auth, query.type);
      return ok({ items: (await listGroups(auth.tenantId, query.type)).map(groupJson), nextCursor: null });
    },
  }),
  'POST /v1/groups': sessionRoute({
    body: groupBody,
    answer: groupAnswer,
    async handle({ auth, body }) {
      mayUse(auth, body.type);
      return created(groupJson(await createGroup(auth.tenantId, body.name, body.type)));
    },
  }),
  'PATCH /v1/groups/{groupKey}': sessionRoute({
    params: groupKeyParams,
    body: groupPatchBody,
    answer: groupAnswer,
    async handle({ auth, params, body }) {
      mayUse(auth, (await requireGroup(auth.tenantId, params.groupKey)).type);
      return created(groupJson(await renameGroup(auth.tenantId, params.groupKey, body.name, body.version)));
    },
  }),
  'DELETE /v1/groups/{groupKey}': sessionRoute({
    params: groupKeyParams,
    query: versionQuery,
    answer: z.null(),
    async handle({ auth, params, query }) {
      const group = await requireGroup(auth.tenantId, params.groupKey);
      mayUse(auth, group.type);
      const inUse =
        group.type === 'device' ? await anyDeviceInGroup(auth.tenantId, group.groupKey) : await anyPerson(auth.tenantId, { groupKey: group.groupKey });
      if (inUse) throw new ConflictError(group.type === 'device' ? 'groups.devicesInUse' : 'groups.inUse');
      await deleteGroup(auth.tenantId, params.groupKey, query.version);
      return deleted();
    },
  }),
});

export const handler = groups.handler;
