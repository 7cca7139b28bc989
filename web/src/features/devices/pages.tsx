import { ScreenPage } from '../../components/ScreenPage.tsx';

/** Screens of this area; each renders its localized title until its feature lands. */
export const DeviceListPage = () => <ScreenPage />;
export const DeviceDetailPage = () => <ScreenPage />;
