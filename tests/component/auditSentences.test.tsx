import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { i18n } from '../../web/src/app/i18n.ts';
import type { AuditEntryJson } from '@passcloud/functions/contract/audit';
import { auditKindOf } from '@passcloud/functions/lib/audit';
import { routeKey, routes } from '@passcloud/functions/routes';
import { AuditAction } from '../../web/src/features/settings/AuditAction.tsx';
import { AUDIT_SENTENCES } from '../../web/src/features/settings/auditSentences.ts';
import { renderConsole } from './render.tsx';

/** How the audit log reads: a sentence for every route it records, naming the item, linked while it is there. */

const audited = routes.filter((route) => auditKindOf(route)).map(routeKey);

const entry = (over: Partial<AuditEntryJson>): AuditEntryJson => ({
  auditKey: '1764374400000-0123456789abcdef',
  time: '2026-11-29T00:00:00.000Z',
  kind: 'change',
  username: 'admin',
  apiKey: null,
  action: 'DELETE /v1/accounts/{accountKey}',
  target: { accountKey: 'k7f3m2x9q1w8e5r4' },
  item: { param: 'accountKey', key: 'k7f3m2x9q1w8e5r4', name: 'reception2', exists: false },
  fields: [],
  code: 204,
  reason: null,
  sourceIp: '2001:db8:85a3::8a2e:370:7334',
  userAgent: 'Mozilla/5.0',
  ...over,
});

describe('the audit log’s sentences', () => {
  it('has a sentence for every route the log records, and none for a route it does not', () => {
    expect(audited.length).toBeGreaterThan(50);
    expect(audited.filter((key) => !(key in AUDIT_SENTENCES))).toEqual([]);
    expect(Object.keys(AUDIT_SENTENCES).filter((key) => !audited.includes(key))).toEqual([]);
  });

  it('says each as words, with the item’s name where the route acts on one, never the route or a key', () => {
    for (const key of audited) {
      const said = i18n._(AUDIT_SENTENCES[key as keyof typeof AUDIT_SENTENCES]('NAME'));
      expect(said, key).not.toMatch(/\/v1\/|\{|\}|Key\b/);
      expect(said, key).toMatch(/^[A-Z][a-z]/);
      // A route on an item that has a name names it.
      if (/\{(account|employee|visitor|group|department|shift|attendanceGroup|holiday|device|intercom|questionnaire|webhook|apiKey)Key\}/.test(key)) {
        expect(said, key).toContain('NAME');
      }
    }
  });

  it('names a deleted item without a link, and keeps the route and key in the details', async () => {
    const { user } = renderConsole(<AuditAction entry={entry({})} reason={null} />);
    expect(screen.getByTestId('audit-action').textContent).toBe('Deleted account reception2');
    expect(screen.queryByTestId('audit-item-link')).toBeNull();
    await user.click(screen.getByTestId('audit-details-toggle'));
    const details = screen.getByTestId('audit-details').textContent;
    expect(details).toContain('DELETE /v1/accounts/{accountKey}');
    expect(details).toContain('k7f3m2x9q1w8e5r4');
  });

  it('links an item that is still there to its screen', () => {
    renderConsole(
      <AuditAction
        entry={entry({ action: 'PATCH /v1/accounts/{accountKey}', item: { param: 'accountKey', key: 'k7f3m2x9q1w8e5r4', name: 'reception2', exists: true } })}
        reason={null}
      />,
    );
    expect(screen.getByTestId('audit-action').textContent).toBe('Changed account reception2');
    expect(screen.getByTestId('audit-item-link').getAttribute('href')).toBe('/settings/account/k7f3m2x9q1w8e5r4');
  });
});
