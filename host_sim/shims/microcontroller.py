"""Shim of CircuitPython's ``microcontroller``: just the Pin type the other shims use."""


class Pin:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "board." + self.name
