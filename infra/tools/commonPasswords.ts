import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { commonPasswordsJson } from '../../tests/support/commonPasswords.ts';

/** Writes functions/domain/commonPasswords.json: the most common passwords long enough to be chosen. */
const file = resolve(import.meta.dirname, '../../functions/domain/commonPasswords.json');
writeFileSync(file, commonPasswordsJson());
console.log(`wrote ${file}`);
