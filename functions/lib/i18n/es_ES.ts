import type { Catalog } from './en_US.ts';
import { en_US } from './en_US.ts';

export const es_ES: Catalog = { ...en_US };
