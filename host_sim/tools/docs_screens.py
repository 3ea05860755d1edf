"""Copy the golden screens (tests/golden/screens, what the renderer really draws) into
docs/img at twice the size, so the docs show the real screens.

    .venv/bin/python host_sim/tools/docs_screens.py            # every game
    .venv/bin/python host_sim/tools/docs_screens.py spit       # only the goldens named spit_*

Classic Speed's goldens come from tests/test_renderer.py, Spit's (``spit_*``) and
California Speed's (``california_*``) from tests/test_spit_view.py and
tests/test_california_view.py; docs/screens.md shows each game's. A golden that no
longer exists has its picture removed. tests/test_renderer.py checks that every
docs/img/screen_*.png equals its golden.
"""

import os
import sys

from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests", "golden", "screens")
DOCS_IMG = os.path.join(ROOT, "docs", "img")
SCALE = 2


def docs_image(golden_path):
    """The docs' picture of one golden screen (SCALE times, pixels kept square)."""
    img = Image.open(golden_path).convert("1")
    return img.resize((img.width * SCALE, img.height * SCALE), Image.NEAREST)


def main(argv):
    prefix = argv[0] + "_" if argv else ""
    goldens = [n for n in sorted(os.listdir(GOLDEN)) if n.endswith(".png")]
    if prefix and not any(n.startswith(prefix) for n in goldens):
        print("docs_screens: no golden screen named %s*" % prefix, file=sys.stderr)
        return 2
    for name in goldens:
        if name.startswith(prefix):
            docs_image(os.path.join(GOLDEN, name)).save(os.path.join(DOCS_IMG, "screen_" + name))
            print("docs/img/screen_" + name)
    for name in sorted(os.listdir(DOCS_IMG)):
        golden = name[len("screen_") :]
        if name.startswith("screen_" + prefix) and golden not in goldens:
            os.remove(os.path.join(DOCS_IMG, name))
            print("removed docs/img/" + name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
