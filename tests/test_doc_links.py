"""Every document stands inside the repository: its relative links resolve to files here,
and none names a machine path or a folder beside the repository."""

import glob
import os
import re

import pytest
from conftest import ROOT

DOCS = sorted(
    [os.path.join(ROOT, "README.md")]
    + glob.glob(os.path.join(ROOT, "docs", "*.md"))
    + glob.glob(os.path.join(ROOT, "hardware", "**", "*.md"), recursive=True)
)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _release_page(doc):
    """The relative link from ``doc`` to the release page where the repository is hosted
    (GitHub shows a file at ``OWNER/REPO/blob/BRANCH/PATH``: the releases are at
    ``OWNER/REPO/releases``)."""
    depth = len(os.path.relpath(os.path.dirname(doc), ROOT).split(os.sep))
    if os.path.dirname(doc) == ROOT:
        depth = 0
    return "../" * (depth + 2) + "releases/latest"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: os.path.relpath(p, ROOT))
def test_links_stay_inside_the_repository(doc):
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor
        if target == _release_page(doc):
            continue  # the hosting's release page, as its web view resolves it (issue 31.8)
        path = os.path.normpath(os.path.join(os.path.dirname(doc), target.split("#")[0]))
        assert path.startswith(ROOT + os.sep), f"{target} leaves the repository"
        assert os.path.exists(path), f"{target} does not exist"
    outside = (".." + "/shared", "/" + "work/")  # (spelt so: this file names neither)
    assert not any(word in text for word in outside)


def test_the_bom_and_the_build_guide_name_the_pin_maps_panel_address():
    import json

    with open(os.path.join(ROOT, "hardware", "pinmap.json")) as f:
        addresses = {panel["i2c"]["address"] for panel in json.load(f)["panels"]}
    assert len(addresses) == 1
    address = "0x%X" % addresses.pop()
    with open(os.path.join(ROOT, "hardware", "bom.csv"), encoding="utf-8") as f:
        panel_row = next(line for line in f if line.startswith('"DS1,DS2"'))
    assert f"address {address}" in panel_row
    with open(os.path.join(ROOT, "hardware", "BUILD.md"), encoding="utf-8") as f:
        assert f"address **{address}**" in f.read()


LIB_PACKAGES = ("lib/speedduo",) + tuple(
    "lib/speedduo/" + name
    for name in sorted(os.listdir(os.path.join(ROOT, "lib", "speedduo")))
    if os.path.isfile(os.path.join(ROOT, "lib", "speedduo", name, "__init__.py"))
)


def test_the_readme_layout_names_every_module():
    """Every board module, simulator module, shim and tool is in the README's layout
    (issue 21: the table left out 16 of lib/speedduo's files)."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    layout = readme[
        readme.index("## Layout") : readme.index("\n## ", readme.index("## Layout") + 3)
    ]
    missing = []
    for folder in (*LIB_PACKAGES, "host_sim", "host_sim/shims", "firmware", "hardware"):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".py") and name != "__init__.py" and f"`{name}`" not in layout:
                missing.append(f"{folder}/{name}")
    assert missing == []
