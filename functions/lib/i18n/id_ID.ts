import type { Catalog } from './en_US.ts';
import { en_US } from './en_US.ts';

export const id_ID: Catalog = { ...en_US };
