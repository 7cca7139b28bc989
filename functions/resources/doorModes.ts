import { doorModeAnswer, doorModeBannerAnswer, doorModeBody, doorModeSetAnswer, exemptionsAnswer, exemptionsBody, type ExemptionsAnswer } from '#contract/doorModes';
import { PERSON_KINDS } from '#contract/people';
import { readExemptions, saveExemptions } from '#data/doorModes';
import { findPeople, type Person } from '#data/people';
import { fieldError } from '#lib/errors';
import { created, ok, sessionRoute } from '#lib/http';
import { deliverExemptions, doorModeStates, setDoorMode } from '#flows/doorModes';

/** The people of these keys the company has, of either kind, by key. */
async function peopleOf(tenantId: string, keys: readonly string[]): Promise<Map<string, Person>> {
  const found = await Promise.all(PERSON_KINDS.map((kind) => findPeople(tenantId, kind, keys)));
  return new Map(found.flatMap((map) => [...map]));
}

async function exemptionsJson(tenantId: string): Promise<ExemptionsAnswer> {
  const { personKeys, version } = await readExemptions(tenantId);
  const people = await peopleOf(tenantId, personKeys);
  // A person deleted since stays out of the answer; the terminals never recognise them again anyway.
  return { people: personKeys.filter((key) => people.has(key)).map((key) => ({ personKey: key, name: people.get(key)!.name })), version };
}

/** `/v1/doorModes`: door modes and the exemption list (contract/doorModes.ts), served by the devices function (resources/devices.ts). */
export const doorModeHandlers = {
  'GET /v1/doorModes': sessionRoute({
    answer: doorModeAnswer,
    async handle({ auth }) {
      return ok(await doorModeStates(auth.tenantId));
    },
  }),
  'GET /v1/doorModes/banner': sessionRoute({
    answer: doorModeBannerAnswer,
    async handle({ auth }) {
      const { items } = await doorModeStates(auth.tenantId);
      return ok({ items: items.map((state) => ({ ...state, devices: state.devices.length })) });
    },
  }),
  'PUT /v1/doorModes': sessionRoute({
    answer: doorModeSetAnswer,
    body: doorModeBody,
    async handle({ auth, body }) {
      const devices = await setDoorMode(auth.tenantId, auth.account.username, body);
      return created({ mode: body.mode, devices });
    },
  }),
  'GET /v1/doorModes/exemptions': sessionRoute({
    answer: exemptionsAnswer,
    async handle({ auth }) {
      return ok(await exemptionsJson(auth.tenantId));
    },
  }),
  'PUT /v1/doorModes/exemptions': sessionRoute({
    answer: exemptionsAnswer,
    body: exemptionsBody,
    async handle({ auth, body }) {
      const keys = [...new Set(body.personKeys)];
      const people = await peopleOf(auth.tenantId, keys);
      const missing = keys.filter((key) => !people.has(key));
      if (missing.length > 0) throw fieldError('personKeys', 'doorMode.personMissing', { count: missing.length });
      const saved = await saveExemptions(auth.tenantId, keys, body.version);
      await deliverExemptions(auth.tenantId, saved.version);
      return created(await exemptionsJson(auth.tenantId));
    },
  }),
} as const;
