/**
 * Uploads straight to storage through a presigned link (a photo, a file to import): the API
 * answers the link, the browser PUTs the file there with its progress shown, and the API is told
 * when it is done. The file never passes through the API, which takes at most 6 MB per request.
 */

/** Where and how to PUT the file, as the API answers it. */
export interface UploadTarget {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** The file did not reach storage (network, a refused or expired link). */
export class UploadError extends Error {}

/** PUTs the file to the link with exactly the headers it was signed for; `onPercent` follows the upload. */
export function putFile(target: UploadTarget, file: Blob, onPercent: (percent: number) => void = () => undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(target.method, target.url);
    for (const [name, value] of Object.entries(target.headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onPercent(Math.floor((e.loaded / e.total) * 100));
    };
    xhr.onload = () => (xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new UploadError(String(xhr.status))));
    xhr.onerror = () => reject(new UploadError('network'));
    xhr.send(file);
  });
}
