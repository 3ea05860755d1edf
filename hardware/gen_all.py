#!/usr/bin/env python3
"""Regenerate (or --check) every file made from hardware/pinmap.json.

example: python hardware/gen_all.py --check
"""

import argparse
import sys

import gen_case
import gen_layout
import gen_pins
import gen_schematic
import gen_wiring
import gen_wokwi

GENERATORS = (gen_pins, gen_wokwi, gen_schematic, gen_layout, gen_wiring, gen_case)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], epilog="example: python hardware/gen_all.py --check"
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if any file is out of date")
    args = parser.parse_args(argv)
    failed = 0
    for generator in GENERATORS:
        failed |= generator.main(["--check"] if args.check else [])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
