import jpeg from 'jpeg-js';

/**
 * The terminal's camera, simulated: the frame kept with a pass record (./records.ts, ./agent.ts
 * `see`) and the photo a `capturePhoto` command uploads (./commands.ts).
 */

/** A 640x480 camera frame: a gradient with a moving band, so every capture differs. */
export function capture(width = 640, height = 480): Buffer {
  const data = Buffer.alloc(width * height * 4);
  const band = Date.now() % width;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const lit = Math.abs(x - band) < 20 ? 80 : 0;
      data[i] = Math.min(255, (x * 255) / width + lit);
      data[i + 1] = Math.min(255, (y * 255) / height + lit);
      data[i + 2] = 160;
      data[i + 3] = 255;
    }
  }
  return jpeg.encode({ data, width, height }, 70).data;
}
