import { describe, expect, it } from 'vitest';
import { localeOfLanguages } from '../../web/src/app/locales.ts';

/** Before anyone chooses a language, the console speaks the browser's, when it is one of its 11. */
describe('the console language of a first visit', () => {
  it('takes the first of the browser’s languages the console speaks, by language and region', () => {
    expect(localeOfLanguages(['ja-JP', 'en-US'])).toBe('ja_JP');
    expect(localeOfLanguages(['de-AT', 'en'])).toBe('de_DE');
    expect(localeOfLanguages(['pt-BR', 'es-419', 'en'])).toBe('es_ES');
    expect(localeOfLanguages(['ko'])).toBe('ko_KR');
    expect(localeOfLanguages(['en-GB'])).toBe('en_US');
    expect(localeOfLanguages(['id'])).toBe('id_ID');
  });

  it('tells traditional Chinese from simplified', () => {
    for (const tag of ['zh-TW', 'zh-Hant', 'zh-Hant-HK', 'zh-HK', 'zh_MO']) expect(localeOfLanguages([tag]), tag).toBe('zh_TW');
    for (const tag of ['zh-CN', 'zh', 'zh-Hans', 'zh-SG']) expect(localeOfLanguages([tag]), tag).toBe('zh_CN');
  });

  it('answers nothing for languages it does not speak, so English stays', () => {
    expect(localeOfLanguages(['pt-BR', 'nl'])).toBeUndefined();
    expect(localeOfLanguages([])).toBeUndefined();
  });
});
