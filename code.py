"""Speed Duo: CircuitPython runs this at power-on. Everything is in lib/speedduo."""

from speedduo.board_io import main

main()
