import { createRequire } from 'node:module';

/**
 * s3rver 3.7 lists `CommonPrefixes` only for keys one level below the prefix: its directory walk
 * skips every folder beneath a common prefix before it has seen a key there, so
 * `ListObjectsV2(Prefix: 'a/', Delimiter: '/')` over `a/b/c/d.jpg` answers nothing, where S3
 * answers `a/b/`. The retention sweep walks day folders that way. This makes the stand-in answer
 * as S3 does: a delimited listing reads every key under the prefix and groups them.
 */

interface Listed {
  objects: { key: string }[];
  commonPrefixes: string[];
  isTruncated: boolean;
}
interface Options {
  delimiter?: string;
  prefix?: string;
  startAfter?: string;
  maxKeys?: number;
}
type ListObjects = (this: unknown, bucket: string, options: Options) => Promise<Listed>;

let patched = false;

export function listLikeS3(): void {
  if (patched) return;
  patched = true;
  const require = createRequire(import.meta.url);
  const store = (require('s3rver/lib/stores/filesystem') as { prototype: { listObjects: ListObjects } }).prototype;
  const original = store.listObjects;
  store.listObjects = async function (bucket, options) {
    const { delimiter = '', prefix = '' } = options;
    if (!delimiter) return original.call(this, bucket, options);
    // One answer holds every group and key: the stand-in's buckets are small.
    const all = await original.call(this, bucket, { ...options, delimiter: '', maxKeys: Infinity });
    const commonPrefixes = new Set<string>();
    const objects: Listed['objects'] = [];
    for (const object of all.objects) {
      const at = object.key.slice(prefix.length).indexOf(delimiter);
      if (at === -1) objects.push(object);
      else commonPrefixes.add(object.key.slice(0, prefix.length + at + delimiter.length));
    }
    return { objects, commonPrefixes: [...commonPrefixes].sort(), isTruncated: false };
  };
}
