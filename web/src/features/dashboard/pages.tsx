import { ScreenPage } from '../../components/ScreenPage.tsx';

/** The dashboard sits on the dark background of the layout. */
export const DashboardPage = () => <ScreenPage dark />;
