"""Figures for the two-panel renderer: bytes on the bus, press-to-pixel time, skew, heap.

    .venv/bin/python bench/bench_screens.py            # everything (runs the MicroPython part too)
    .venv/bin/micropython -X heapsize=1M bench/bench_screens.py   # only the MicroPython part

Under CPython a few seeded greedy matches are played on two emulated panels
(host_sim's SSD1306 emulator behind FakeI2C); every refresh is measured.
Bus time per transfer is (payload + address byte) x 9 clocks + ~2 for START/STOP,
at 400 kHz and 1 MHz. Render time is the measured ``Screens.render`` time on
this host (CPython and the MicroPython unix VM), not on an RP2040.
Under MicroPython the script measures the heap the renderer holds
(``gc.mem_free`` before and after building both panels and views) and the
render time of a play.
"""

import sys

MPY = sys.implementation.name == "micropython"


class NullBus:
    """A busio.I2C that takes every transfer and sends nothing (the VM has no bus)."""

    def try_lock(self):
        return True

    def unlock(self):
        pass

    def writeto(self, address, buf, start=0, end=None):
        pass


def _mpy_part(root):
    import gc
    import time

    sys.path.insert(0, root + "/lib")
    gc.collect()
    free0 = gc.mem_free()
    from speedduo.display import glyphs, screens, screens_setup, ssd1306, view  # noqa: F401

    gc.collect()
    free1 = gc.mem_free()
    from speedduo.game.match import Match
    from speedduo.game.rules import Rules
    from speedduo.log.matchlog import MatchLog

    b0 = NullBus()
    b1 = NullBus()
    gc.collect()
    free2 = gc.mem_free()
    s = screens_setup.build(b0, b1)
    gc.collect()
    free3 = gc.mem_free()
    screens_setup.start(s)
    m = Match(11, Rules(), 3, MatchLog())
    m.pressed(0)
    m.advance(3000)
    h = m.hand
    now = 3000
    s.refresh(h, m, now)
    gc.collect()
    free4 = gc.mem_free()
    total = 0
    n = 0
    for k in range(400):
        p = k & 1
        slot = h.first_playable(p)
        if slot >= 0:
            now += 50
            h.play(now - m.hand_start, p, slot)
            m.log.drain(lambda line: None)
            t0 = time.ticks_us()
            s.render(h, m, now)
            total += time.ticks_diff(time.ticks_us(), t0)
            n += 1
            s.send_shared()
            s.send_private()
        if h.over:
            break
    print("micropython heap: modules (code + glyph bytes) %d B" % (free0 - free1))
    print("micropython heap: screens_setup.build (2 panels + 2 views) %d B" % (free2 - free3))
    print("micropython heap: after start + first full refresh %d B" % (free2 - free4))
    if n:
        print("micropython render per play (host VM): %.1f us over %d plays" % (total / n, n))


