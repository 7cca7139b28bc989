import * as z from 'zod';
import { departmentAnswer, departmentBody, departmentKeyParams, departmentPatchBody, departmentTreeAnswer, versionQuery } from '#contract/people';
import { createDepartment, deleteDepartment, departmentJson, departmentTree, listDepartments, requireDepartment, updateDepartment } from '#data/departments';
import { anyPerson } from '#data/peopleLists';
import { ConflictError, fieldError } from '#lib/errors';
import { created, defineResource, deleted, ok, sessionRoute } from '#lib/http';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET']);

/** A department may not move under itself or below one of its own descendants. */
async function checkParent(tenantId: string, departmentKey: string | undefined, parentKey: string): Promise<void> {
  const all = new Map((await listDepartments(tenantId)).map((d) => [d.departmentKey, d]));
  if (!all.has(parentKey)) throw fieldError('parentKey', 'people.departmentMissing');
  for (let key: string | undefined = parentKey, steps = 0; key && steps <= all.size; key = all.get(key)?.parentKey, steps++) {
    if (key === departmentKey) throw fieldError('parentKey', 'departments.cycle');
  }
}

export const departments = defineResource('departments', {
  'GET /v1/departments': sessionRoute({
    answer: departmentTreeAnswer,
    async handle({ auth }) {
      return ok({ items: departmentTree(await listDepartments(auth.tenantId)), nextCursor: null });
    },
  }),
  'POST /v1/departments': sessionRoute({
    body: departmentBody,
    answer: departmentAnswer,
    async handle({ auth, body }) {
      if (body.parentKey) await checkParent(auth.tenantId, undefined, body.parentKey);
      return created(departmentJson(await createDepartment(auth.tenantId, body.name, body.parentKey)));
    },
  }),
  'PATCH /v1/departments/{departmentKey}': sessionRoute({
    params: departmentKeyParams,
    body: departmentPatchBody,
    answer: departmentAnswer,
    async handle({ auth, params, body }) {
      await requireDepartment(auth.tenantId, params.departmentKey);
      if (body.parentKey) await checkParent(auth.tenantId, params.departmentKey, body.parentKey);
      const { version, ...changes } = body;
      return created(departmentJson(await updateDepartment(auth.tenantId, params.departmentKey, version, changes)));
    },
  }),
  'DELETE /v1/departments/{departmentKey}': sessionRoute({
    params: departmentKeyParams,
    query: versionQuery,
    answer: z.null(),
    async handle({ auth, params, query }) {
      await requireDepartment(auth.tenantId, params.departmentKey);
      const hasChildren = (await listDepartments(auth.tenantId)).some((d) => d.parentKey === params.departmentKey);
      if (hasChildren || (await anyPerson(auth.tenantId, { departmentKey: params.departmentKey }))) throw new ConflictError('departments.inUse');
      await deleteDepartment(auth.tenantId, params.departmentKey, query.version);
      return deleted();
    },
  }),
});

export const handler = departments.handler;
