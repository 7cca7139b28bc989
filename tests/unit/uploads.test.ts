import { describe, expect, it } from 'vitest';
import { judgeImage, looksLikeZip, photoRulesOf, refusingTerminals, sniffImage } from '@passcloud/functions/domain/uploads';
import { GIF, makeJpeg, makePng } from '../support/images.ts';

describe('judgeImage', () => {
  it('accepts JPG and PNG within 640×480 and 4096×2688', () => {
    expect(judgeImage(makePng(640, 480))).toEqual({ ok: true, type: 'png', width: 640, height: 480 });
    expect(judgeImage(makeJpeg(4096, 2688))).toEqual({ ok: true, type: 'jpg', width: 4096, height: 2688 });
  });

  it('accepts portrait photos by their long and short sides', () => {
    expect(judgeImage(makeJpeg(480, 640))).toMatchObject({ ok: true });
    expect(judgeImage(makeJpeg(2688, 4096))).toMatchObject({ ok: true });
  });

  it('names the size rule broken, with the size found', () => {
    expect(judgeImage(makePng(639, 480))).toEqual({ ok: false, problem: 'upload.tooFewPixels', width: 639, height: 480 });
    expect(judgeImage(makeJpeg(4097, 2000))).toEqual({ ok: false, problem: 'upload.tooManyPixels', width: 4097, height: 2000 });
    expect(judgeImage(makeJpeg(3000, 2689))).toMatchObject({ ok: false, problem: 'upload.tooManyPixels' });
  });

  it('goes by the bytes, not the name', () => {
    expect(judgeImage(GIF)).toEqual({ ok: false, problem: 'upload.notImage' });
    expect(judgeImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toEqual({ ok: false, problem: 'upload.notImage' });
    expect(sniffImage(Buffer.from([0xff, 0xd8]))).toBeUndefined();
  });

  it('refuses a PNG signature followed by garbage', () => {
    const broken = Buffer.concat([makePng(640, 480).subarray(0, 8), Buffer.from('garbage')]);
    expect(judgeImage(broken)).toMatchObject({ ok: false, problem: 'upload.unreadableImage' });
  });

  it('recognises zip and apk packages by their header', () => {
    expect(looksLikeZip(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0]))).toBe(true);
    expect(looksLikeZip(makePng(640, 480))).toBe(false);
  });
});

describe('photoRulesOf', () => {
  const terminal = (name: string, minWidth?: number, minHeight?: number) => ({
    deviceKey: `key${name.toLowerCase().replace(/\W/g, '')}`,
    name,
    ...(minWidth ? { enrolment: { minWidth, minHeight: minHeight! } } : {}),
  });

  it('keeps SPEC’s 640 × 480 when no terminal reports more', () => {
    expect(photoRulesOf([])).toEqual({ min: { width: 640, height: 480 }, terminals: [] });
    expect(photoRulesOf([terminal('Old'), terminal('Small', 320, 240), terminal('Same', 640, 480)])).toEqual({
      min: { width: 640, height: 480 },
      terminals: [],
    });
  });

  it('raises each side to the neediest terminal, reading a portrait need by its long and short side', () => {
    const rules = photoRulesOf([terminal('Gate 10', 800, 600), terminal('Gate 2', 720, 1024), terminal('Lobby')]);
    expect(rules.min).toEqual({ width: 1024, height: 720 });
    // By name, numbers as numbers.
    expect(rules.terminals.map((t) => [t.name, t.minWidth, t.minHeight])).toEqual([
      ['Gate 2', 1024, 720],
      ['Gate 10', 800, 600],
    ]);
    expect(refusingTerminals(rules, 900, 700).map((t) => t.name)).toEqual(['Gate 2']);
    expect(refusingTerminals(rules, 600, 800).map((t) => t.name)).toEqual(['Gate 2']);
    expect(refusingTerminals(rules, 1024, 720)).toEqual([]);
  });

  it('never asks for more than the largest photo taken', () => {
    expect(photoRulesOf([terminal('Huge', 4096, 2688)]).min).toEqual({ width: 4096, height: 2688 });
    expect(judgeImage(makeJpeg(800, 600), { width: 1024, height: 720 })).toEqual({ ok: false, problem: 'upload.tooFewPixels', width: 800, height: 600 });
  });
});
