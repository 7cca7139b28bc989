import { SETTINGS } from './main.ts';
import { sortKey } from './sortKey.ts';

/**
 * Keys of door modes in the main table (data/doorModes.ts): a terminal's mode, the company's list
 * of people a lockdown lets pass, and the counter that orders the company's settings of a mode.
 */
export const DOOR_MODE = sortKey('doorMode', ['deviceKey'] as const);
export const DOOR_EXEMPTIONS_SK = SETTINGS.of('doorModeExemptions');
export const DOOR_MODE_REVISION_SK = SETTINGS.of('doorModeRevision');
