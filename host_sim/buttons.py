"""The physical buttons of the simulator: presses become contact changes, with bounce.

``press(player, key_index, t_us, hold_us)`` closes a contact at t_us and opens
it hold_us later. With bounce on, both edges chatter: the contact toggles a
few times over a random 0.1 ms .. ``bounce_max_us`` before it settles, the way
real tact switches do (0.1-5 ms). Runs under CPython and MicroPython.
"""

from speedduo.vocab.codes import KEYS_PER_PLAYER


class Buttons:
    def __init__(self, contacts, rng, bounce_max_us=0):
        self.contacts = contacts  # the key reader's shim (keypad.Keys, rp2pio's), or V10's
        self.rng = rng
        self.bounce_max_us = bounce_max_us

    def press(self, player, key_index, t_us, hold_us):
        key = player * KEYS_PER_PLAYER + key_index
        self._edge(key, t_us, True)
        self._edge(key, t_us + hold_us, False)

    def down(self, player, key_index, t_us):
        self._edge(player * KEYS_PER_PLAYER + key_index, t_us, True)

    def up(self, player, key_index, t_us):
        self._edge(player * KEYS_PER_PLAYER + key_index, t_us, False)

    def _edge(self, key, t_us, closed):
        if self.bounce_max_us > 0:
            chatter = 100 + self.rng.below(self.bounce_max_us - 99)
            toggles = 2 + 2 * self.rng.below(3)  # an even number: ends where it began
            at = t_us
            state = closed
            for i in range(toggles):
                self.contacts.set_contact(key, at, state)
                state = not state
                at = t_us + (chatter * (i + 1)) // toggles
            self.contacts.set_contact(key, t_us + chatter, closed)
        else:
            self.contacts.set_contact(key, t_us, closed)
