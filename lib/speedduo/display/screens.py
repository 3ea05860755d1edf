"""Both panels together: render both views, then flush fairly.

``refresh(hand, match, now)`` is the app's call when something changed:

1. both views draw their table into their framebuffers (pile tops, a new
   card before a pile whose aim alone changed; CPU only, no bus traffic yet);
2. the table goes out to both panels, interleaved transfer by transfer:
   window command to panel A, to panel B, page 1 to A, page 1 to B, ... so a
   new pile top lands on the second panel one page transfer after the first;
   which panel goes first alternates from one shared update to the next;
3. both views draw the centre's moment (countdown, stall, flip, results: shared;
   a refusal: private) and its shared part goes out the same way, the same
   panel first: a new pile top waits for no text;
4. then each view draws its private part (hand, counts, target) and each
   panel's private regions go out, so a new pile top waits for none of it.

An offline panel (it raised ``OSError``: unplugged, loose wire) is skipped;
``refresh`` asks it to re-initialise at most every ``retry_ms`` and, when it
answers, it gets its whole framebuffer again. Faults and recoveries are
reported through ``log(text)`` when one is given (outside the play path: a
fault is rare and may allocate).

Counters for tests and benchmarks: ``panels[i].bytes_sent`` /
``transfers``, ``first_served`` (the panel served first in the last shared
update, -1 before any), ``first_counts`` (how often each panel went first).

``screens_setup.py`` puts them on two buses and starts the panels (power-on only).

The views: classic Speed's (``view.PlayerView``) unless others are given; the board
gives ``base_view.View`` (menus and notices) and a match shows its own game's views
(``play``) until ``release``, so classic Speed's drawing is loaded for its match only.
"""

from array import array

from micropython import const  # on the host, Blinka provides this module

from speedduo.display.ssd1306 import PRIVATE, SHARED

_NO_PANEL = const(-1)


class Screens:
    """The two panels (Player 1 on index 0) and the two player views."""

    def __init__(self, panels, views=None, log=None, interleave=True, view=None):
        self.panels = panels
        if views is None:  # classic Speed's (the simulator's, the tests'); the board's: View
            from speedduo.display.view import PlayerView

            views = (PlayerView(panels[0], 0), PlayerView(panels[1], 1))
        self.views = views
        self._own = views  # shown again after a match (release)
        self._view = view  # their class, when they may be made again (screens_setup.build's)
        self.log = log
        self.interleave = interleave
        self._next_first = 0
        self.first_served = _NO_PANEL
        self.first_counts = array("l", [0, 0])
        self.shared_updates = 0
        for panel in panels:
            panel.on_fault = self._fault

    def _fault(self, panel, errno):
        if self.log is not None:
            i = 0 if panel is self.panels[0] else 1
            self.log("P%d screen: offline (OSError %d); the game goes on" % (i + 1, errno))

    # ---- the loop ----

    def refresh(self, hand, match, now):
        """Bring both panels up to date with the game (see the module docstring)."""
        self.recover(now)
        views = self.views
        playing0 = views[0].update_table(hand, match, now)
        playing1 = views[1].update_table(hand, match, now)
        first = self._next_first
        self.send_shared()  # the new pile top reaches both panels before the rest is drawn
        if playing0:
            views[0].update_moment(hand, match, now)
        if playing1:
            views[1].update_moment(hand, match, now)
        # the moments: the same panel first as the table's (one shared update a pass)
        self.send_shared(first if self._next_first != first else _NO_PANEL)
        if playing0:
            views[0].update_private(hand, match)
        if playing1:
            views[1].update_private(hand, match)
        self.send_private()

    def recover(self, now):
        panels = self.panels
        for i in range(2):
            panel = panels[i]
            if not panel.online:
                if panel.recover(now):
                    # resend everything, in this pass's shared + private flush
                    if self.log is not None:
                        self.log("P%d screen: back online, re-initialised" % (i + 1))

    def render(self, hand, match, now):
        views = self.views
        views[0].update(hand, match, now)
        views[1].update(hand, match, now)

    def send_shared(self, first=_NO_PANEL):
        """Shared regions to both panels, interleaved, the first panel alternating from one
        shared update to the next (``first``: this panel first, not counted as an update)."""
        alternate = first == _NO_PANEL
        if alternate:
            first = self._next_first
        a = self.panels[first]
        b = self.panels[1 - first]
        same = a.same_changes(b)  # (the usual play: both panels changed alike)
        na = a.plan(SHARED)
        nb = b.plan_as(a, SHARED) if same and a.online else b.plan(SHARED)
        if not na and not nb:
            return
        if alternate:
            self.first_served = first if na else 1 - first
            self.first_counts[self.first_served] += 1
            self.shared_updates += 1
            self._next_first = 1 - first
        if self.interleave:
            more_a = True
            more_b = True
            while more_a or more_b:
                if more_a:
                    more_a = a.send_next()
                if more_b:
                    more_b = b.send_next()
        else:
            while a.send_next():
                pass
            while b.send_next():
                pass

    def send_private(self):
        for panel in self.panels:
            panel.plan(PRIVATE)
            while panel.send_next():
                pass

    # ---- the app's moments, by player ----

    def event(self, kind, p, why, t, now):
        """A match-log record the core wrote (see PlayerView.event); ``now``: its match time."""
        self.views[0].event(kind, p, why, t, now)
        self.views[1].event(kind, p, why, t, now)

    def show_overflow(self, now):
        self.views[0].show_overflow(now)
        self.views[1].show_overflow(now)

    def show_menu(self, player, lines, selected, title=None):
        """A menu on one player's panel (player -1: both); sent at once (not during play)."""
        for i in range(2):
            if player < 0 or player == i:
                self.views[i].show_menu(lines, selected, title)
                self.panels[i].flush()

    def play(self, views):
        """A match's views (one per panel) shown until ``release``; the screens' own are
        let go meanwhile when they can be made again (``build``'s ``view``)."""
        if self._view is not None:
            self._own = None
        self.views = views

    def release(self):
        """Both views let go of the match that ended (its memory can go back to the heap)
        and the screens' own views are back (the match's view code can go too)."""
        for view in self.views:
            view.release()
        if self._own is None:
            self._own = (self._view(self.panels[0], 0), self._view(self.panels[1], 1))
        self.views = self._own

    def hide_menu(self):
        for view in self.views:
            view.hide_menu()
