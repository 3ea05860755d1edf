"""An I2C bus that takes every write and sends it nowhere: a panel's drawing without a
screen (the tests that read a panel's buffer, the heap-lock scripts in the MicroPython VM).
Imported by its bare name, as the shims are."""


class NullBus:
    def try_lock(self):
        return True

    def unlock(self):
        pass

    def writeto(self, address, buffer, *, start, end):
        pass
