"""Runs before code.py at power-on: open the USB data port that carries the match log."""

import usb_cdc

usb_cdc.enable(console=True, data=True)
