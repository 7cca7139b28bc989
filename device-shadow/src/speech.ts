import type { RecordingType } from '@passcloud/functions/contract/protocol';

/**
 * Call recordings for the simulated intercoms: a WAV file (RIFF, 16-bit PCM, mono) of two voices
 * taking turns, made of syllable-like sounds (a pitched glottal source through vowel formants,
 * with noisy consonant onsets) in words, phrases and pauses over a faint line hiss. Nothing in it
 * is real speech, and the same seed always gives the same bytes. Any player (a browser's
 * `<audio>`, Web Audio's decodeAudioData) plays it.
 */

export const WAV_CONTENT_TYPE = 'audio/wav' satisfies RecordingType;
export const WAV_HEADER_BYTES = 44;
export type SampleRate = 8000 | 16000;

export interface SpeechOptions {
  /** 8 kHz (telephone quality, the default) or 16 kHz (wideband). */
  sampleRate?: SampleRate;
  /** The same seed gives the same recording. */
  seed?: number | string;
}

/** A recording of `seconds` (rounded to whole samples) of speech-like sound. Its size is 44 + 2 × seconds × sampleRate bytes. */
export function speechWav(seconds: number, options: SpeechOptions = {}): Buffer {
  const sampleRate = options.sampleRate ?? 8000;
  return wavFile(speechSamples(seconds, sampleRate, seedOf(options.seed ?? 1)), sampleRate);
}

/** The size in bytes of the WAV file speechWav makes for `seconds`. */
export const speechWavSize = (seconds: number, sampleRate: SampleRate = 8000): number => WAV_HEADER_BYTES + 2 * sampleCount(seconds, sampleRate);

const sampleCount = (seconds: number, sampleRate: number): number => Math.max(0, Math.round(seconds * sampleRate));

/** 16-bit mono PCM samples in a canonical 44-byte RIFF/WAVE header. */
export function wavFile(samples: Int16Array, sampleRate: number): Buffer {
  const dataBytes = samples.length * 2;
  const out = Buffer.alloc(WAV_HEADER_BYTES + dataBytes);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28); // bytes per second
  out.writeUInt16LE(2, 32); // bytes per sample frame
  out.writeUInt16LE(16, 34); // bits per sample
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i]!, WAV_HEADER_BYTES + 2 * i);
  return out;
}

export interface WavInfo {
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Sample frames in the data chunk. */
  samples: number;
  seconds: number;
  /** Where the data chunk's samples begin. */
  dataOffset: number;
}

