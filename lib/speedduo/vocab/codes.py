"""The game's shared vocabulary: every number that means something, declared once.

Match phases, what a press came to (the core's play results, which are also
the match log's reject reasons), why a hand ended, tie outcomes, "no player",
and the layout of each player's row of keys. Every other module imports these
names; none repeats a value (docs/rules.md for the rule ids).
"""

from micropython import const  # on the host, Blinka provides this module

# match phases (speedduo.game.match)
COUNTDOWN = const(0)  # R3: the synchronised countdown before the starters turn
PLAYING = const(1)
RESULT = const(2)  # a hand has ended; its result is on screen
OVER = const(3)

# what a press came to (Hand.play); 1-4 are also the log's reject "why"
PLAYED = const(0)
LATE = const(1)  # R8: lost a race, no penalty
INVALID = const(2)  # fits no pile (R16 penalises it when on)
LOCKED = const(3)  # R16 lock-out
JOKER_LAST = const(4)  # V3: a joker may not be the last card
EMPTY_SLOT = const(5)  # nothing under that button; ignored, not logged
NOT_PLAYING = const(6)  # the hand is over; ignored, not logged

# why a hand ended (hand_end "why")
END_OUT = const(1)  # R12
END_DEAD_STALL = const(2)  # R11, V6
END_PHOTO_FINISH = const(3)  # R13
END_CLAIM = const(4)  # V5
END_ABANDONED = const(5)  # R17

# a press that was part of a tie on one pile (the log's extra field "tie")
TIE_NONE = const(0)
TIE_WON = const(1)
TIE_LOST = const(2)

NO_T = const(-1)  # a log event without a ``t`` field (the log's begin())
NULL_PLAYER = const(255)  # no winner / no player, in every game (a byte: V10 has a player 2)

# each player's row of keys: L 1 2 3 4 5 R is keys 7p .. 7p+6 (hardware/pinmap.json)
KEYS_PER_PLAYER = const(7)
KEY_L = const(0)
KEY_R = const(6)

# the piezo's volume (SPEED_VOLUME, the menu's SOUND item; sound.py): 0 is mute
VOLUME_MAX = const(3)
VOLUME_DEFAULT = const(2)

# the events of every game's log (matchlog.py writes classic Speed's records with them,
# gamelog.py the other games' lines; the screens and the sound hear them)
EV_MATCH = const(1)
EV_DEAL = const(2)
EV_PLAY = const(3)
EV_DRAW = const(4)
EV_REJECT = const(5)
EV_PENALTY = const(6)
EV_STALL = const(7)
EV_REDEAL = const(8)
EV_FLIP = const(9)
EV_HAND_END = const(10)
EV_MATCH_END = const(11)
EV_CARDS = const(12)  # classic Speed's card lists (matchlog records)
EV_KEY = const(13)  # a key event read by the arbiter
EV_TURN = const(14)  # V8.4: a face-down stockpile top turned up
EV_MOVE = const(15)  # V8.5: a card moved into an empty stockpile place
EV_SPIT = const(16)  # V8.6, V8.7: a spit card turned onto a spit pile
EV_STOP = const(17)  # V8.8: the round stopped
EV_SLAP = const(18)  # V8.8: a spit pile slapped
EV_COVER = const(19)  # V9.3: a pile covered
