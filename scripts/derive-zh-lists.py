#!/usr/bin/env python3
"""Derive assets/texts/zh_chars.txt and zh_words.txt from jieba's dict.txt.

jieba 0.42.1 (PyPI, MIT licence) ships jieba/dict.txt: one word per line with a
frequency count and a part-of-speech tag. From it:

- zh_chars.txt: the 1,500 most frequent 字 (CJK Unified Ideographs), one per line,
  most frequent first. A 字's frequency is the sum of the frequencies of the words
  it occurs in (once per occurrence).
- zh_words.txt: the 8,000 most frequent words of one to four 字, made only of those
  1,500 字, one per line, most frequent first (the line number is the rank). Names of
  people, places, organisations and other proper nouns (tags nr*, ns, nt, nz) are
  left out.

Usage: python3 scripts/derive-zh-lists.py [path/to/dict.txt]
Without a path, the installed jieba package's dict.txt is read
(pip install jieba==0.42.1, or pip download jieba==0.42.1 and unpack it).
Ties are broken by the text itself, so the output is the same on every machine.
"""

import os
import sys
from collections import Counter

CHAR_COUNT = 1500
WORD_COUNT = 8000
MAX_WORD_CHARS = 4
PROPER_NOUN_TAGS = ("nr", "ns", "nt", "nz")
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "assets", "texts")


def is_hanzi(c):
    return "\u4e00" <= c <= "\u9fff"


def dict_path():
    if len(sys.argv) > 1:
        return sys.argv[1]
    import jieba

    return os.path.join(os.path.dirname(jieba.__file__), "dict.txt")


def main():
    entries = []
    with open(dict_path(), encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) != 3:
                continue
            word, freq, tag = parts[0], int(parts[1]), parts[2]
            entries.append((word, freq, tag))

    char_freq = Counter()
    for word, freq, _ in entries:
        for c in word:
            if is_hanzi(c):
                char_freq[c] += freq
    chars = sorted(char_freq, key=lambda c: (-char_freq[c], c))[:CHAR_COUNT]
    allowed = set(chars)

    words = [
        (word, freq)
        for word, freq, tag in entries
        if 1 <= len(word) <= MAX_WORD_CHARS
        and all(c in allowed for c in word)
        and not tag.startswith(PROPER_NOUN_TAGS)
    ]
    best = {}
    for word, freq in words:
        best[word] = max(freq, best.get(word, 0))
    ranked = sorted(best, key=lambda w: (-best[w], w))[:WORD_COUNT]

    with open(os.path.join(OUT, "zh_chars.txt"), "w", encoding="utf-8") as f:
        f.write("".join(c + "\n" for c in chars))
    with open(os.path.join(OUT, "zh_words.txt"), "w", encoding="utf-8") as f:
        f.write("".join(w + "\n" for w in ranked))


if __name__ == "__main__":
    main()
