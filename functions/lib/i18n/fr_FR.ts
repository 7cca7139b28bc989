import type { Catalog } from './en_US.ts';
import { en_US } from './en_US.ts';

export const fr_FR: Catalog = { ...en_US };
