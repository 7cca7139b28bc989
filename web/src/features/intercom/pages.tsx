import { ScreenPage } from '../../components/ScreenPage.tsx';

/** Screens of this area; each renders its localized title until its feature lands. */
export const IntercomDeviceListPage = () => <ScreenPage />;
export const IntercomDeviceDetailPage = () => <ScreenPage />;
export const CallRecordPage = () => <ScreenPage />;
