"""Shim of CircuitPython's ``board`` for a Raspberry Pi Pico: pin objects by name."""

from microcontroller import Pin

for _n in range(29):
    globals()["GP%d" % _n] = Pin("GP%d" % _n)
LED = globals()["GP25"]
board_id = "raspberry_pi_pico"
