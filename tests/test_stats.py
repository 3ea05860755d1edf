"""Stats in microcontroller.nvm: the record format, power cuts at every step, the numbers."""

import json
from array import array

import pytest
from microcontroller import ERASE_US, NVM_SIZE, PAGE_US, ByteArray
from runner import Simulation
from speedduo.game.rules import Rules
from speedduo.host.stats import MODES, Stats, mode_of
from speedduo.host.stats_store import PAYLOAD, SLOT, Store, crc16, valid
from speedduo.log.matchlog import NULL_PLAYER
from vclock import PowerCut, VirtualClock, install

SLOTS = NVM_SIZE // SLOT


def payload(n):
    """A payload that names its save (the first bytes hold n)."""
    data = bytearray(PAYLOAD)
    for i in range(PAYLOAD):
        data[i] = (n * 7 + i) & 0xFF
    data[0] = n & 0xFF
    data[1] = n >> 8
    return data


def saved(nvm):
    """(payload, sequence) of what a fresh reader finds, or (None, 0)."""
    out = bytearray(PAYLOAD)
    store = Store(nvm)
    return (bytes(out), store.seq) if store.load(out) else (None, 0)


def nvm_after(saves):
    nvm = ByteArray()
    store = Store(nvm)
    for n in range(1, saves + 1):
        store.save(payload(n))
    return nvm


def test_crc16_is_ccitt_false():
    assert crc16(b"123456789", 0, 9) == 0x29B1
    assert crc16(b"xx123456789", 2, 11) == 0x29B1


def test_a_blank_nvm_holds_no_record_and_saves_go_round_the_ring():
    nvm = ByteArray()
    assert saved(nvm) == (None, 0)
    store = Store(nvm)
    for n in range(1, SLOTS + 1):
        store.save(payload(n))
        assert saved(nvm) == (bytes(payload(n)), n)
        assert store.slot == n - 1
    assert nvm.erases == 0  # 32 saves into erased slots: no erase at all
    store.save(payload(SLOTS + 1))  # the ring is used up: one erase, new record first
    assert nvm.erases == 1 and store.slot == 0
    assert saved(nvm) == (bytes(payload(SLOTS + 1)), SLOTS + 1)
    assert all(b == 0xFF for b in nvm[SLOT:])


def test_the_reader_takes_the_newest_valid_record_wherever_it_is():
    nvm = nvm_after(5)
    record = nvm[4 * SLOT : 5 * SLOT]
    assert valid(record)
    record[10] ^= 1
    assert not valid(record)
    # a record with a bad checksum in the newest slot: the one before it is taken
    image = bytearray(nvm.image())
    image[4 * SLOT + 10] ^= 1
    nvm.load(image)
    assert saved(nvm) == (bytes(payload(4)), 4)


def _cut_every_step(before_saves, new):
    """Save ``new`` over ``before_saves`` saves, cut after every step count; the outcomes."""
    clean = nvm_after(before_saves)
    old = saved(clean)
    reader = Store(clean)
    reader.load(bytearray(PAYLOAD))
    total = None
    outcomes = []
    for tear in (True, False):
        n = 0
        while True:
            nvm = ByteArray()
            nvm.load(clean.image())
            nvm.cut_after = n
            nvm.tear = tear
            store = Store(nvm)
            store.slot, store.seq = reader.slot, reader.seq  # as the boot before found them
            try:
                store.save(payload(new))
            except PowerCut:
                outcomes.append((n, saved(nvm)))
                n += 1
                continue
            total = n
            assert saved(nvm) == (bytes(payload(new)), old[1] + 1)
            break
    return old, total, outcomes


def test_a_cut_at_every_byte_of_a_save_leaves_the_old_record_or_the_new_one():
    old, total, outcomes = _cut_every_step(3, 4)
    assert total == SLOT  # one step per byte programmed, no erase
    new = (bytes(payload(4)), 4)
    for n, outcome in outcomes:
        assert outcome in (old, new), n
    assert outcomes[0][1] == old and len(outcomes) == 2 * SLOT


def test_a_cut_in_the_erase_of_a_full_ring_loses_the_stats_but_never_reads_garbage():
    old, total, outcomes = _cut_every_step(SLOTS, SLOTS + 1)
    assert total == 1 + NVM_SIZE  # the erase, then every byte of the sector
    new = (bytes(payload(SLOTS + 1)), SLOTS + 1)
    for n, outcome in outcomes:
        if n <= SLOT:  # the erase or the new record's own bytes: nothing valid is left
            assert outcome in (old, (None, 0)), n
        else:  # the new record is whole: the rest of the sector is only 0xFF
            assert outcome == new, n


def test_after_a_torn_save_the_next_save_and_boot_are_clean():
    nvm = nvm_after(6)
    nvm.cut_after = 40
    store = Store(nvm)
    store.load(bytearray(PAYLOAD))
    with pytest.raises(PowerCut):
        store.save(payload(7))
    nvm.cut_after = -1
    store = Store(nvm)
    store.load(bytearray(PAYLOAD))
    assert store.seq == 6
    store.save(payload(8))  # the torn slot is not blank: the sector is rewritten
    assert nvm.erases == 1
    assert saved(nvm) == (bytes(payload(8)), 7)


# ---- the nvm shim is as strict as the board ----


