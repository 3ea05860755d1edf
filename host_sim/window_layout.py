"""Where the window puts things, for a given pixel scale (arithmetic only: no pygame)."""

from host_sim.window_panel import HEIGHT, WIDTH

MARGIN = 24
BEZEL = 10


class Layout:
    """Where everything goes for a given pixel scale (pure arithmetic, no pygame)."""

    def __init__(self, scale=4):
        if not 2 <= scale <= 8:
            raise ValueError("--scale must be 2..8")
        self.scale = scale
        self.panel_w = WIDTH * scale
        self.panel_h = HEIGHT * scale
        self.column = self.panel_w + 2 * BEZEL
        self.title_h = 40
        self.button_r = max(10, scale * 4)
        self.key_label_h = 22
        self.legend_h = 56
        self.width = 2 * self.column + 3 * MARGIN
        self.panel_y = MARGIN + self.title_h + BEZEL
        self.buttons_y = self.panel_y + self.panel_h + BEZEL + MARGIN + self.button_r
        self.legend_y = self.buttons_y + self.button_r + self.key_label_h + MARGIN
        self.height = self.legend_y + self.legend_h

    def panel_x(self, player):
        return MARGIN + player * (self.column + MARGIN) + BEZEL

    def panel_rect(self, player):
        return (self.panel_x(player), self.panel_y, self.panel_w, self.panel_h)

    def button_centre(self, key_number):
        player, index = divmod(key_number, 7)
        x = self.panel_x(player) + (2 * index + 1) * self.panel_w // 14
        return x, self.buttons_y
