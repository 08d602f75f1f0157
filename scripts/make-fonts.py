"""Build assets/fonts/dplab-math.woff2: the maths glyphs the pages need, from DejaVu Sans.

Why: the Korean fonts a student's system picks first (e.g. NanumGothic) draw "P₁" so that it
reads "P,", and lack some operators. The pages' font stack starts with this small face, which
covers only the ranges below (CSS unicode-range in assets/dplab.css), so Korean and Latin text
keep the system fonts and a page downloads the file only when it shows such a character.

Run once when the ranges change (needs fonttools and brotli, not the app's dependencies):
    python -m venv /tmp/fontenv && /tmp/fontenv/bin/pip install fonttools brotli
    /tmp/fontenv/bin/python scripts/make-fonts.py [/path/to/DejaVuSans.ttf]
DejaVu Sans: Bitstream Vera licence with DejaVu's public-domain changes (assets/fonts/LICENSE).
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset

ROOT = Path(__file__).resolve().parent.parent
SOURCE = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
# Keep in step with the unicode-range of @font-face "dplab math" in assets/dplab.css.
RANGES = "U+00B1,U+00B7,U+00D7,U+0370-03FF,U+1D2C-1D6A,U+2016,U+2032-2034,U+2070-209F,"\
         "U+2190-21FF,U+2200-22FF,U+27E8-27E9"


def main() -> None:
    src = sys.argv[1] if len(sys.argv) > 1 else SOURCE
    out = ROOT / "assets" / "fonts" / "dplab-math.woff2"
    opts = subset.Options()
    opts.flavor = "woff2"
    opts.layout_features = ["*"]
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    font = subset.load_font(src, opts)
    s = subset.Subsetter(opts)
    s.populate(unicodes=subset.parse_unicodes(RANGES))
    s.subset(font)
    subset.save_font(font, str(out), opts)
    print(f"{out}: {out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
