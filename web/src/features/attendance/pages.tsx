import { ScreenPage } from '../../components/ScreenPage.tsx';

/** Screens of this area; each renders its localized title until its feature lands. */
export const DailyStatisticsPage = () => <ScreenPage />;
export const MonthlyStatisticsPage = () => <ScreenPage />;
export const AttendanceGroupListPage = () => <ScreenPage />;
export const AttendanceGroupCreatePage = () => <ScreenPage />;
export const AttendanceGroupDetailPage = () => <ScreenPage />;
export const ShiftListPage = () => <ScreenPage />;
export const ShiftCreatePage = () => <ScreenPage />;
export const ShiftDetailPage = () => <ScreenPage />;
export const HolidayPage = () => <ScreenPage />;
