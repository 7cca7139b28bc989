import { useEffect, useState } from 'react';

interface Terms {
  title: string;
}

/** The console's front page until the console screens are built: it shows that the API answers. */
export function App() {
  const [status, setStatus] = useState<'checking' | 'up' | 'down'>('checking');
  useEffect(() => {
    fetch('/v1/systems/terms')
      .then((res) => res.json() as Promise<{ code: number; data: Terms }>)
      .then((body) => setStatus(body.code === 200 ? 'up' : 'down'))
      .catch(() => setStatus('down'));
  }, []);
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '10vh auto', padding: 24, color: '#1f2937' }}>
      <h1 style={{ fontSize: 28, marginBottom: 8 }}>Pass Cloud</h1>
      <p style={{ color: '#4b5563' }}>Face-recognition access control, temperature measurement and intercom console · version 3.2.0</p>
      <p role="status">API: {status === 'checking' ? 'checking…' : status === 'up' ? 'online' : 'not reachable'}</p>
    </main>
  );
}
