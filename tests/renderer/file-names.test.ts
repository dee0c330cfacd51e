// File and folder names made from run and metric names (preload/file-names.ts).
import { describe, expect, it } from 'vitest';
import { attachmentHeader, fileNamePart } from '../../preload/file-names';

describe('file names from run names', () => {
  it('keeps letters and digits of any script, and makes every other run of characters one underscore', () => {
    expect(fileNamePart('fl-small s3', 60)).toBe('fl-small_s3');
    expect(fileNamePart('réglage 実験/2', 60)).toBe('réglage_実験_2');
    expect(fileNamePart('a/../b\\c:d*e?"<>|', 60)).toBe('a_.._b_c_d_e_');
    // NFD (as macOS writes é) and NFC give the same name.
    expect(fileNamePart('re\u0301glage', 60)).toBe('réglage');
  });

  it('cuts at a character, within the bytes a file system counts', () => {
    expect(fileNamePart('実験'.repeat(60), 100)).toBe('実験'.repeat(16) + '実');
    expect(new TextEncoder().encode(fileNamePart('実験'.repeat(60), 100)).length).toBe(99);
    // Letters outside the Basic Multilingual Plane are 4 bytes and two UTF-16 units: never split.
    expect(fileNamePart('𝒜'.repeat(10), 10)).toBe('𝒜𝒜');
    // A symbol is no letter: 🎉 is an underscore like any punctuation.
    expect(fileNamePart('run 🎉', 60)).toBe('run_');
  });

  it('names a download in ASCII for old clients and exactly for browsers', () => {
    expect(attachmentHeader('turnlab-runs-run-1-x.csv')).toBe('attachment; filename="turnlab-runs-run-1-x.csv"');
    const header = attachmentHeader("turnlab-runs-run-1-réglage_実験'(1).csv");
    expect(header).toBe(`attachment; filename="turnlab-runs-run-1-r_glage_____1_.csv"; filename*=UTF-8''turnlab-runs-run-1-r%C3%A9glage_%E5%AE%9F%E9%A8%93%27%281%29.csv`);
    // Only ASCII in the header, as Node's HTTP server requires.
    expect(/^[\x20-\x7e]*$/.test(header)).toBe(true);
    expect(decodeURIComponent(header.split("UTF-8''")[1])).toBe("turnlab-runs-run-1-réglage_実験'(1).csv");
  });
});
