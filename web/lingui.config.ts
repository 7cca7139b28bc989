import { defineConfig } from '@lingui/conf';

/** Catalogs use BCP 47 tags (Intl needs them); the app's own locale codes (en_US) map onto these. */
export default defineConfig({
  sourceLocale: 'en-US',
  locales: ['en-US', 'zh-CN', 'zh-TW', 'ja-JP', 'ko-KR', 'it-IT', 'de-DE', 'ru-RU', 'fr-FR', 'es-ES', 'id-ID'],
  fallbackLocales: false,
  catalogs: [{ path: '<rootDir>/src/locales/{locale}/messages', include: ['<rootDir>/src'] }],
  orderBy: 'messageId',
});
