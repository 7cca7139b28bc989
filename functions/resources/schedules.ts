import * as z from 'zod';
import { scheduleBody, scheduleKeyParams, scheduleListQuery, schedulePage, schedulePatch, scheduleVersionQuery, scheduleView } from '#contract/schedules';
import { createSchedule, deleteSchedule, getSchedule, scheduleViewOf, scheduleViews, updateSchedule } from '#data/schedules';
import { NotFoundError, fieldError } from '#lib/errors';
import { scheduleChanged } from '#flows/scheduleDelivery';
import { created, deleted, ok, sessionRoute } from '#lib/http';

/**
 * `/v1/schedules`: a company's access schedules (at most SCHEDULE_LIMIT), each with how many
 * authorizations use it; one in use cannot be deleted. Served by the authorities function
 * (resources/authorities.ts), whose permission `pass:authority` they share.
 */
export const scheduleHandlers = {
  'GET /v1/schedules': sessionRoute({
    answer: schedulePage,
    query: scheduleListQuery,
    async handle({ auth, query }) {
      const keyword = query.keyword?.toLowerCase();
      const all = (await scheduleViews(auth.tenantId)).filter((s) => !keyword || s.name.toLowerCase().includes(keyword));
      let from = 0;
      if (query.cursor) {
        from = all.findIndex((s) => s.scheduleKey === query.cursor) + 1;
        if (from === 0) throw fieldError('cursor', 'error.badCursor');
      }
      const items = all.slice(from, from + query.pageSize);
      const more = from + query.pageSize < all.length;
      return ok({ items, nextCursor: more ? items.at(-1)!.scheduleKey : null });
    },
  }),
  'POST /v1/schedules': sessionRoute({
    answer: scheduleView,
    body: scheduleBody,
    async handle({ auth, body }) {
      return created(scheduleViewOf(await createSchedule(auth.tenantId, body), 0));
    },
  }),
  'GET /v1/schedules/{scheduleKey}': sessionRoute({
    answer: scheduleView,
    params: scheduleKeyParams,
    async handle({ auth, params }) {
      const view = await getSchedule(auth.tenantId, params.scheduleKey);
      if (!view) throw new NotFoundError();
      return ok(view);
    },
  }),
  'PATCH /v1/schedules/{scheduleKey}': sessionRoute({
    answer: scheduleView,
    params: scheduleKeyParams,
    body: schedulePatch,
    async handle({ auth, params, body }) {
      await updateSchedule(auth.tenantId, params.scheduleKey, body);
      await scheduleChanged(auth.tenantId, params.scheduleKey);
      const view = await getSchedule(auth.tenantId, params.scheduleKey);
      if (!view) throw new NotFoundError();
      return created(view);
    },
  }),
  'DELETE /v1/schedules/{scheduleKey}': sessionRoute({
    answer: z.null(),
    params: scheduleKeyParams,
    query: scheduleVersionQuery,
    async handle({ auth, params, query }) {
      await deleteSchedule(auth.tenantId, params.scheduleKey, query.version);
      return deleted();
    },
  }),
};
