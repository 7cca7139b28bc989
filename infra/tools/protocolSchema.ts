import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { protocolJsonSchemaText } from '@passcloud/functions/contract/protocolSchema';

/** Writes docs/device-protocol.schema.json from the zod contract. */
const file = resolve(import.meta.dirname, '../../docs/device-protocol.schema.json');
writeFileSync(file, protocolJsonSchemaText());
console.log(`wrote ${file}`);
