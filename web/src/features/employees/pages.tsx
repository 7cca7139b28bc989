import { PeopleListPage } from '../people/PeopleListPage.tsx';
import { PersonFormPage } from '../people/PersonFormPage.tsx';
import { ImportPage } from '../people/ImportPage.tsx';

export const EmployeeListPage = () => <PeopleListPage kind="employee" />;
export const EmployeeResignedPage = () => <PeopleListPage kind="employee" resigned />;
export const EmployeeCreatePage = () => <PersonFormPage kind="employee" />;
export const EmployeeDetailPage = () => <PersonFormPage kind="employee" />;
export const EmployeeImportInfoPage = () => <ImportPage kind="employee" step="info" />;
export const EmployeeImportAvatarPage = () => <ImportPage kind="employee" step="avatar" />;
