import {
  IconBuilding,
  IconClock,
  IconDeviceDesktop,
  IconDoor,
  IconGauge,
  IconId,
  IconPhone,
  IconPhoneCall,
  IconSettings,
  IconShield,
  IconUsers,
  IconPoint,
} from '@tabler/icons-react';

const ICONS = {
  shield: IconShield,
  dashboard: IconGauge,
  building: IconBuilding,
  users: IconUsers,
  clock: IconClock,
  'id-badge': IconId,
  door: IconDoor,
  device: IconDeviceDesktop,
  phone: IconPhone,
  // Call records: a handset with its call, not a bare recording dot.
  record: IconPhoneCall,
  settings: IconSettings,
} as const;

export function MenuIcon({ name, size = 18 }: { name: string | undefined; size?: number }) {
  const Icon = (name && ICONS[name as keyof typeof ICONS]) || IconPoint;
  return <Icon size={size} stroke={1.6} />;
}
