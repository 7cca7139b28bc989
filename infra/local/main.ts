import { resolve } from 'node:path';
import { REPO_ROOT, startLocalStack } from './stack.ts';

/** `npm start`: the whole product on one machine. */
const started = Date.now();
const port = Number(process.env.PORT ?? 3000);
const dataDir = resolve(REPO_ROOT, process.env.DATA_DIR ?? '.data');
const seed = process.env.SEED_DEMO !== '0';
const simulateDevices = seed && process.env.SIMULATE_DEVICES !== '0' ? Number(process.env.SIMULATE_DEVICES ?? 3) || 3 : 0;
const trafficPerMinute = Math.max(0, Number(process.env.SIMULATE_TRAFFIC ?? 6) || 0);
/** `SIMULATE_INTERCOMS=<door stations>,<monitors>` (default 2,4; 0 for none). */
const [doorStations = 0, monitors = 0] = seed && process.env.SIMULATE_INTERCOMS !== '0' ? (process.env.SIMULATE_INTERCOMS ?? '2,4').split(',').map((n) => Math.max(0, Math.min(50, Number(n) || 0))) : [];
const callsPerMinute = Math.max(0, Number(process.env.SIMULATE_CALLS ?? 2) || 0);

process.env.LOG_LEVEL ??= 'warn';
const stack = await startLocalStack({
  port,
  dataDir,
  seed,
  simulateDevices,
  // The demo's people and passes need its terminals.
  ...(simulateDevices > 0 ? { demoData: { trafficPerMinute } } : {}),
  ...(doorStations + monitors > 0 ? { simulateIntercoms: { doorStations, monitors, callsPerMinute } } : {}),
  ...(process.env.MQTT_PORT ? { mqttPort: Number(process.env.MQTT_PORT) } : {}),
  ...(process.env.HOST ? { host: process.env.HOST } : {}),
});

const lines = [
  '',
  `  Pass Cloud is running at ${stack.url}  (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  `  Data directory: ${dataDir}`,
  `  Captured mails: ${stack.url}/_local/mails`,
  `  Device broker:  ${stack.iot.mqttUrl}  (WebSocket ${stack.iot.wsUrl})`,
];
if (stack.demo) {
  lines.push(`  Demo tenant "Demo Company": username ${stack.demo.username}  password ${stack.demo.password}  device binding code ${stack.demo.userCode}`);
}
if (stack.fleet)
  lines.push(
    `  Simulated devices: ${stack.fleet.agents.length} (SIMULATE_DEVICES=0 to start none; npm run devices -- --count N --user-code CODE for more)`,
    `  Simulated passes: ${trafficPerMinute} a minute (SIMULATE_TRAFFIC to change; 0 for none)`,
  );
if (stack.intercoms)
  lines.push(
    `  Simulated intercoms: ${stack.intercoms.doorStations.length} door stations, ${stack.intercoms.monitors.length} indoor monitors (SIMULATE_INTERCOMS=<door stations>,<monitors>; 0 for none)`,
    `  Simulated calls: ${callsPerMinute} a minute (SIMULATE_CALLS to change; 0 for none)`,
  );
lines.push('  Press Ctrl-C to stop.', '');
console.log(lines.join('\n'));
void stack.demoReady?.then(() => console.log('  Demo people, authorizations and passes are ready.'));

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log('\n  Stopping...');
    stack.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
