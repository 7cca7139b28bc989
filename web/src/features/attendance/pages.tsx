import { ScreenPage } from '../../components/ScreenPage.tsx';

/** Screens of this area: the rules (shifts, groups, holidays) and the statistics. */
export { ShiftListPage, ShiftCreatePage, ShiftDetailPage } from './Shifts.tsx';
export { AttendanceGroupListPage, AttendanceGroupCreatePage, AttendanceGroupDetailPage } from './AttendanceGroups.tsx';
export { HolidayPage } from './Holidays.tsx';
export const DailyStatisticsPage = () => <ScreenPage />;
export const MonthlyStatisticsPage = () => <ScreenPage />;
