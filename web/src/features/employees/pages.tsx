import { ScreenPage } from '../../components/ScreenPage.tsx';

/** Screens of this area; each renders its localized title until its feature lands. */
export const EmployeeListPage = () => <ScreenPage />;
export const EmployeeCreatePage = () => <ScreenPage />;
export const EmployeeResignedPage = () => <ScreenPage />;
export const EmployeeImportInfoPage = () => <ScreenPage />;
export const EmployeeImportAvatarPage = () => <ScreenPage />;
export const EmployeeDetailPage = () => <ScreenPage />;
