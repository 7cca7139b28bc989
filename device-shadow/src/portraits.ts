import { createHash } from 'node:crypto';
import jpeg from 'jpeg-js';

/**
 * Drawn portraits for demos and tests: a face of simple shapes whose colours and proportions
 * follow from a seed (a name), so each person looks different and always the same, and no photo
 * of a real person is needed. `variant` moves and lights the same face a little, as a terminal's
 * camera sees it at each pass.
 */
type Rgb = [number, number, number];

const SKIN: Rgb[] = [
  [255, 224, 196],
  [241, 194, 125],
  [224, 172, 105],
  [198, 134, 66],
  [141, 85, 36],
  [92, 58, 33],
];
const HAIR: Rgb[] = [
  [20, 20, 20],
  [70, 45, 25],
  [120, 80, 40],
  [200, 160, 90],
  [160, 60, 30],
  [130, 130, 130],
];

const EYE: Rgb = [30, 30, 40];
const MOUTH: Rgb = [150, 40, 50];

export function portrait(seed: string, width = 800, height = 600, variant = 0): Buffer {
  const h = createHash('sha256').update(seed).digest();
  const v = createHash('sha256').update(`${seed}#${variant}`).digest();
  const pick = <T>(list: T[], byte: number): T => list[byte % list.length]!;
  const skin = pick(SKIN, h[0]!);
  const hair = pick(HAIR, h[1]!);
  const background: Rgb = [150 + (h[2]! % 100), 150 + (h[3]! % 100), 150 + (h[4]! % 100)];
  const shirt: Rgb = [h[5]! % 200, h[6]! % 200, h[7]! % 200];
  const light = variant ? 0.85 + (v[0]! % 30) / 100 : 1;
  const shift = variant ? ((v[1]! % 40) - 20) / 400 : 0;

  const s = Math.min(width, height);
  const cx = width / 2 + shift * width;
  const cy = height * 0.45;
  const faceW = s * (0.2 + (h[8]! % 20) / 400);
  const faceH = s * (0.27 + (h[9]! % 20) / 400);
  const hairH = faceH * (0.35 + (h[10]! % 30) / 100);
  const eyeY = cy - faceH * 0.12;
  const eyeDx = faceW * 0.42;
  const eyeR = s * (0.018 + (h[11]! % 10) / 1000);
  const mouthY = cy + faceH * 0.45;
  const mouthW = faceW * (0.35 + (h[12]! % 20) / 100);
  const smile = (h[13]! % 3) * 0.5 + 0.3;

  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let c: Rgb = background;
      const dx = (x - cx) / faceW;
      const dy = (y - cy) / faceH;
      const inFace = dx * dx + dy * dy <= 1;
      // Shoulders: a wide ellipse under the face.
      const sx = (x - cx) / (faceW * 2.4);
      const sy = (y - (cy + faceH * 2.1)) / (faceH * 1.1);
      if (sx * sx + sy * sy <= 1) c = shirt;
      // Neck.
      if (Math.abs(x - cx) < faceW * 0.35 && y > cy && y < cy + faceH * 1.3) c = skin;
      if (inFace) c = skin;
      // Hair: the top of a slightly larger ellipse.
      const hx = (x - cx) / (faceW * 1.08);
      const hy = (y - (cy - faceH * 0.15)) / (faceH * 1.0);
      if (hx * hx + hy * hy <= 1 && y < cy - faceH + hairH) c = hair;
      // Eyes and mouth.
      const ey = (y - eyeY) * (y - eyeY);
      if ((x - cx + eyeDx) ** 2 + ey <= eyeR * eyeR || (x - cx - eyeDx) ** 2 + ey <= eyeR * eyeR) c = EYE;
      const mx = (x - cx) / mouthW;
      if (Math.abs(mx) <= 1 && Math.abs(y - (mouthY - smile * (1 - mx * mx) * faceH * 0.08)) < s * 0.006) c = MOUTH;
      const i = (y * width + x) * 4;
      data[i] = Math.min(255, c[0] * light);
      data[i + 1] = Math.min(255, c[1] * light);
      data[i + 2] = Math.min(255, c[2] * light);
      data[i + 3] = 255;
    }
  }
  return jpeg.encode({ data, width, height }, 82).data;
}
