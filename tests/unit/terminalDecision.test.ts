import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import type { Face } from '@passcloud/device-shadow/faces';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { decide } from '@passcloud/device-shadow/traffic';

/**
 * The reference terminal decides a pass as docs/device-protocol.md says: the blacklist wins over
 * pass authority, a blacklist face counts only within its validity, and one person's faces on the
 * two lists are held and kept in flash side by side.
 */

const HOUR = 3600_000;
const face = (list: Face['list'], personKey: string, fields: Partial<Face> = {}): Face => ({
  list,
  personKey,
  name: `Person ${personKey}`,
  kind: 'employee',
  validFrom: null,
  validTo: null,
  photoBytes: 1000,
  ...fields,
});

/** A terminal that starts from a face library in its flash (it never connects). */
function terminal(faces: Face[]): { agent: DeviceAgent; flash: string } {
  const dir = mkdtempSync(join(tmpdir(), 'decide-'));
  const credentialsFile = join(dir, 'terminal.json');
  const flash = join(dir, 'terminal.faces.json');
  writeFileSync(flash, JSON.stringify({ cursor: 7, faces }));
  return { agent: new DeviceAgent({ apiUrl: 'http://127.0.0.1:9', userCode: 'unused', info: simulatedInfo('DECIDE', 1), credentialsFile }), flash };
}

describe('the reference terminal’s pass decision', () => {
  const past = new Date(Date.now() - HOUR).toISOString();
  const later = new Date(Date.now() + HOUR).toISOString();
  const { agent } = terminal([
    face('pass', 'bothlists01'),
    face('blacklist', 'bothlists01'),
    face('pass', 'passonly001'),
    face('blacklist', 'watchonly01'),
    face('pass', 'endedwatch1'),
    face('blacklist', 'endedwatch1', { validTo: past }),
    face('pass', 'laterwatch1'),
    face('blacklist', 'laterwatch1', { validFrom: later }),
  ]);

  it('holds one person’s pass face and blacklist face as two faces', () => {
    expect(agent.faces.size).toBe(8);
    expect(agent.faces.find('pass', 'bothlists01')?.list).toBe('pass');
    expect(agent.faces.find('blacklist', 'bothlists01')?.list).toBe('blacklist');
  });

  it('refuses a person on the blacklist even with pass authority, under their key', () => {
    expect(decide(agent, { personKey: 'bothlists01', temperature: 36.5 })).toMatchObject({ personKey: 'bothlists01', name: 'Person bothlists01', passState: 'refused', temperature: 36.5 });
    expect(decide(agent, { personKey: 'bothlists01', source: 'card' })).toMatchObject({ personKey: 'bothlists01', passState: 'refused', source: 'card' });
    expect(decide(agent, { personKey: 'watchonly01' })).toMatchObject({ personKey: 'watchonly01', passState: 'refused' });
    expect(agent.faces.watches('bothlists01')).toBe(true);
    expect(agent.faces.admits('bothlists01')).toBe(false);
  });

  it('lets pass authority through when the blacklist face is out of its validity', () => {
    expect(decide(agent, { personKey: 'endedwatch1' })).toMatchObject({ personKey: 'endedwatch1', passState: 'passed' });
    expect(decide(agent, { personKey: 'laterwatch1' })).toMatchObject({ personKey: 'laterwatch1', passState: 'passed' });
  });

  it('passes a face on the pass list alone, refuses a fever, and treats anyone else as a stranger', () => {
    expect(decide(agent, { personKey: 'passonly001', temperature: 36.6 })).toMatchObject({ personKey: 'passonly001', passState: 'passed' });
    expect(decide(agent, { personKey: 'passonly001', temperature: 38.2 })).toMatchObject({ passState: 'refused' });
    const stranger = decide(agent, { personKey: 'notheld0001' });
    expect(stranger.personKey).toBeUndefined();
    expect(stranger.passState).toBe('refused');
  });

  it('keeps both faces when the library is saved to flash and read back', () => {
    const { agent: first, flash } = terminal([face('pass', 'bothlists01'), face('blacklist', 'bothlists01'), face('pass', 'gone0000001', { validTo: past })]);
    // Dropping the ended face writes the library to flash again.
    expect(first.faces.prune()).toBe(1);
    const saved = JSON.parse(readFileSync(flash, 'utf8')) as { cursor: number; faces: Face[] };
    expect(saved.cursor).toBe(7);
    expect(saved.faces.map((f) => `${f.list}:${f.personKey}`).sort()).toEqual(['blacklist:bothlists01', 'pass:bothlists01']);
    const restarted = new DeviceAgent({ ...first.options });
    expect(restarted.faces.size).toBe(2);
    expect(decide(restarted, { personKey: 'bothlists01' }).passState).toBe('refused');
  });
});

