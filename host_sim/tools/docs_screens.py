"""Copy the golden screens (tests/golden/screens, what the renderer really draws) into
docs/img at twice the size, so the docs show the real screens.

    .venv/bin/python host_sim/tools/docs_screens.py

tests/test_renderer.py checks that every docs/img/screen_*.png equals its golden.
"""

import os

from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests", "golden", "screens")
DOCS_IMG = os.path.join(ROOT, "docs", "img")
SCALE = 2


def docs_image(golden_path):
    """The docs' picture of one golden screen (SCALE times, pixels kept square)."""
    img = Image.open(golden_path).convert("1")
    return img.resize((img.width * SCALE, img.height * SCALE), Image.NEAREST)


def main():
    for name in sorted(os.listdir(GOLDEN)):
        if name.endswith(".png"):
            docs_image(os.path.join(GOLDEN, name)).save(os.path.join(DOCS_IMG, "screen_" + name))
            print("docs/img/screen_" + name)


if __name__ == "__main__":
    main()
