import { RecordListPage } from './records/RecordListPage.tsx';
import { AuthorityListPage } from './authorities/AuthorityListPage.tsx';
import { AuthorityWizardPage } from './authorities/AuthorityWizardPage.tsx';
import { QuestionnaireResultsPage } from '../questionnaires/ResultsPage.tsx';
import { QuestionnaireSettingPage as SettingPage } from '../questionnaires/SettingPage.tsx';
export { ScheduleCreatePage, ScheduleDetailPage, ScheduleListPage } from './schedules/Schedules.tsx';

/** Screens of this area; the questionnaires have a folder of their own. */
export const AuthorityPage = () => <AuthorityListPage setType={0} />;
export const AuthoritySettingPage = () => <AuthorityWizardPage />;
export const PassRecordPage = () => <RecordListPage screen="pass" />;
export const BlacklistMonitoringPage = () => <AuthorityListPage setType={1} />;
export const BlacklistRecordPage = () => <RecordListPage screen="blacklist" />;
export const QuestionnairePage = () => <QuestionnaireResultsPage />;
export const QuestionnaireSettingPage = () => <SettingPage />;
