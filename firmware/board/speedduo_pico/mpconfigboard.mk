# Speed Duo: CircuitPython 10.2.1 for the Raspberry Pi Pico with the game (lib/speedduo) frozen in.
# Built by firmware/build_uf2.py (`python3 dev.py firmware`); see docs/firmware.md.

# The Pico's USB ids (the board is a Pico; Speed Duo owns no USB ids): the host sees the names below
USB_VID = 0x239A
USB_PID = 0x80F4
USB_PRODUCT = "Speed Duo"
USB_MANUFACTURER = "Speed Duo"

CHIP_VARIANT = RP2040
CHIP_FAMILY = rp2

EXTERNAL_FLASH_DEVICES = "W25Q16JVxQ"

# Modules the game never imports, left out. The frozen game needs ~124 KB of flash, which the
# stock Pico build does not have free; ulab alone is ~126 KB. PicoDVI keeps code for the second
# core in RAM on the RP2040. Figures: docs/firmware.md.
CIRCUITPY_ULAB = 0
CIRCUITPY_PICODVI = 0
CIRCUITPY__EVE = 0
CIRCUITPY_USB_HOST = 0
CIRCUITPY_USB_VIDEO = 0
CIRCUITPY_AUDIOMP3 = 0
CIRCUITPY_IMAGECAPTURE = 0
CIRCUITPY_RGBMATRIX = 0
CIRCUITPY_FLOPPYIO = 0

# No wait for a second reset at power-on. CircuitPython waits 1,000 ms at every start for a
# second press of reset, which would start safe mode; the Speed Duo PCB has no reset button
# (nothing on the Pico's RUN pin: hardware/), so the wait only delays every power-on.
# BOOTSEL still reflashes the Pico. Measured: the menu 1,000 ms sooner (docs/device.md).
CIRCUITPY_SKIP_SAFE_MODE_WAIT = 1
