#!/usr/bin/env python3
"""Counts the words a reader reads on each page outside code blocks, tables and HTML comments:
headings, captions and a figure's alt text count, a link counts by its text (a generated figure's
value counts, its marker does not); a word is anything with a letter or digit in it. The lesson
pages aim at about 700 words each; the whole lesson layer (the chapters, the overview and the
README) at about 18,000.

    python3 docs/tools/prose_words.py                 # every lesson page, the overview, the README
    python3 docs/tools/prose_words.py docs/evidence/*.md   # any pages named
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def prose_words(text: str) -> int:
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link or a figure: its text
    text = re.sub(r"</?[A-Za-z][^<>\n]*>", "", text)  # an HTML tag, not a template argument list
    words = 0
    for line in text.splitlines():
        if line.strip().startswith("|"):
            continue
        words += len(re.findall(r"\S*[A-Za-z0-9]\S*", line))
    return words


def main() -> int:
    named = [pathlib.Path(a) for a in sys.argv[1:]]
    pages = named or (sorted((ROOT / "docs").glob("[0-9][0-9]_*.md")) + [ROOT / "README.md"])
    total = 0
    for page in pages:
        count = prose_words(page.read_text())
        total += count
        print(f"{count:6d}  {page.resolve().relative_to(ROOT)}")
    print(f"{total:6d}  in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