/** Reads a WAV file's format and length; undefined when it is not a RIFF/WAVE file with a `fmt ` and a `data` chunk. */
export function readWav(file: Buffer): WavInfo | undefined {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') return undefined;
  let format: Pick<WavInfo, 'format' | 'channels' | 'sampleRate' | 'bitsPerSample'> | undefined;
  let at = 12;
  while (at + 8 <= file.length) {
    const id = file.toString('ascii', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    if (id === 'fmt ' && size >= 16 && at + 24 <= file.length) {
      format = {
        format: file.readUInt16LE(at + 8),
        channels: file.readUInt16LE(at + 10),
        sampleRate: file.readUInt32LE(at + 12),
        bitsPerSample: file.readUInt16LE(at + 22),
      };
    } else if (id === 'data' && format) {
      const frameBytes = (format.channels * format.bitsPerSample) / 8;
      if (!frameBytes || at + 8 + size > file.length) return undefined;
      const samples = size / frameBytes;
      return { ...format, samples, seconds: samples / format.sampleRate, dataOffset: at + 8 };
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}

/** A small, fast generator of numbers in [0, 1): the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A text seed as a number (FNV-1a). */
export function seedOf(seed: number | string): number {
  if (typeof seed === 'number') return seed >>> 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Vowel formants F1, F2, F3 in Hz (an adult voice). */
const VOWELS: readonly [number, number, number][] = [
  [730, 1090, 2440],
  [530, 1840, 2480],
  [270, 2290, 3010],
  [570, 840, 2410],
  [300, 870, 2240],
  [660, 1720, 2410],
  [490, 1350, 1690],
];
/** Two talkers: the pitch of their voice (Hz) and how their formants sit against the table's. */
const VOICES = [
  { pitch: 118, formants: 1 },
  { pitch: 205, formants: 1.14 },
] as const;

/**
 * A two-pole resonator (Klatt's): unity gain at 0 Hz, a peak at `frequency` of `bandwidth` Hz.
 * Coefficients are set per sample, so formants can glide.
 */
class Resonator {
  private y1 = 0;
  private y2 = 0;

  constructor(private readonly sampleRate: number) {}

  step(x: number, frequency: number, bandwidth: number): number {
    const f = Math.min(frequency, this.sampleRate * 0.45);
    const c = -Math.exp((-2 * Math.PI * bandwidth) / this.sampleRate);
    const b = 2 * Math.exp((-Math.PI * bandwidth) / this.sampleRate) * Math.cos((2 * Math.PI * f) / this.sampleRate);
    const y = (1 - b - c) * x + b * this.y1 + c * this.y2;
    this.y2 = this.y1;
    this.y1 = y;
    return y;
  }
}

/** A raised-cosine attack and release over a segment of `length` samples. */
function envelope(i: number, length: number, attack: number, release: number): number {
  if (i < attack) return 0.5 - 0.5 * Math.cos((Math.PI * i) / attack);
  const left = length - i;
  if (left < release) return 0.5 - 0.5 * Math.cos((Math.PI * Math.max(0, left)) / release);
  return 1;
}

/** Adds `sound` to `out` at `at`, scaled to the RMS `level`. */
function mixIn(out: Float64Array, at: number, sound: Float64Array, level: number): void {
  let energy = 0;
  for (const x of sound) energy += x * x;
  const rms = Math.sqrt(energy / Math.max(1, sound.length));
  if (rms === 0) return;
  for (let i = 0; i < sound.length && at + i < out.length; i++) out[at + i]! += (sound[i]! * level) / rms;
}

/** Hiss with its low end taken away (a first difference), shaped by a resonance at `centre`; `shape` gives each sample's envelope. */
function hiss(length: number, sampleRate: number, random: () => number, centre: number, shape: (i: number) => number): Float64Array {
  const sound = new Float64Array(length);
  const filter = new Resonator(sampleRate);
  let last = 0;
  for (let i = 0; i < length; i++) {
    const white = random() * 2 - 1;
    sound[i] = filter.step(white - last, centre, 1400) * shape(i);
    last = white;
  }
  return sound;
}

/** A voiced vowel: a glottal source at `pitch` (rising with stress, falling to the end) through three formants gliding into place. */
function vowel(length: number, sampleRate: number, random: () => number, voice: (typeof VOICES)[number], pitch: number, stress: number): Float64Array {
  const sound = new Float64Array(length);
  const ms = (n: number) => Math.round((n * sampleRate) / 1000);
  const target = VOWELS[Math.floor(random() * VOWELS.length)]!.map((f) => f * voice.formants * (0.95 + random() * 0.1));
  // Formants glide in from a consonant locus, as the tongue moves.
  const from = target.map((f, k) => f * (k === 0 ? 0.7 : 0.85 + random() * 0.3));
  const glide = ms(45);
  const filters = [new Resonator(sampleRate), new Resonator(sampleRate), new Resonator(sampleRate)];
  const bandwidths = [80, 110, 160];
  const vibrato = 4.5 + random() * 1.5;
  let phase = random();
  let previous = 0;
  for (let i = 0; i < length; i++) {
    const t = i / sampleRate;
    const progress = i / length;
    const f0 = pitch * (1 + 0.12 * stress * Math.sin(Math.PI * progress) - 0.06 * progress) * (1 + 0.01 * Math.sin(2 * Math.PI * vibrato * t));
    phase += f0 / sampleRate;
    if (phase >= 1) phase -= 1;
    // Rosenberg's glottal flow; its derivative stands for the flow through the lips.
    const flow = phase < 0.4 ? 0.5 * (1 - Math.cos((Math.PI * phase) / 0.4)) : phase < 0.56 ? Math.cos((Math.PI * (phase - 0.4)) / 0.32) : 0;
    let x = flow - previous + 0.002 * (random() * 2 - 1);
    previous = flow;
    const mix = Math.min(1, i / glide);
    for (let k = 0; k < 3; k++) x = filters[k]!.step(x, from[k]! + (target[k]! - from[k]!) * mix, bandwidths[k]!);
    sound[i] = x * envelope(i, length, ms(18), ms(45));
  }
  return sound;
}

/** Adds one syllable at `start`: maybe a consonant (a fricative, or a closure and a burst), then a vowel. Answers where it ends. */
function syllable(
  out: Float64Array,
  start: number,
  sampleRate: number,
  random: () => number,
  voice: (typeof VOICES)[number],
  pitch: number,
  stress: number,
): number {
  const ms = (n: number) => Math.round((n * sampleRate) / 1000);
  const level = 0.1 * (0.7 + 0.6 * stress);
  const high = (hz: number) => Math.min(hz, sampleRate * 0.42);
  let at = start;
  const onset = random();
  if (onset < 0.35) {
    // s, sh, f
    const length = ms(40 + random() * 60);
    const sound = hiss(length, sampleRate, random, high(2600 + random() * 3000), (i) => envelope(i, length, ms(12), ms(15)));
    mixIn(out, at, sound, level * 0.25);
    at += length;
  } else if (onset < 0.65) {
    // p, t, k
    at += ms(20 + random() * 25);
    const length = ms(10 + random() * 12);
    const sound = hiss(length, sampleRate, random, high(1500 + random() * 2500), (i) => Math.exp((-3 * i) / length));
    mixIn(out, at, sound, level * 0.35);
    at += length;
  }
  const sound = vowel(ms(110 + random() * 170), sampleRate, random, voice, pitch, stress);
  mixIn(out, at, sound, level);
  return at + sound.length;
}

/** Speech-like samples: two voices taking turns in phrases of words of syllables, with pauses. */
export function speechSamples(seconds: number, sampleRate: SampleRate, seed: number): Int16Array {
  const total = sampleCount(seconds, sampleRate);
  const out = new Float64Array(total);
  const random = seededRandom(seed);
  const ms = (n: number) => Math.round((n * sampleRate) / 1000);
  let at = ms(150 + random() * 250);
  let speaker = Math.floor(random() * 2);
  while (at < total) {
    const voice = VOICES[speaker]!;
    const phrases = 1 + Math.floor(random() * 2);
    for (let p = 0; p < phrases && at < total; p++) {
      const words = 2 + Math.floor(random() * 5);
      // Each phrase starts a little high and falls.
      const base = voice.pitch * (0.95 + random() * 0.15);
      for (let w = 0; w < words && at < total; w++) {
        const syllables = 1 + Math.floor(random() * 3);
        const stressed = Math.floor(random() * syllables);
        for (let s = 0; s < syllables && at < total; s++) {
          const pitch = base * (1 - (0.15 * w) / words);
          at = syllable(out, at, sampleRate, random, voice, pitch, s === stressed ? 1 : 0.3);
          at += ms(random() * 30);
        }
        at += ms(60 + random() * 110);
      }
      at += ms(220 + random() * 300);
    }
    at += ms(300 + random() * 500);
    speaker = 1 - speaker;
  }
  let peak = 0;
  for (const x of out) peak = Math.max(peak, Math.abs(x));
  const gain = peak > 0 ? 0.6 / peak : 0;
  const samples = new Int16Array(total);
  const hiss = new Resonator(sampleRate);
  const fade = Math.min(ms(30), Math.floor(total / 2));
  for (let i = 0; i < total; i++) {
    const line = 0.004 * hiss.step(random() * 2 - 1, 1000, 3000);
    const edge = fade > 0 ? Math.min(1, i / fade, (total - 1 - i) / fade) : 1;
    samples[i] = Math.round(Math.max(-1, Math.min(1, (out[i]! * gain + line) * edge)) * 32767);
  }
  return samples;
}
