// Runs one deployed Lambda bundle as Lambda would: a fresh Node process with only the
// environment it is given, the bundle imported from its file, `handler` called with each event
// read (as a JSON array) from standard input. Prints the outcomes, and the names of the
// environment variables the bundle read, as one JSON line after a marker.
import { pathToFileURL } from 'node:url';

const reads = new Set();
const real = process.env;
process.env = new Proxy(real, {
  get(target, name) {
    if (typeof name === 'string') reads.add(name);
    return Reflect.get(target, name);
  },
});

const [file] = process.argv.slice(2);
let input = '';
for await (const chunk of process.stdin) input += chunk;
const events = JSON.parse(input);

let mod;
try {
  mod = await import(pathToFileURL(file).href);
} catch (error) {
  process.stdout.write(`\n@@OUTCOMES@@${JSON.stringify({ loadError: String(error?.stack ?? error) })}\n`);
  process.exit(0);
}
if (typeof mod.handler !== 'function') {
  process.stdout.write(`\n@@OUTCOMES@@${JSON.stringify({ loadError: `no handler export (exports: ${Object.keys(mod).join(', ') || 'none'})` })}\n`);
  process.exit(0);
}
const context = { functionName: 'bundle-test', awsRequestId: 'bundle-test', getRemainingTimeInMillis: () => 30_000 };
const outcomes = [];
for (const event of events) {
  try {
    outcomes.push({ ok: true, value: (await mod.handler(event, context)) ?? null });
  } catch (error) {
    outcomes.push({ ok: false, error: String(error?.stack ?? error) });
  }
}
// Exits once the outcomes are written: a pipe takes a large answer (the OpenAPI document) in several writes.
process.stdout.write(`\n@@OUTCOMES@@${JSON.stringify({ outcomes, reads: [...reads] })}\n`, () => process.exit(0));
