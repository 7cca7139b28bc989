import type { Catalog } from './en_US.ts';
import { en_US } from './en_US.ts';

export const ru_RU: Catalog = { ...en_US };
