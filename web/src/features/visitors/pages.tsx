import { PeopleListPage } from '../people/PeopleListPage.tsx';
import { PersonFormPage } from '../people/PersonFormPage.tsx';
import { ImportPage } from '../people/ImportPage.tsx';

export const VisitorListPage = () => <PeopleListPage kind="visitor" />;
export const VisitorCreatePage = () => <PersonFormPage kind="visitor" />;
export const VisitorDetailPage = () => <PersonFormPage kind="visitor" />;
export const VisitorImportInfoPage = () => <ImportPage kind="visitor" step="info" />;
export const VisitorImportAvatarPage = () => <ImportPage kind="visitor" step="avatar" />;
