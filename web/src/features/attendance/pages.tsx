/** Screens of this area: the rules (shifts, groups, holidays) and the statistics. */
export { ShiftListPage, ShiftCreatePage, ShiftDetailPage } from './Shifts.tsx';
export { AttendanceGroupListPage, AttendanceGroupCreatePage, AttendanceGroupDetailPage } from './AttendanceGroups.tsx';
export { HolidayPage } from './Holidays.tsx';
export { DailyStatisticsPage, MonthlyStatisticsPage } from './Statistics.tsx';
