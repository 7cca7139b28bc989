type Level = 'debug' | 'info' | 'warn' | 'error';
import { env } from './env.ts';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function threshold(): number {
  const wanted = env('LOG_LEVEL') ?? 'info';
  if (wanted === 'silent') return Infinity;
  return order[wanted as Level] ?? order.info;
}

/** One JSON line per event, so CloudWatch Logs Insights and the local console read the same thing. */
export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  if (order[level] < threshold()) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields });
  if (level === 'error' || level === 'warn') process.stderr.write(line + '\n');
  else process.stdout.write(line + '\n');
}
