"""The match log: its lines and the key record, written without allocating (docs/match-log.md)."""