describe('the reference terminal’s schedules', () => {
  const SCHEDULE = 'sched000001';
  // Open Monday to Friday 09:00–17:00, closed at weekends; 2025-03-17 (a Monday) an exception closes it; holidays close it.
  const weekday = [{ from: '09:00', to: '17:00' }];
  const flash = {
    schedules: [
      {
        scheduleId: SCHEDULE,
        version: 2,
        weekly: [weekday, weekday, weekday, weekday, weekday, [], []],
        exceptions: [{ date: '2025-03-17', periods: [] }],
        holidaysClosed: true,
      },
    ],
    holidays: ['2025-03-19'],
  };
  const dir = mkdtempSync(join(tmpdir(), 'decide-schedules-'));
  const credentialsFile = join(dir, 'terminal.json');
  writeFileSync(join(dir, 'terminal.faces.json'), JSON.stringify({ cursor: 3, faces: [face('pass', 'scheduled01', { scheduleId: SCHEDULE }), face('pass', 'expired0001', { validTo: '2025-01-01T00:00:00.000Z' })] }));
  writeFileSync(join(dir, 'terminal.schedules.json'), JSON.stringify(flash));
  // Never connected: it decides from its flash, in its own time zone (Tokyo, UTC+9).
  const agent = new DeviceAgent({ apiUrl: 'http://127.0.0.1:9', userCode: 'unused', info: { ...simulatedInfo('SCHED', 1), timezone: 'Asia/Tokyo' }, credentialsFile });
  const tokyo = (local: string) => new Date(`${local}:00+09:00`);

  it('passes within a period of the weekday, in the terminal’s time zone, and says which', () => {
    expect(decide(agent, { personKey: 'scheduled01' }, tokyo('2025-03-18T09:30'))).toMatchObject({
      passState: 'passed',
      decision: { list: 'pass', schedule: { scheduleId: SCHEDULE, open: true, because: 'weekly', period: { from: '09:00', to: '17:00' }, localTime: '2025-03-18T09:30', timezone: 'Asia/Tokyo' } },
    });
    // 08:30 in Tokyo is before the period, though 23:30 UTC of the day before.
    expect(decide(agent, { personKey: 'scheduled01' }, tokyo('2025-03-18T08:30'))).toMatchObject({ passState: 'refused', refusedFor: 'schedule' });
  });

  it('refuses for `schedule` at weekends, on an exception date and on a holiday', () => {
    expect(decide(agent, { personKey: 'scheduled01' }, tokyo('2025-03-15T10:00'))).toMatchObject({ refusedFor: 'schedule', decision: { schedule: { open: false, because: 'weekly' } } });
    expect(decide(agent, { personKey: 'scheduled01' }, tokyo('2025-03-17T10:00'))).toMatchObject({ refusedFor: 'schedule', decision: { schedule: { because: 'exception' } } });
    expect(decide(agent, { personKey: 'scheduled01' }, tokyo('2025-03-19T10:00'))).toMatchObject({ refusedFor: 'schedule', decision: { schedule: { because: 'holiday' } } });
  });

  it('refuses a face outside its validity for `validity`, a fever for `temperature`, and names no reason for a stranger', () => {
    expect(decide(agent, { personKey: 'expired0001' })).toMatchObject({ personKey: 'expired0001', passState: 'refused', refusedFor: 'validity' });
    expect(decide(agent, { personKey: 'scheduled01', temperature: 39 }, tokyo('2025-03-18T10:00'))).toMatchObject({ passState: 'refused', refusedFor: 'temperature' });
    const stranger = decide(agent, { personKey: 'notheld0001' });
    expect(stranger).toMatchObject({ passState: 'refused', decision: { list: null, schedule: null } });
    expect(stranger.refusedFor).toBeUndefined();
  });

  it('refuses a face whose schedule it does not hold', () => {
    const { agent: bare } = terminal([face('pass', 'unheld00001', { scheduleId: 'missing0001' })]);
    expect(decide(bare, { personKey: 'unheld00001' })).toMatchObject({ passState: 'refused', refusedFor: 'schedule' });
  });
});

