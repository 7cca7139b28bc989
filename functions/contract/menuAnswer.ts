import * as z from 'zod';
import { AUTH_CODES } from './menu.ts';

/** `GET /v1/systems/routes`: the menu tree the account's rights open, as the console draws it. */
const menuItemSchema = z
  .object({
    path: z.string(),
    title: z.string().meta({ description: 'Message id of the title; the console translates it' }),
    icon: z.string().optional(),
    authCode: z.enum(AUTH_CODES).optional(),
    open: z.boolean().optional(),
    isShow: z.boolean(),
    setType: z.union([z.literal(0), z.literal(1)]).optional().meta({ description: '0 = passage authority setting, 1 = blacklist setting (the same screen)' }),
    redirect: z.string().optional().meta({ description: 'Where a platform or group goes when opened directly' }),
    get children() {
      return z.array(menuItemSchema).optional();
    },
  })
  .meta({ id: 'MenuItem' });
export const menuAnswer = z.array(menuItemSchema);
