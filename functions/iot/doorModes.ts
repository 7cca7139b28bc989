import { DOOR_MODES, DOOR_MODE_SHADOW_KEY, type DoorMode } from '#contract/doorModes';
import { recordAppliedMode } from '#data/doorModes';

/** The door mode a terminal's reported shadow state says it applies, stored against the shadow's version; nothing when it does not say. */
export async function recordReportedDoorMode(tenantId: string, deviceKey: string, reported: Record<string, unknown>, shadowVersion: number): Promise<void> {
  const value = reported[DOOR_MODE_SHADOW_KEY];
  if (!(DOOR_MODES as readonly unknown[]).includes(value)) return;
  await recordAppliedMode(tenantId, deviceKey, value as DoorMode, shadowVersion);
}
