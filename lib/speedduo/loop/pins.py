"""Speed Duo pin map for the board: GENERATED, do not edit.

Made from hardware/pinmap.json by hardware/gen_pins.py; tests/test_hardware.py
checks that it is in sync. Pin NAMES only: code.py does getattr(board, name).
"""

BOARD = "raspberry_pi_pico"

# One keypad.Keys over BUTTON_PINS; its key numbers are the indexes here:
#    0  Player 1  L  GP6  (header pin 9)
#    1  Player 1  1  GP7  (header pin 10)
#    2  Player 1  2  GP8  (header pin 11)
#    3  Player 1  3  GP9  (header pin 12)
#    4  Player 1  4  GP10 (header pin 14)
#    5  Player 1  5  GP11 (header pin 15)
#    6  Player 1  R  GP12 (header pin 16)
#    7  Player 2  L  GP16 (header pin 21)
#    8  Player 2  1  GP17 (header pin 22)
#    9  Player 2  2  GP18 (header pin 24)
#   10  Player 2  3  GP19 (header pin 25)
#   11  Player 2  4  GP20 (header pin 26)
#   12  Player 2  5  GP21 (header pin 27)
#   13  Player 2  R  GP22 (header pin 29)
BUTTON_PINS = (
    "GP6",
    "GP7",
    "GP8",
    "GP9",
    "GP10",
    "GP11",
    "GP12",
    "GP16",
    "GP17",
    "GP18",
    "GP19",
    "GP20",
    "GP21",
    "GP22",
)
BUTTON_PLAYERS = (0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1)
BUTTON_NAMES = ("L", "1", "2", "3", "4", "5", "R", "L", "1", "2", "3", "4", "5", "R")
KEYS_PER_PLAYER = 7
KEYS_PULL = True
KEYS_VALUE_WHEN_PRESSED = False

# Panels, indexed by player; each on its own I2C peripheral (own SDA/SCL pair).
PANEL_COUNT = 2
PANEL_I2C = ("I2C0", "I2C1")
PANEL_SDA = ("GP4", "GP26")
PANEL_SCL = ("GP5", "GP27")
PANEL_ADDRESS = (0x3C, 0x3C)
PANEL_FREQUENCY = (400000, 400000)
PANEL_MAX_FREQUENCY = (1000000, 1000000)
PANEL_WIDTH = (128, 128)
PANEL_HEIGHT = (64, 64)
PANEL_ROTATION = (0, 0)

# Passive piezo, driven by pwmio.PWMOut (every RP2040 GPIO has PWM).
PIEZO_PIN = "GP15"

# Status LED (the Pico's on-board LED).
LED_PIN = "GP25"
