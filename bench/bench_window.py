"""Figures for the window (``python3 dev.py play``) on this machine, on the real wall clock.

    SDL_VIDEODRIVER=dummy PYTHONPATH=.:lib .venv/bin/python bench/bench_window.py [--seconds 20]

SDL's dummy video driver (no compositor: a real display adds its own flip time).
Player 0 presses PLAY, then R and L in turn every 300 ms (each moves the target
arrows on the panel, so each press must reach the pixels; seed 2); prints the CPU
share of the process, frames drawn, draw time per frame, and key-to-pixel time:
from the moment the key event was taken from pygame's queue to the board
program's first write to a panel after it, and to the end of the first frame
drawn after that write; presses that bring no panel write within 250 ms (the
countdown, a hand's result) are counted apart.
"""

import argparse
import os
import sys
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from host_sim.window_draw import Painter, pygame  # noqa: E402
from host_sim.window_keys import load_keymap  # noqa: E402
from host_sim.window_layout import Layout  # noqa: E402
from host_sim.window_loop import BoardWindow, legend_text  # noqa: E402
from host_sim.window_main import open_window  # noqa: E402

EXPIRE_US = 250000


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


class Probe(BoardWindow):
    """BoardWindow that times its frames and the way from a key to the pixels."""

    def __init__(self, *args, seconds=20, **kwargs):
        super().__init__(*args, **kwargs)
        self.seconds = seconds
        self.draw_ms = []
        self.key_to_pixel_ms = []
        self.key_to_bus_ms = []
        self._bus_at = None  # wall µs of the first panel write after the pending presses
        self._transfers = 0
        self._pending = []  # wall µs of key presses not yet seen on the panels
        self._started = None
        self._next_press = None
        self._release = None
        self.unchanged = 0  # presses that changed nothing within EXPIRE_US (countdown, result)

    def _contact(self, number, t_us):
        if number not in self.held.values() or self.closed[number]:
            return super()._contact(number, t_us)
        self._pending.append(self.now())
        return super()._contact(number, t_us)

    def service(self, target_us):
        super().service(target_us)
        emulators = self.emulators()
        if None in emulators:
            return
        transfers = sum(e.transfers for e in emulators)
        now = self.now()
        if self._pending and self._bus_at is None and transfers != self._transfers:
            self._bus_at = now
        self._transfers = transfers
        if self._pending and self._bus_at is None and now - self._pending[0] > EXPIRE_US:
            self.unchanged += len(self._pending)
            self._pending = []

    def draw(self):
        t0 = self.now()
        frames = self.frames
        super().draw()
        if self.frames == frames:
            return
        done = self.now()
        self.draw_ms.append((done - t0) / 1000)
        if self._bus_at is not None:
            self.key_to_bus_ms += [(self._bus_at - t) / 1000 for t in self._pending]
            self.key_to_pixel_ms += [(done - t) / 1000 for t in self._pending]
            self._pending = []
            self._bus_at = None

    def plan(self, _):
        now = self.now()
        if self._started is None:
            self._started = now
            self._next_press = now + 500000
            self._slot = 0
        if now >= self._next_press:
            # PLAY first (button 1), then R and L in turn: each moves the target arrows
            button = 1 if not self.contacts else (6 if self._slot % 2 == 0 else 0)
            code = self.keymap.labels[button][0]
            _post(pygame.KEYDOWN, code)
            self._release = (now + 60000, code)
            self._slot += 1 if self.contacts else 0  # the first press chooses PLAY
            self._next_press = now + 300000
        if self._release and now >= self._release[0]:
            _post(pygame.KEYUP, self._release[1])
            self._release = None
        if now - self._started > self.seconds * 1000000:
            pygame.event.post(pygame.event.Event(pygame.QUIT))


def _post(kind, name):
    pygame.event.post(pygame.event.Event(kind, key=pygame.key.key_code(name)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--scale", type=int, default=4)
    args = parser.parse_args()
    layout = Layout(args.scale)
    screen = open_window(pygame, layout)
    keymap = load_keymap()
    painter = Painter(screen, layout, keymap.labels, "white", legend_text(keymap))
    probe = Probe(pygame, keymap, painter, seconds=args.seconds)
    probe.on_frame = probe.plan
    wall0, cpu0 = time.monotonic(), time.process_time()
    probe.run((("SPEED_SEED", 2),))
    wall, cpu = time.monotonic() - wall0, time.process_time() - cpu0
    print(f"window, scale {args.scale}, {wall:.1f} s on the wall clock (SDL dummy video)")
    print(f"  CPU: {100 * cpu / wall:.0f} % of one core")
    print(f"  virtual clock: {probe.clock.now_us / 1e6:.2f} s, paused {probe.clock.paused_us} µs")
    print(
        f"  frames drawn: {probe.frames} ({probe.frames / wall:.1f}/s; a frame only when "
        "something changed)"
    )
    print(
        "  draw per frame: mean %.2f ms, p99 %.2f ms"
        % (sum(probe.draw_ms) / max(1, len(probe.draw_ms)), percentile(probe.draw_ms, 0.99))
    )
    k2b = probe.key_to_bus_ms
    print(
        "  key -> first panel write (%d presses): mean %.1f ms, p50 %.1f, p99 %.1f"
        % (len(k2b), sum(k2b) / max(1, len(k2b)), percentile(k2b, 0.5), percentile(k2b, 0.99))
    )
    k2p = probe.key_to_pixel_ms
    print(
        "  key -> pixels (%d presses): mean %.1f ms, p50 %.1f, p99 %.1f, max %.1f"
        % (
            len(k2p),
            sum(k2p) / max(1, len(k2p)),
            percentile(k2p, 0.5),
            percentile(k2p, 0.99),
            max(k2p or [float("nan")]),
        )
    )
    print(f"  presses with no panel write within {EXPIRE_US // 1000} ms: {probe.unchanged}")
    plays = sum('"ev":"play"' in line for line in probe.log.lines)
    rejects = sum('"ev":"reject"' in line for line in probe.log.lines)
    print(f"  log: {plays} plays, {rejects} refusals")
    pygame.quit()


if __name__ == "__main__":
    main()
