"""The screens: the SSD1306 driver, each game's view of one player, both panels together, the
menu's pages."""
