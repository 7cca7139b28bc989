/** Face-terminal screens: the list (/pass-platform/device/management) and one device's detail. */
export { DeviceListPage } from './DeviceListPage.tsx';
export { DeviceDetailPage } from './DeviceDetailPage.tsx';
