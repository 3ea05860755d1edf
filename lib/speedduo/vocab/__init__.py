"""The vocabulary every layer shares: event and reason codes (``codes``), the cards as small
ints (``cards``), and tick arithmetic on the board's wrapping ms clock (``ticks``). It
imports nothing of ours; the rules (``game``) and the log (``log``) both import it."""
