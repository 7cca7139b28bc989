import { describe, expect, it } from 'vitest';
import { permittedMenu, menuPaths } from '@passcloud/functions/domain/menu';
import { AUTH_CODES, MENU, type AuthCode, type MenuItem } from '@passcloud/functions/contract/menu';

const codes = (...list: AuthCode[]) => new Set(list);
const paths = (tree: MenuItem[]) => menuPaths(tree);

describe('permittedMenu', () => {
  it('gives the owner the whole tree', () => {
    expect(permittedMenu(codes(...AUTH_CODES))).toEqual(MENU);
  });

  it('gives an account without codes nothing', () => {
    expect(permittedMenu(codes())).toEqual([]);
  });

  it('keeps hidden children with their parent and drops groups left empty', () => {
    const tree = permittedMenu(codes('pass:device'));
    expect(paths(tree)).toEqual(['/pass-platform', '/pass-platform/device/management', '/pass-platform/device/management/:deviceKey']);
  });

  it('keeps the attendance group for statistics alone', () => {
    const tree = permittedMenu(codes('pass:attendance-statistics'));
    expect(paths(tree)).toEqual([
      '/pass-platform',
      '/pass-platform/enterprise',
      '/pass-platform/enterprise/attendance',
      '/pass-platform/enterprise/attendance/statistics/daily',
      '/pass-platform/enterprise/attendance/statistics/monthly',
    ]);
  });

  it('does not change the shared tree', () => {
    const before = JSON.stringify(MENU);
    permittedMenu(codes('pass:employee'))[0]!.children!.pop();
    expect(JSON.stringify(MENU)).toBe(before);
  });

  it('names every screen path of the specification', () => {
    const all = menuPaths();
    for (const path of [
      '/pass-platform/dashboard',
      '/pass-platform/enterprise/employee/import/avatar',
      '/pass-platform/enterprise/attendance/settings/shift/:shiftKey',
      '/pass-platform/personnel/management/import/info',
      '/pass-platform/passage/blacklist/monitoring/setting',
      '/pass-platform/passage/questionnaire/setting',
      '/intercom-platform/records',
      '/settings/account/:key',
    ]) {
      expect(all).toContain(path);
    }
    expect(new Set(all).size).toBe(all.length);
  });

  it('uses only known authCodes', () => {
    const used = new Set<string>();
    const walk = (items: MenuItem[]) => items.forEach((i) => (i.authCode && used.add(i.authCode), walk(i.children ?? [])));
    walk(MENU);
    expect([...used].sort()).toEqual([...AUTH_CODES].sort());
  });
});
