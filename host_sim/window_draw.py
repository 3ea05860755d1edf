"""Drawing the board in a pygame window: two OLED panels, each player's seven buttons, a legend.

Layout (``window_layout.Layout``): Player 1 (key numbers 0-6) on the left, Player 2 (7-13) on
the right, each with their panel above their row of buttons ``L 1 2 3 4 5 R``;
the buttons split the panel's width into 7 columns as on the device, so slot
s of the hand is drawn right above button s+1 (lib/speedduo/display/view.py). Both
panels are drawn upright for their own player: on the device they face their
players from opposite sides (``PANEL_ROTATION`` 0 in hardware/pinmap.json:
each module is mounted upright for its player, and the emulator's picture is
what that player sees); at one keyboard the two players sit side by side, so
each sees their panel as on the device.

Each GDDRAM pixel is a ``scale`` x ``scale`` square with a one-pixel dark gap
(the OLED's dot pitch), in the panel's colour (white or blue).
"""

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from host_sim.window_layout import BEZEL, MARGIN  # noqa: E402
from host_sim.window_panel import HEIGHT, OLED_COLOURS, WIDTH  # noqa: E402

BACKGROUND = (36, 40, 48)
BOARD = (22, 92, 60)  # the PCB
TEXT = (230, 232, 236)
DIM_TEXT = (160, 168, 180)
BUTTON_UP = (58, 62, 70)
BUTTON_DOWN = (255, 196, 40)
BUTTON_EDGE = (12, 12, 14)
BUTTON_NAMES = "L12345R"


class Painter:
    """Draws frames onto ``surface`` (the window, or any surface of ``layout``'s size)."""

    def __init__(self, surface, layout, labels, oled="white", legend=""):
        self.surface = surface
        self.layout = layout
        self.labels = labels  # per key number: the keyboard key names
        self.lit, self.dark, self.glass = OLED_COLOURS[oled]
        self.legend = legend
        self.font = pygame.font.Font(None, 28)
        self.small = pygame.font.Font(None, 20)
        self.button_font = pygame.font.Font(None, max(18, layout.button_r + 6))
        self._palette = [self.dark, self.lit] + [self.dark] * 254
        self._grid = self._make_grid()
        self._background = None  # (title, surface)
        self._status = None  # (text, rendered)
        self._panels = [None, None]  # (pixels, scaled surface) per player
        self._buttons = self._make_pressed_buttons()

    def _make_grid(self):
        """The dark gaps between pixels: every cell's last row and column (colour-keyed)."""
        layout = self.layout
        grid = pygame.Surface((layout.panel_w, layout.panel_h))
        key = (255, 0, 255)
        grid.fill(key)
        grid.set_colorkey(key)
        gap = self.glass
        if layout.scale >= 3:
            for x in range(layout.scale - 1, layout.panel_w, layout.scale):
                grid.fill(gap, (x, 0, 1, layout.panel_h))
            for y in range(layout.scale - 1, layout.panel_h, layout.scale):
                grid.fill(gap, (0, y, layout.panel_w, 1))
        return grid

    def frame(self, pixels, pressed, title, status=""):
        """One whole frame: ``pixels`` per player (8192 bytes 0/1), ``pressed`` per key number.

        What never changes (title, bezels, labels, legend) is drawn once into a
        background; panels are scaled again only when their pixels changed."""
        surface = self.surface
        layout = self.layout
        if self._background is None or self._background[0] != title:
            self._background = (title, self._make_background(title))
        surface.blit(self._background[1], (0, 0))
        if status:
            if self._status is None or self._status[0] != status:
                self._status = (status, self.font.render(status, True, BUTTON_DOWN))
            image = self._status[1]
            surface.blit(image, (layout.width - MARGIN - image.get_width(), MARGIN))
        for player in range(2):
            self.panel(player, pixels[player])
        for number in range(14):
            if pressed[number]:
                sprite = self._buttons[number]
                surface.blit(sprite, sprite.get_rect(center=layout.button_centre(number)))

    def _make_background(self, title):
        layout = self.layout
        background = pygame.Surface((layout.width, layout.height))
        saved, self.surface = self.surface, background
        try:
            background.fill(BACKGROUND)
            self._text(self.font, title, TEXT, (MARGIN, MARGIN))
            for player in range(2):
                x, y, w, h = layout.panel_rect(player)
                pygame.draw.rect(
                    background, BOARD, (x - BEZEL, y - BEZEL, w + 2 * BEZEL, h + 2 * BEZEL), 0, 6
                )
                self._text(self.small, "PLAYER %d" % (player + 1), DIM_TEXT, (x, MARGIN + 24))
                for index in range(7):
                    self.button(player * 7 + index, False)
            self._text(self.small, self.legend, DIM_TEXT, (MARGIN, layout.legend_y))
        finally:
            self.surface = saved
        return background

    def _make_pressed_buttons(self):
        """A lit button per key number, to blit over the background while it is held."""
        r = self.layout.button_r
        sprites = []
        for number in range(14):
            sprite = pygame.Surface((2 * r + 6, 2 * r + 6))
            sprite.fill((255, 0, 255))
            sprite.set_colorkey((255, 0, 255))
            c = (r + 3, r + 3)
            pygame.draw.circle(sprite, BUTTON_EDGE, c, r + 2)
            pygame.draw.circle(sprite, BUTTON_DOWN, c, r)
            name = self.button_font.render(BUTTON_NAMES[number % 7], True, BUTTON_EDGE)
            sprite.blit(name, name.get_rect(center=c))
            sprites.append(sprite)
        return sprites

    def panel(self, player, pixels):
        cached = self._panels[player]
        if cached is None or cached[0] != pixels:
            layout = self.layout
            image = pygame.image.frombytes(pixels, (WIDTH, HEIGHT), "P")
            image.set_palette(self._palette)
            scaled = pygame.transform.scale(image, (layout.panel_w, layout.panel_h))
            scaled.blit(self._grid, (0, 0))
            cached = self._panels[player] = (pixels, scaled)
        x, y, _, _ = self.layout.panel_rect(player)
        self.surface.blit(cached[1], (x, y))

    def button(self, key_number, down):
        layout = self.layout
        cx, cy = layout.button_centre(key_number)
        r = layout.button_r
        pygame.draw.circle(self.surface, BUTTON_EDGE, (cx, cy), r + 2)
        pygame.draw.circle(self.surface, BUTTON_DOWN if down else BUTTON_UP, (cx, cy), r)
        name = BUTTON_NAMES[key_number % 7]
        image = self.button_font.render(name, True, BUTTON_EDGE if down else TEXT)
        self.surface.blit(image, image.get_rect(center=(cx, cy)))
        keys = self.labels[key_number] if self.labels else []
        if keys:
            label = self.small.render(" ".join(k.upper() for k in keys), True, DIM_TEXT)
            self.surface.blit(label, label.get_rect(center=(cx, cy + r + 12)))

    def _text(self, font, text, colour, where):
        if text:
            self.surface.blit(font.render(text, True, colour), where)
