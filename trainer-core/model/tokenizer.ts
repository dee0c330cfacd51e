/**
 * Word-level tokenizer fitted to the environments' own text, with a byte fallback.
 *
 * Text is first split at special tokens, then into pieces: runs of letters (with one optional
 * leading space, GPT-2 style, so " left" is one token), single digits (so arithmetic stays
 * compositional), single symbols (with an optional leading space) and whitespace runs. A piece in
 * the fitted vocabulary is one token; any other piece becomes its UTF-8 bytes, one token each.
 * Every string therefore encodes, and decode(encode(s)) === s for any s.
 *
 * Id layout: specials first (0 = pad, 1 = end-of-turn, then the rest), then the 256 byte tokens,
 * then the fitted pieces in order of frequency.
 */
import type { Tokenizer } from '../rollout/tokenizer';

export const PAD_TOKEN = '<|pad|>';
export const END_OF_TURN_TOKEN = '<|eot|>';
export const DEFAULT_SPECIAL_TOKENS: readonly string[] = [
  PAD_TOKEN,
  END_OF_TURN_TOKEN,
  '<|system|>',
  '<|user|>',
  '<|assistant|>',
  '<think>',
  '</think>',
  '<answer>',
  '</answer>',
];

export interface FitTokenizerOptions {
  /** Upper bound on the whole vocabulary (specials + 256 bytes + fitted pieces). Default 1024. */
  maxVocab?: number;
  /** A piece joins the vocabulary only if it occurs at least this often. Default 2. */
  minCount?: number;
  /** Extra special tokens appended after the defaults (turn markers of a custom template). */
  extraSpecialTokens?: string[];
}

export interface TokenizerJSON {
  type: 'turnlab-word-byte';
  /** 2 splits runs of capitals into single letters; version 1 files split words differently. */
  version: 2;
  specialTokens: string[];
  pieces: string[];
}

const BYTE_COUNT = 256;
// A capital starts a word only when lower-case letters follow ("Down", " Target"); any other
// capital is a piece of its own, because grid renders use capitals as cells ("_OOG", "#PX_") and
// a merged "OOG" would hide which column each cell is in.
const PIECE_PATTERN = / ?\p{Lu}?[^\P{L}\p{Lu}]+| ?\p{Lu}| ?\p{M}+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]|\s+(?!\S)|\s+/gu;
const utf8 = new TextEncoder();

