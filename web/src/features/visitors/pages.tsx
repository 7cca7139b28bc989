import { ScreenPage } from '../../components/ScreenPage.tsx';

/** Screens of this area; each renders its localized title until its feature lands. */
export const VisitorListPage = () => <ScreenPage />;
export const VisitorCreatePage = () => <ScreenPage />;
export const VisitorImportInfoPage = () => <ScreenPage />;
export const VisitorImportAvatarPage = () => <ScreenPage />;
export const VisitorDetailPage = () => <ScreenPage />;
