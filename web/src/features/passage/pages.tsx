import { ScreenPage } from '../../components/ScreenPage.tsx';

/** Screens of this area; each renders its localized title until its feature lands. */
export const AuthorityPage = () => <ScreenPage />;
export const AuthoritySettingPage = () => <ScreenPage />;
export const PassRecordPage = () => <ScreenPage />;
export const BlacklistMonitoringPage = () => <ScreenPage />;
export const BlacklistRecordPage = () => <ScreenPage />;
export const QuestionnairePage = () => <ScreenPage />;
export const QuestionnaireSettingPage = () => <ScreenPage />;
