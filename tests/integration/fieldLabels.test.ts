import { beforeAll, describe, expect, it } from 'vitest';
import { translate } from '@passcloud/functions/lib/i18n';
import { call, login, newCompany } from '../support/api.ts';

/** A refusal names each field in the caller's language, also fields the import template does not have. */

type Issues = { issues: { path: string; message: string }[] };

let token: string;

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
});

/** A grant whose period ends before it starts. */
const backwards = (locale: string) =>
  call<Issues>('POST', '/v1/authorities', {
    token,
    locale,
    body: { setType: 0, personKeys: ['k0000000000000001'], deviceKeys: ['k0000000000000002'], validity: { start: '2031-03-10', end: '2031-03-01' } },
  });

describe('field names in refusals', () => {
  it.each(['ja_JP', 'zh_CN'] as const)('names the end of a validity period in %s, not by its English key', async (locale) => {
    const answer = await backwards(locale);
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues).toEqual([{ path: 'validity.end', message: translate(locale, 'authorities.endBeforeStart') }]);
    expect(answer.body.message).toContain(translate(locale, 'field.endDate'));
    expect(answer.body.message).not.toMatch(/\b(End|Start)\b/);
    expect(answer.body.message).not.toMatch(/[A-Za-z]{3,}/);
  });

  it('names it in English for an English caller', async () => {
    const answer = await backwards('en_US');
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('End date: The end date cannot be earlier than the start date');
  });

  it('names the other fields of a grant in the caller’s language too', async () => {
    const answer = await call<Issues>('POST', '/v1/authorities', {
      token,
      locale: 'ja_JP',
      body: { setType: 2, personKeys: 'nobody', deviceKeys: [], validity: { permanent: true } },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues.map((i) => i.path).sort()).toEqual(['personKeys', 'setType']);
    for (const id of ['field.setType', 'field.people'] as const) expect(answer.body.message).toContain(translate('ja_JP', id));
    expect(answer.body.message).not.toMatch(/[A-Za-z]{3,}/);
  });
});
