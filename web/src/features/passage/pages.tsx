import { ScreenPage } from '../../components/ScreenPage.tsx';
import { RecordListPage } from './records/RecordListPage.tsx';
import { AuthorityListPage } from './authorities/AuthorityListPage.tsx';
import { AuthorityWizardPage } from './authorities/AuthorityWizardPage.tsx';

/** Screens of this area; each renders its localized title until its feature lands. */
export const AuthorityPage = () => <AuthorityListPage setType={0} />;
export const AuthoritySettingPage = () => <AuthorityWizardPage />;
export const PassRecordPage = () => <RecordListPage screen="pass" />;
export const BlacklistMonitoringPage = () => <AuthorityListPage setType={1} />;
export const BlacklistRecordPage = () => <RecordListPage screen="blacklist" />;
export const QuestionnairePage = () => <ScreenPage />;
export const QuestionnaireSettingPage = () => <ScreenPage />;