def test_the_nvm_shim_refuses_what_the_board_refuses():
    nvm = ByteArray()
    assert len(nvm) == 4096 and bool(nvm)
    with pytest.raises(ValueError):
        nvm[0:4] = b"abc"  # a slice takes exactly its length
    with pytest.raises(NotImplementedError):
        nvm[0:4:2] = b"ab"
    with pytest.raises(NotImplementedError):
        nvm[0:2] = [1, 2]
    with pytest.raises(ValueError):
        nvm[0:2] = array("H", [1, 2])[0:1] * 2
    with pytest.raises(IndexError):
        nvm[4096] = 1
    with pytest.raises(IndexError):
        nvm[-4097]
    with pytest.raises(ValueError):
        nvm[0] = 256
    with pytest.raises(TypeError):
        del nvm[0]
    nvm[-1] = 7
    assert nvm[4095] == 7 and nvm[4090:9999] == bytearray(b"\xff" * 5 + b"\x07")
    assert isinstance(nvm[0:1], bytearray) and nvm[10:5] == bytearray()
    nvm[0:2] = array("B", [1, 2])
    assert nvm[0:3] == bytearray(b"\x01\x02\xff")
    with pytest.raises(ValueError):
        nvm.load(b"\xff" * 100)


def test_flash_writes_take_the_flash_chip_time_on_the_virtual_clock():
    clock = install(VirtualClock())
    nvm = ByteArray()
    nvm[0:128] = b"\x00" * 128  # erased bytes: one page programmed
    assert clock.now_us == PAGE_US and nvm.erases == 0
    nvm[0:1] = b"\x01"  # not erased: the whole sector, erased and programmed again
    assert clock.now_us == PAGE_US + ERASE_US + 16 * PAGE_US and nvm.erases == 1
    assert nvm[0:2] == bytearray(b"\x01\x00")
    clock.power_cut_us = clock.now_us + ERASE_US // 2
    with pytest.raises(PowerCut):
        nvm[0:1] = b"\x02"  # cut in the erase
    assert clock.now_us == clock.power_cut_us
    install(None)


# ---- the numbers ----


def _play(seed, rules=None, players=("bot:hard", "bot:easy")):
    sim = Simulation(seed, rules or Rules(), 3, list(players))
    lines = []
    sim.run(lines.append)
    return sim.match, [json.loads(line) for line in lines]


def test_a_match_is_counted_as_its_log_says():
    match, log = _play(1)
    stats = Stats()
    stats.record(match)
    ends = [e for e in log if e["ev"] == "hand_end"]
    end = log[-1]
    mode = mode_of(match.rules)
    assert stats.totals(mode) == (1, len(ends))
    for p in range(2):
        won = [e["t"] for e in ends if e["winner"] == p]
        wins, hands_won, best_ms, streak, best_streak = stats.player(mode, p)
        assert hands_won == len(won) == end["score"][p]
        assert best_ms == (min(won) if won else 0)
        assert (wins, streak, best_streak) == ((1, 1, 1) if end["winner"] == p else (0, 0, 0))
    for other in range(MODES):
        if other != mode:
            assert stats.totals(other) == (0, 0)


def test_streaks_runs_and_modes_over_several_matches():
    stats = Stats()
    winners = []
    for seed in (1, 2, 3, 4):
        match, _ = _play(seed, players=("bot:hard", "bot:easy"))
        stats.record(match)
        winners.append(match.winner)
    assert winners == [0, 0, 0, 0]
    match, _ = _play(5, players=("bot:easy", "bot:perfect"))
    stats.record(match)
    assert match.winner == 1
    assert stats.player(0, 0)[0] == 4 and stats.player(0, 0)[3:] == (0, 4)
    assert stats.player(0, 1)[0] == 1 and stats.player(0, 1)[3:] == (1, 1)
    match, _ = _play(6, Rules(no_wrap=True, same_rank=True))
    stats.record(match)
    assert mode_of(match.rules) == 3 and stats.totals(3)[0] == 1 and stats.totals(0)[0] == 5


def test_an_idle_match_counts_its_finished_hands_only_and_breaks_no_run():
    stats = Stats()
    match, _ = _play(1)
    stats.record(match)
    idle, log = _play(2, Rules(idle_ms=1000), players=("none", "none"))  # R17
    assert idle.winner == NULL_PLAYER and log[-1]["winner"] is None
    stats.record(idle)
    assert stats.totals(0) == (1, match.wins[0] + match.wins[1])
    assert stats.player(0, match.winner)[3] == 1


def test_summary_is_plain_json_and_survives_a_save_and_a_boot():
    nvm = ByteArray()
    stats = Stats(nvm)
    assert not stats.loaded
    match, _ = _play(1)
    stats.record(match)
    stats.save()
    again = Stats(nvm)
    assert again.loaded and again.summary() == stats.summary()
    summary = json.loads(json.dumps(again.summary()))
    assert summary["record"] == 1 and len(summary["modes"]) == MODES
    classic = summary["modes"][0]
    assert classic["matches"] == 1 and classic["players"][match.winner]["wins"] == 1
    again.reset()
    fresh = Stats(nvm).summary()
    assert fresh["record"] == 2 and all(m["matches"] == 0 for m in fresh["modes"])
    assert fresh["modes"][0]["players"][0]["best_hand_ms"] is None


def test_counts_stop_at_their_limit():
    stats = Stats()
    match, _ = _play(1)
    for _ in range(3):
        stats.record(match)
    stats.data[0:2] = b"\xfe\xff"
    stats.record(match)
    stats.record(match)
    assert stats.totals(0)[0] == 65535
