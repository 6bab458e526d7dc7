#!/usr/bin/env python3
"""Writes difftest's token corpus to a folder, for comparing two builds of jwsinspect
(scripts/compare-builds.sh): root.der, tokens.txt (one token a line) and kinds.txt (each
line's --type). The keys are random, so the corpus differs from run to run; within one
comparison both builds read the same files.

Usage: dump_corpus.py FOLDER [--seed N]
"""
import os, random, sys
from cryptography.hazmat.primitives import serialization
import difftest


def main():
    folder = sys.argv[1]
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    pki, cases = difftest.corpus(random.Random(seed))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "root.der"), "wb") as f:
        f.write(pki.root.public_bytes(serialization.Encoding.DER))
    with open(os.path.join(folder, "tokens.txt"), "w") as tokens, open(os.path.join(folder, "kinds.txt"), "w") as kinds:
        for _, kind, token in cases:
            tokens.write(token + "\n")
            kinds.write(kind + "\n")
    print(f"dump_corpus: {len(cases)} tokens in {folder}")


if __name__ == "__main__":
    main()
