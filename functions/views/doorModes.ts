import type { DeviceDoorMode } from '#contract/doorModes';
import type { DeviceDoorModeItem } from '#data/doorModes';

/** A terminal's door mode as the device list and detail show it; a terminal never given one is normal. */
export function doorModeJson(item: DeviceDoorModeItem | undefined): DeviceDoorMode {
  return { desired: item?.desired ?? 'normal', applied: item?.applied ?? null, since: item?.since ?? null };
}
