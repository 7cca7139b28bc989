import { parseArgs } from 'node:util';
import { startFleet } from './fleet.ts';

/**
 * `npm run devices -- --count 200 --user-code ABCD2345 [--api http://127.0.0.1:3000] [--prefix SIM2] [--state-dir .data/devices]`:
 * starts simulated face terminals against any Pass Cloud endpoint and keeps them running. Each
 * keeps its binding in the state folder, so running it again connects the same devices; without
 * it, a second run would bind again and each device would wait as a replacement to approve.
 */
const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '3' },
    'user-code': { type: 'string' },
    api: { type: 'string', default: process.env.PASSCLOUD_API ?? 'http://127.0.0.1:3000' },
    prefix: { type: 'string', default: 'SIM' },
    broker: { type: 'string' },
    heartbeat: { type: 'string', default: '30000' },
    'state-dir': { type: 'string', default: '.data/devices' },
  },
});

const userCode = values['user-code'];
const count = Number(values.count);
if (!userCode || !Number.isInteger(count) || count < 1) {
  console.error('usage: npm run devices -- --count N --user-code CODE [--api URL] [--prefix SIM] [--broker mqtt://host:port]');
  process.exit(2);
}
const started = Date.now();
const fleet = await startFleet({
  apiUrl: values.api,
  userCode,
  count,
  prefix: values.prefix,
  heartbeatMs: Number(values.heartbeat),
  stateDir: values['state-dir'],
  ...(values.broker ? { brokerUrl: values.broker } : {}),
});
const waiting = fleet.agents.filter((a) => a.awaitingApproval).length;
const stopped = fleet.agents.filter((a) => a.stoppedFor).length;
console.log(
  `${count - waiting - stopped} simulated devices (${values.prefix}-0001...) online against ${values.api} in ${((Date.now() - started) / 1000).toFixed(1)} s` +
    (waiting ? `; ${waiting} wait for an administrator to approve them` : '') +
    (stopped ? `; ${stopped} stopped (deleted or replaced in the console)` : '') +
    '; Ctrl-C to stop.',
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void fleet.stop().then(() => process.exit(0)));
}
