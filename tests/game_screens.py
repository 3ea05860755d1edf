"""A match of Spit (V8) or California Speed (V9) on two emulated panels, for the view tests.

``Table(game, seed)`` drives a ``GameSession`` (gamematch.py) with chosen
presses, hands every event the core logs to both views (``event(ev, fields,
now)``, as the board's loop does) and refreshes ``Screens`` after each step
exactly as the board does: ``screens.refresh(core, match, now)``.
"""

import json

from speedduo.display.screens import Screens
from speedduo.game.gamematch import GameSession
from speedduo.game.gamerules import GameRules
from speedduo.log.gamelog import GameLog
from speedduo.vocab.codes import KEY_L, KEY_R, KEYS_PER_PLAYER, OVER, PLAYING, RESULT
from ssd1306_emulator import FakeI2C, SSD1306Emulator


def make_views(game, panels):
    """Both players' views of ``game`` (the registry's, imported only now, as the board does)."""
    from speedduo.games import view_class

    View = view_class(game)
    return (View(panels[0], 0), View(panels[1], 1))


class Table:
    def __init__(self, game, seed=3, **options):
        rules = GameRules(game, **options)
        from speedduo.games import core_class

        core = core_class(game)(rules)  # the registry's
        self.game = game
        self.session = GameSession(core, seed, rules, 1, GameLog())
        self.core = core
        self.match = self.session.match
        self.emulators = (SSD1306Emulator(0, "p0"), SSD1306Emulator(180, "p1"))
        self.buses = tuple(FakeI2C({0x3C: e}) for e in self.emulators)
        from speedduo.display.ssd1306 import Panel

        panels = (Panel(self.buses[0], rotation=0), Panel(self.buses[1], rotation=180))
        self.screens = Screens(panels, make_views(game, panels))
        from speedduo.display.screens_setup import start

        start(self.screens)
        self.events = []  # (ev, fields) of every line logged, as the views got them
        self.session.log.notes_on = True  # the views hear the log's notes, as on the board
        self.now = 0
        self.refresh()

    @property
    def views(self):
        return self.screens.views

    def refresh(self):
        self.session.log.drain(self._logged)
        self.session.log.observe(self.screens.event)  # as the board's loop (App.step)
        self.screens.refresh(self.core, self.match, self.now)
        if self.match.phase == OVER:  # as App.step: the last play's table, then the result
            self.screens.refresh(self.core, self.match, self.now)

    def _logged(self, line):
        event = json.loads(line)
        self.events.append((event.pop("ev"), event))

    def at(self, now):
        """Let time pass to ``now`` with nobody pressing."""
        self.now = now
        self.session.step(now, [])
        self.refresh()

    def start_round(self):
        self.at(self.match.hand_start)
        assert self.match.phase == PLAYING

    def press(self, p, key, dt=150):
        """Player p presses key (0-6: L 1 2 3 4 5 R) dt ms from now, released 1 ms later."""
        code = p * KEYS_PER_PLAYER + key
        self.now += dt
        self.session.step(self.now, [(code, 1)])
        self.refresh()
        self.now += 1
        self.session.step(self.now, [(code, 0)])
        self.refresh()

    def last(self, ev):
        """The fields of the last event ``ev`` the views got (a dict), or None."""
        for name, fields in reversed(self.events):
            if name == ev:
                return dict(fields)
        return None

    def play_one(self, p):
        """Player p presses a key that does something (the core's own list); False: none."""
        keys = self.core.bot_keys(p)
        if not keys:
            return False
        self.press(p, keys[0])
        return True

    def until(self, done, limit=3000):
        """Both players play (waiting out stalls) until ``done()``; returns done()."""
        for k in range(limit):
            if done() or self.match.phase == OVER:
                break
            if self.match.phase != PLAYING:
                self.at(self.match.next_due())
                continue
            if self.core.over:
                self.at(self.now + 1)
                continue
            if not self.play_one(k % 2) and not self.play_one(1 - k % 2):
                due = self.match.next_due()
                self.at(due if due > self.now else self.now + 1)
        return done()

    def play_to_end(self):
        """Play the match to its end."""
        self.until(lambda: self.match.phase == OVER, limit=20000)
        assert self.match.phase == OVER
        return self

    def slap(self, p, side):
        self.press(p, KEY_L if side == 0 else KEY_R, dt=50)

    def to_result(self):
        """Play the round to its end (slapping the smaller pile when Spit stops)."""
        core = self.core
        self.until(lambda: core.over or getattr(core, "stopped", False))
        if self.game == "spit" and core.stopped and not core.over:
            self.slap(0, 0 if len(core.piles[0]) <= len(core.piles[1]) else 1)
        assert core.over or self.match.phase == OVER
        return self.match.phase in (RESULT, OVER)


def check_refusal(t, p, key, page):
    """Player p's press of ``key`` is refused as invalid: INVALID flashes on p's panel
    (on ``page``) only, for 0.7 s."""
    from speedduo.display import game_view

    t.press(p, key)
    assert t.last("reject")["why"] == "invalid"
    assert t.views[p].moment[0] == game_view.M_INVALID
    assert shows(t.views[p].panel, page, "INVALID")
    assert t.views[1 - p].moment[0] == game_view.M_NONE
    t.at(t.now + 700)
    assert t.views[p].moment[0] == game_view.M_NONE


def word_bytes(text):
    """The column bytes ``Panel.text`` draws for ``text`` (5x8 font + a blank column each)."""
    from speedduo.display import glyphs

    out = bytearray()
    for code in text.encode():
        start = glyphs.SMALL_INDEX[code] * glyphs.SMALL_W
        out += glyphs.SMALL[start : start + glyphs.SMALL_W] + b"\0"
    return bytes(out[:-1])


def page_row(panel, page):
    from speedduo.display.ssd1306 import ROW, WIDTH

    return bytes(panel.buf[page * ROW + 1 : page * ROW + 1 + WIDTH])


def shows(panel, page, text):
    """Does ``page`` of the panel show ``text``, plain or inverted?"""
    want = word_bytes(text)
    row = page_row(panel, page)
    return want in row or bytes(b ^ 0xFF for b in want) in row


def golden_test(game, scenes):
    """A test comparing each scene (a function making a ``Table``) with its goldens
    ``<game>_<scene>_p0/1.png``."""
    import os

    import pytest

    from host_sim import ROOT

    golden = os.path.join(ROOT, "tests", "golden", "screens")
    named = {make.__name__: make for make in scenes}

    @pytest.mark.parametrize("scene", list(named))
    def test_golden_screens(scene, tmp_path):
        check_golden(named[scene]().emulators, game + "_" + scene, golden, tmp_path)

    return test_golden_screens


def check_golden(emulators, name, golden_dir, tmp_path):
    """Compare both panels with ``<name>_p0/1.png`` (SPEED_UPDATE_GOLDEN=1: write them)."""
    import os

    import pytest
    from PIL import Image

    update = os.environ.get("SPEED_UPDATE_GOLDEN") == "1"
    for p in range(2):
        img = emulators[p].to_image()
        path = os.path.join(golden_dir, "%s_p%d.png" % (name, p))
        if update:
            os.makedirs(golden_dir, exist_ok=True)
            img.save(path)
            continue
        assert os.path.exists(path), "no golden %s: run with SPEED_UPDATE_GOLDEN=1" % path
        want = Image.open(path).convert("1")
        if want.tobytes() != img.tobytes():
            img.save(str(tmp_path / os.path.basename(path)))
            pytest.fail("%s differs from its golden (actual in %s)" % (path, tmp_path))
