import type { Catalog } from './en_US.ts';
import { en_US } from './en_US.ts';

export const it_IT: Catalog = { ...en_US };
