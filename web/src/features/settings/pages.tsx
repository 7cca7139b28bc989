/** The screens of system settings (web/src/app/screens.ts maps the paths to these). */
export { SettingsPage } from './SettingsPage.tsx';
export { AccountCreatePage } from './AccountCreatePage.tsx';
export { AccountDetailPage } from './AccountDetailPage.tsx';
