import type { Catalog } from './en_US.ts';
import { en_US } from './en_US.ts';

export const de_DE: Catalog = { ...en_US };
