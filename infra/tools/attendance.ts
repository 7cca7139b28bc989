import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { attendanceDays, engineInputShape, explained } from '@passcloud/functions/domain/attendance/index';

/**
 * Runs the attendance engine on a file, so a disputed day can be reproduced and explained outside
 * the product (../shared/ATTENDANCE.md gives the format).
 *   npm run attendance -- explain <file.json>
 * Prints `{ "days": [...] }` on stdout; bad input exits 2 naming the field and why.
 */
function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const [command, file] = process.argv.slice(2);
if (command !== 'explain' || !file) fail('Usage: npm run attendance -- explain <file.json>');
let raw: unknown;
try {
  raw = JSON.parse(readFileSync(resolve(process.cwd(), file), 'utf8'));
} catch (error) {
  fail(`${file}: ${error instanceof SyntaxError ? `not JSON (${error.message})` : 'cannot be read'}`);
}
const parsed = engineInputShape.safeParse(raw);
if (!parsed.success) fail(parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('\n'));
console.log(JSON.stringify({ days: attendanceDays(parsed.data).map(explained) }, null, 2));
