"""``--screens DIR`` / ``--snap T_MS``: both panels, emulated, saved as PNG while a match runs.

The simulator's App refreshes the two emulated SSD1306 panels every loop pass
(the same renderer the board runs); this hook, called after each pass, saves
``handN_end_p0.png``/``_p1.png`` when a hand ends and ``snap_T_p0.png``/``_p1.png``
the first pass at or after each snap time (ms of match time).
"""

import os

from host_sim.screens_capture import save_screens, sim_screens


class ScreensHook:
    def __init__(self, directory, snaps=()):
        os.makedirs(directory, exist_ok=True)
        self.directory = directory
        self.snaps = sorted(snaps)
        self.screens, self.emulators = sim_screens()  # hand self.screens to the Simulation
        self.saved_hands = set()
        self.files = []

    def __call__(self, sim):
        match = sim.match
        now = sim.arbiter.match_time(sim.clock.ticks_ms())
        hand = match.hand
        if hand.hand_no and hand.over and hand.hand_no not in self.saved_hands:
            self.saved_hands.add(hand.hand_no)
            self._save(f"hand{hand.hand_no}_end")
        while self.snaps and now >= self.snaps[0]:
            self._save(f"snap_{self.snaps.pop(0)}")

    def _save(self, stem):
        save_screens(self.screens, self.directory, stem)
        self.files.append(stem)
