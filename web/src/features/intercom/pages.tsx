/** Intercom screens: the list (/intercom-platform/device/management), one intercom's detail, and the call records. */
export { IntercomListPage as IntercomDeviceListPage } from './IntercomListPage.tsx';
export { IntercomDetailPage as IntercomDeviceDetailPage } from './IntercomDetailPage.tsx';
export { CallRecordPage } from './CallRecordPage.tsx';
