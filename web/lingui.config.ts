import { defineConfig } from '@lingui/conf';

/**
 * Sources of the public catalog: the screens opened without logging in (src/app/publicScreens.ts)
 * and the shell they show. Everything else is the console's.
 */
const PUBLIC_SOURCES = [
  '<rootDir>/src/app/!(menuTitles).{ts,tsx}',
  '<rootDir>/src/components/{Brand,LanguageSelect,LoadingBar,PublicLayout,useTitle}.{ts,tsx}',
  '<rootDir>/src/features/{auth,docs,entrance,errors}/**',
  '<rootDir>/src/features/questionnaires/SurveyPage.tsx',
];

/**
 * Catalogs use BCP 47 tags (Intl needs them); the app's own locale codes (en_US) map onto these.
 * Two catalogs per locale, so the first page does not carry the console's messages:
 * `public.po` loads with every page, `messages.po` with the console (src/app/i18n.ts). A message
 * used on both sides is in both. The build fails when a module a public screen loads uses a
 * message that is not in `public.po` (vite.config.ts).
 */
export default defineConfig({
  sourceLocale: 'en-US',
  locales: ['en-US', 'zh-CN', 'zh-TW', 'ja-JP', 'ko-KR', 'it-IT', 'de-DE', 'ru-RU', 'fr-FR', 'es-ES', 'id-ID'],
  fallbackLocales: false,
  catalogs: [
    { path: '<rootDir>/src/locales/{locale}/public', include: PUBLIC_SOURCES },
    { path: '<rootDir>/src/locales/{locale}/messages', include: ['<rootDir>/src'], exclude: PUBLIC_SOURCES },
  ],
  orderBy: 'messageId',
});
