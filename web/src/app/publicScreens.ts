import type { ComponentType } from 'react';

/** The public screens by path; main.tsx starts loading the one being opened alongside the app. */
export const PUBLIC_SCREENS: Record<string, () => Promise<{ default: ComponentType }>> = {
  '/login': () => import('../features/auth/LoginPage.tsx'),
  '/register': () => import('../features/auth/RegisterPage.tsx'),
  '/password-find': () => import('../features/auth/PasswordFindPage.tsx'),
  '/invitation': () => import('../features/auth/InvitationPage.tsx'),
  '/agreement': () => import('../features/auth/AgreementPage.tsx'),
  '/entrance': () => import('../features/entrance/EntrancePage.tsx'),
  '/smart-elevator': () => import('../features/entrance/SmartElevatorPage.tsx'),
  // The page behind a face terminal's QR code, answered on a phone (`/survey#<token>`).
  '/survey': () => import('../features/questionnaires/SurveyPage.tsx'),
  // The API reference for integrators, rendered from the document the API serves (/v1/openapi.json).
  '/docs/api': () => import('../features/docs/ApiDocsPage.tsx'),
  // The integrators' guide (docs/api.md): keys, the envelope, errors, paging and limits.
  '/docs/api/guide': () => import('../features/docs/ApiGuidePage.tsx'),
  '/404': () => import('../features/errors/NotFoundPage.tsx'),
};