export class WordByteTokenizer implements Tokenizer {
  readonly padId = 0;
  readonly endOfTurnId = 1;
  readonly vocabSize: number;
  readonly specialTokens: readonly string[];
  readonly pieces: readonly string[];
  private readonly pieceIds = new Map<string, number>();
  private readonly specialIds = new Map<string, number>();
  private readonly specialPattern: RegExp;
  private readonly byteOffset: number;
  private readonly pieceOffset: number;
  private readonly tokenBytes: Uint8Array[];
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });

  constructor(specialTokens: readonly string[], pieces: readonly string[]) {
    if (specialTokens[0] !== PAD_TOKEN || specialTokens[1] !== END_OF_TURN_TOKEN) {
      throw new Error(`Tokenizer special tokens must start with ${PAD_TOKEN}, ${END_OF_TURN_TOKEN}`);
    }
    if (new Set(specialTokens).size !== specialTokens.length) throw new Error('Tokenizer special tokens repeat');
    this.specialTokens = [...specialTokens];
    this.pieces = [...pieces];
    this.byteOffset = specialTokens.length;
    this.pieceOffset = this.byteOffset + BYTE_COUNT;
    this.vocabSize = this.pieceOffset + pieces.length;
    specialTokens.forEach((token, i) => this.specialIds.set(token, i));
    pieces.forEach((piece, i) => {
      if (this.pieceIds.has(piece)) throw new Error(`Tokenizer piece ${JSON.stringify(piece)} repeats`);
      this.pieceIds.set(piece, this.pieceOffset + i);
    });
    this.specialPattern = specialSplitter(specialTokens);
    this.tokenBytes = [
      ...specialTokens.map((token) => utf8.encode(token)),
      ...Array.from({ length: BYTE_COUNT }, (_, b) => Uint8Array.of(b)),
      ...pieces.map((piece) => utf8.encode(piece)),
    ];
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    const parts = text.split(this.specialPattern);
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p];
      // split() with one capture group alternates text, special, text, ...
      if (p % 2 === 1) {
        ids.push(this.specialIds.get(part)!);
        continue;
      }
      for (const piece of part.match(PIECE_PATTERN) ?? []) {
        const id = this.pieceIds.get(piece);
        if (id !== undefined) {
          ids.push(id);
          continue;
        }
        for (const byte of utf8.encode(piece)) ids.push(this.byteOffset + byte);
      }
    }
    return ids;
  }

  /** Concatenates each token's bytes; specials decode to their own text (end-of-turn included). */
  decode(ids: readonly number[]): string {
    let length = 0;
    for (const id of ids) length += this.bytesOf(id).length;
    const out = new Uint8Array(length);
    let at = 0;
    for (const id of ids) {
      const bytes = this.bytesOf(id);
      out.set(bytes, at);
      at += bytes.length;
    }
    return this.decoder.decode(out);
  }

  /** Readable form of one token for displays: specials and pieces as text, bytes as <0xNN>. */
  tokenText(id: number): string {
    if (id >= this.byteOffset && id < this.pieceOffset) {
      return `<0x${(id - this.byteOffset).toString(16).toUpperCase().padStart(2, '0')}>`;
    }
    return id < this.byteOffset ? this.specialTokens[id] : this.pieces[id - this.pieceOffset];
  }

  isSpecial(id: number): boolean {
    return id >= 0 && id < this.byteOffset;
  }

  toJSON(): TokenizerJSON {
    return { type: 'turnlab-word-byte', version: 2, specialTokens: [...this.specialTokens], pieces: [...this.pieces] };
  }

  static fromJSON(json: unknown): WordByteTokenizer {
    const data = json as (Omit<Partial<TokenizerJSON>, 'version'> & { version?: number }) | null;
    if (data?.type === 'turnlab-word-byte' && data.version === 1) {
      throw new Error('This tokenizer comes from an older TurnLab that split words differently (version 1); its model would read text wrongly. Train a new run.');
    }
    if (!data || data.type !== 'turnlab-word-byte' || data.version !== 2) {
      throw new Error('Not a TurnLab tokenizer file: expected {"type": "turnlab-word-byte", "version": 2, ...}');
    }
    if (!isStringArray(data.specialTokens) || !isStringArray(data.pieces)) {
      throw new Error('Tokenizer file is damaged: specialTokens and pieces must be lists of strings');
    }
    return new WordByteTokenizer(data.specialTokens, data.pieces);
  }

  private bytesOf(id: number): Uint8Array {
    const bytes = this.tokenBytes[id];
    if (!bytes || !Number.isInteger(id)) throw new RangeError(`Token id ${id} is outside the vocabulary (0..${this.vocabSize - 1})`);
    return bytes;
  }
}

/** Fits a vocabulary to the given texts (env instructions, renders, action names, templates). */
export function fitTokenizer(corpus: Iterable<string>, options: FitTokenizerOptions = {}): WordByteTokenizer {
  const maxVocab = options.maxVocab ?? 1024;
  const minCount = options.minCount ?? 2;
  const specialTokens = [...DEFAULT_SPECIAL_TOKENS];
  for (const token of options.extraSpecialTokens ?? []) {
    if (!token) throw new Error('Special tokens must be non-empty strings');
    if (!specialTokens.includes(token)) specialTokens.push(token);
  }
  const room = maxVocab - specialTokens.length - BYTE_COUNT;
  if (room < 0) {
    throw new Error(`maxVocab ${maxVocab} is too small: ${specialTokens.length} specials + ${BYTE_COUNT} bytes need at least ${specialTokens.length + BYTE_COUNT}`);
  }
  const splitter = specialSplitter(specialTokens);
  const counts = new Map<string, number>();
  for (const text of corpus) {
    const parts = text.split(splitter);
    for (let p = 0; p < parts.length; p += 2) {
      for (const piece of parts[p].match(PIECE_PATTERN) ?? []) {
        // A one-byte piece is already a byte token.
        if (utf8.encode(piece).length > 1) counts.set(piece, (counts.get(piece) ?? 0) + 1);
      }
    }
  }
  const pieces = [...counts.entries()]
    .filter(([, count]) => count >= minCount)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, room)
    .map(([piece]) => piece);
  return new WordByteTokenizer(specialTokens, pieces);
}

/** A pattern with one capture group, so split() keeps the specials at odd indices. */
function specialSplitter(specialTokens: readonly string[]): RegExp {
  // Longest first so a special that is a prefix of another never shadows it.
  const alternatives = [...specialTokens].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(`(${alternatives.join('|')})`, 'u');
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
