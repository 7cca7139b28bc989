import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openApiText } from '@passcloud/functions/openapi';

/** Writes docs/openapi.json from the route table and the handlers' zod schemas. */
const file = resolve(import.meta.dirname, '../../docs/openapi.json');
writeFileSync(file, await openApiText());
console.log(`wrote ${file}`);