def _cpython_part():
    import os
    import time

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path[:0] = [root, os.path.join(root, "lib"), os.path.join(root, "host_sim")]
    from speedduo.display import screens_setup
    from speedduo.game.match import COUNTDOWN, OVER, PLAYING, RESULT, Match
    from speedduo.game.rules import Rules
    from speedduo.log.matchlog import MatchLog
    from ssd1306_emulator import FakeI2C, SSD1306Emulator

    def game(seed, frequency, interleave):
        clock = [0.0]
        log = []
        emus = (SSD1306Emulator(0), SSD1306Emulator(180))
        buses = tuple(
            FakeI2C({0x3C: e}, frequency=frequency, tag=i, clock=clock) for i, e in enumerate(emus)
        )
        for b in buses:
            b.log = log
        screens = screens_setup.build(buses[0], buses[1])
        screens.interleave = interleave
        screens_setup.start(screens)
        match = Match(seed, Rules(), 3, MatchLog())
        match.pressed(0)
        return screens, match, buses, log, clock

    def run(seed, frequency, interleave):
        """Per refresh: kind, bytes and bus us per panel, render us, skew, pile-top and end us."""
        screens, match, buses, log, clock = game(seed, frequency, interleave)
        now = 0
        p = 0
        while match.phase != OVER:
            if match.phase in (COUNTDOWN, RESULT):
                now = match.next_due()
                match.advance(now)
                screens.refresh(match.hand, match, now)
                continue
            hand = match.hand
            slot = hand.first_playable(p)
            if slot < 0:
                slot = hand.first_playable(1 - p)
                p = 1 - p
            kind = "play"
            moments = [v.moment for v in screens.views]
            if slot < 0:
                now = match.hand_start + hand.stall_due
                kind = "flip"
            else:
                now += 150
                match.pressed(now)
                hand.play(now - match.hand_start, p, slot)
                if hand.stall_due >= 0 or hand.over:
                    kind = "play+moment"
            match.advance(now)
            match.log.drain(lambda line: None)
            for b in buses:
                b.reset_counters()
            del log[:]
            t0 = time.perf_counter()
            screens.render(match.hand, match, now)
            render_us = (time.perf_counter() - t0) * 1e6
            if kind == "play" and [v.moment for v in screens.views] != moments:
                kind = "play+moment"  # a message appeared or ended with this play
            clock[0] = 0.0
            screens.send_shared()
            ends = {}
            for tag, _, _, end in log:
                ends[tag] = end
            skew = abs(ends[0] - ends[1]) if len(ends) == 2 else None
            first_done = max(ends.values()) if ends else 0.0
            screens.send_private()
            nbytes = [b.bytes.get(0x3C, 0) for b in buses]
            bus_us = [b.bus_us.get(0x3C, 0.0) for b in buses]
            if match.phase == OVER:
                kind = "match over"  # the full-screen result: not during play
            elif match.phase == RESULT or match.hand.over:
                kind = "hand end"
            if match.phase == PLAYING or kind != "play":
                yield kind, nbytes, bus_us, render_us, skew, first_done, clock[0]
            p = 1 - p

    seeds = range(1, 6)
    print("Speed Duo screens benchmark (seeds %d-%d, greedy bots, best of 3)" % (1, 5))
    print()
    for frequency in (400000, 1000000):
        for interleave in (True, False):
            rows = [r for seed in seeds for r in run(seed, frequency, interleave)]
            plays = [r for r in rows if r[0] == "play"]
            moments = [r for r in rows if r[0] not in ("play", "match over")]
            over = [max(r[1]) for r in rows if r[0] == "match over"]
            label = "%d kHz, %s" % (
                frequency // 1000,
                "interleaved" if interleave else "sequential",
            )
            per_panel = [max(r[1]) for r in plays]
            mean = sum(sum(r[1]) for r in plays) / (2 * len(plays))
            worst_play = max(per_panel)
            worst = max(max(r[1]) for r in moments)
            worst_kind = [r[0] for r in moments if max(r[1]) == worst][0]
            skews = [r[4] for r in rows if r[4] is not None]
            render = sorted(r[3] for r in plays)
            med_render = render[len(render) // 2]
            p2p = sorted(r[3] + r[6] for r in plays)
            p2p_pile = sorted(r[3] + r[5] for r in plays)  # the later of the two panels
            print("== %s ==" % label)
            print(
                "  refreshes after a plain play: %d; with a stall/flip/hand-end moment: %d"
                % (len(plays), len(moments))
            )
            print(
                "  bytes per panel, typical play: mean %.0f, max %d (target <= 200; frame 1024)"
                % (mean, worst_play)
            )
            pm = [max(r[1]) for r in moments if r[0] == "play+moment"]
            print("  bytes per panel, play that also starts/ends a message: max %d" % max(pm))
            print("  bytes per panel, worst refresh in play: %d (%s)" % (worst, worst_kind))
            print("  bytes per panel, match-over screen (full redraw, after play): %d" % max(over))
            print(
                "  skew between panels for a new pile top: mean %.0f us, max %.0f us"
                % (sum(skews) / len(skews), max(skews))
            )
            print("  render (CPython, this host): median %.0f us" % med_render)
            print(
                "  press-to-pixel, new pile top on both panels: median %.2f ms, max %.2f ms"
                % (p2p_pile[len(p2p_pile) // 2] / 1000, p2p_pile[-1] / 1000)
            )
            print(
                "  press-to-pixel, everything shown: median %.2f ms, max %.2f ms"
                % (p2p[len(p2p) // 2] / 1000, p2p[-1] / 1000)
            )
            print()
    run_micropython_part(root, __file__)


def run_micropython_part(root, script):
    """Run the bench file ``script`` under the MicroPython VM in .venv; print its figures."""
    import os
    import subprocess

    mpy = os.path.join(root, ".venv", "bin", "micropython")
    if os.path.exists(mpy):
        out = subprocess.run(
            [mpy, "-X", "heapsize=1M", os.path.abspath(script)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        print(out.stdout.strip() or out.stderr.strip())
    else:
        print("(no MicroPython VM at %s: heap figures skipped)" % mpy)


if __name__ == "__main__":
    if MPY:
        _here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
        _mpy_part(_here + "/..")
    else:
        _cpython_part()
