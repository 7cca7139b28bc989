import { QUESTIONNAIRES_SHADOW_KEY, thingName } from '#contract/protocol';
import { allFaceTerminals, isIntercom, type Device } from '#data/devices';
import { openQuestionnaires } from '#data/questionnaires';
import { surveysToken } from '#domain/questionnaires';
import { updateDesired } from '#lib/iot';
import { pool } from '#lib/pool';
import { surveysOf } from '#views/questionnaireItems';

/**
 * How an open survey reaches the terminals in its scope: a value in each terminal's shadow
 * (QUESTIONNAIRES_SHADOW_KEY) names the surveys it is to show, after which the terminal reads them
 * over HTTPS (`GET /v1/deviceSync/questionnaires`).
 */

/** The shadow value that names a terminal's surveys (part of every full desired state written to it). */
export async function questionnairesDesired(device: Device): Promise<Record<string, string>> {
  if (isIntercom(device)) return {};
  return { [QUESTIONNAIRES_SHADOW_KEY]: surveysToken(surveysOf(device, await openQuestionnaires(device.tenantId))) };
}

/** Rounds of writing when the open surveys changed while they were written (another request opened or closed one). */
const DELIVERY_ROUNDS = 3;

/**
 * Writes the surveys each of `deviceKeys` is to show into its shadow: the terminals a survey
 * reached or left when it opened, closed, changed or moved its scope. Every terminal gets the
 * whole value, so a write that was missed is made good by the next. Two requests delivering at
 * once could leave the older value last; so the open surveys are read again after writing, and
 * the terminals whose value changed meanwhile are written again.
 */
export async function deliverQuestionnaires(tenantId: string, deviceKeys: ReadonlySet<string>): Promise<void> {
  if (deviceKeys.size === 0) return;
  const [first, fleet] = await Promise.all([openQuestionnaires(tenantId), allFaceTerminals(tenantId)]);
  let targets = fleet.filter((d) => deviceKeys.has(d.deviceKey));
  let open = first;
  const written = new Map<string, string>();
  for (let round = 0; round < DELIVERY_ROUNDS && targets.length > 0; round++) {
    await pool(targets, 8, async (device) => {
      const token = surveysToken(surveysOf(device, open));
      await updateDesired(thingName(tenantId, device.deviceKey), { [QUESTIONNAIRES_SHADOW_KEY]: token });
      written.set(device.deviceKey, token);
    });
    open = await openQuestionnaires(tenantId);
    targets = targets.filter((device) => surveysToken(surveysOf(device, open)) !== written.get(device.deviceKey));
  }
}
