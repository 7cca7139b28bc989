import * as z from 'zod';

/** Fields many contracts share, spelled once. */

/** An item's key (a person, a device, a group, a schedule…): anything else names no item, and answers as one not found. */
export const itemKey = z.string().regex(/^[0-9a-z]{8,32}$/, { message: 'error.itemNotFound' });

/** The opaque cursor a list answered with its page, sent back for the next one. */
export const pageCursor = z
  .string()
  .max(400)
  .regex(/^[A-Za-z0-9_-]+$/, { message: 'error.badCursor' });
