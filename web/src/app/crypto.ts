/** RSA-OAEP (SHA-256) with the server's key, in 190-byte blocks joined by `:` (one block for most texts). */
export async function encryptText(publicKeyBase64: string, text: string): Promise<string> {
  const der = Uint8Array.from(atob(publicKeyBase64), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey('spki', der, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
  const bytes = new TextEncoder().encode(text);
  const blocks: string[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 190) {
    const cipher = new Uint8Array(await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, bytes.slice(i, i + 190)));
    let binary = '';
    for (const b of cipher) binary += String.fromCharCode(b);
    blocks.push(btoa(binary));
  }
  return blocks.join(':');
}
